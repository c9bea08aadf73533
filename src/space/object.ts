import { DurableObject } from "cloudflare:workers";
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/space/migrations.js";
import type { PresentedCredential } from "../auth/credential";
import { POLICIES } from "../auth/policy";
import { type Clock, systemClock } from "../clock";
import type { BatchAnswer } from "../contract/batch";
import { DEFAULT_CLOCK_TOLERANCE_S } from "../contract/config";
import type { Env } from "../env";
import { type BodyInput, parseJsonBody } from "../http/body";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { admit } from "./access";
import { type Intake, ingestBatch, openIntake } from "./intake";
import { applyReplicaSnapshot, loadReplica, type Replica, type ReplicaSnapshot } from "./replica";

/** What `GET /v1/whoami` tells a caller about its own credential. */
export interface CallerView {
  space: string;
  principal:
    | { kind: "key"; key_id: string; source_id: string; scopes: string[]; mode: string }
    | { kind: "person"; person_id: string; roles: string[] };
}

/**
 * One space: every write of the space goes through here, one request at a time. The public
 * methods are the RPC surface, and nothing else is public: each admits the caller against the
 * key replica before it looks at the body, then runs one domain function.
 */
export class SpaceObject extends DurableObject<Env> {
  /** Tests move time through this (DESIGN §4). */
  clock: Clock = systemClock;
  #db: DrizzleSqliteDODatabase<Record<string, unknown>>;
  #intake: Intake;
  #replica: Replica = { space: null, keys: new Map(), sources: new Map(), config: { version: 0, values: {} } };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = drizzle(ctx.storage);
    this.#intake = openIntake(this.#db, ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(this.#db, migrations);
      this.#replica = loadReplica(this.#db);
    });
  }

  /** Called by the ControlObject before it answers a change of keys, sources or configuration. */
  async replicate(snapshot: ReplicaSnapshot): Promise<void> {
    this.#db.transaction(() => applyReplicaSnapshot(this.#db, snapshot));
    this.#replica = loadReplica(this.#db);
  }

  async ingestBatch(credential: PresentedCredential, body: BodyInput): Promise<Outcome<BatchAnswer>> {
    return outcomeOf(() => {
      const now = this.clock.now();
      const caller = admit(this.#replica, credential, POLICIES.batch, now);
      if (caller.principal.kind !== "key" || !caller.source) throw new Problem("forbidden", "this route needs a source key");
      const tolerance = this.#replica.config.values.clock_tolerance_s ?? DEFAULT_CLOCK_TOLERANCE_S;
      const intakeCaller = {
        keyId: caller.principal.keyId,
        sourceId: caller.principal.sourceId,
        scopes: caller.principal.scopes,
        test: caller.principal.mode === "test",
        source: caller.source,
      };
      return ingestBatch(this.#intake, intakeCaller, parseJsonBody(body), now, tolerance);
    });
  }

  async whoami(credential: PresentedCredential): Promise<Outcome<CallerView>> {
    return outcomeOf(() => {
      const { principal } = admit(this.#replica, credential, POLICIES.whoami, this.clock.now());
      const space = this.#replica.space?.name ?? "";
      if (principal.kind === "key") {
        const { keyId, sourceId, scopes, mode } = principal;
        return { space, principal: { kind: "key", key_id: keyId, source_id: sourceId, scopes: [...scopes], mode } };
      }
      return { space, principal: { kind: "person", person_id: principal.personId, roles: [...principal.roles] } };
    });
  }
}
