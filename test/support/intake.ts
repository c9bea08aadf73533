import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { type Intake, type IntakeCaller, openIntake } from "../../src/space/intake";

/** A source key with scope `track` of an agent source that may not act: intake's usual caller. */
export const TRACK_CALLER: IntakeCaller = {
  keyId: "key",
  sourceId: "src",
  scopes: ["track"],
  test: false,
  source: { sourceId: "src", kind: "agent", verificationCeiling: "V2", act: { operations: [], objectTypes: [] } },
};

/** Runs intake inside a fresh object of its own, on its real SQLite, as plain functions. */
export function withIntake<T>(work: (intake: Intake, sql: SqlStorage) => T): Promise<T> {
  const stub = env.SPACE.get(env.SPACE.newUniqueId());
  return runInDurableObject(stub, (_instance, state) =>
    work(openIntake(drizzle(state.storage), state.storage.sql), state.storage.sql),
  );
}
