import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import type { BatchAnswer } from "../../src/contract/batch";
import type { SpaceConfigValues } from "../../src/contract/config";
import { implicitTransaction } from "../../src/space/implicit-transaction";
import { type Intake, type IntakeCaller, ingestBatch, openIntake } from "../../src/space/intake";
import type { LiveChanges } from "../../src/space/memory/intake";

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
    work(openIntake(drizzle(state.storage), state.storage.sql, implicitTransaction(state)), state.storage.sql),
  );
}

/** A whole batch through intake, every chunk at once (the object lets requests in between them). */
export function storeBatch(
  intake: Intake,
  caller: IntakeCaller,
  body: unknown,
  now: number,
  config: SpaceConfigValues,
  chunkItems?: number,
): { answer: BatchAnswer; live: LiveChanges } {
  const chunks = ingestBatch(intake, caller, body, now, config, chunkItems);
  const live: LiveChanges = { added: [], closed: [], reopened: [] };
  for (;;) {
    const step = chunks.next();
    if (step.done) return { answer: step.value, live };
    live.added.push(...step.value.live.added);
    live.closed.push(...step.value.live.closed);
    live.reopened.push(...step.value.live.reopened);
  }
}
