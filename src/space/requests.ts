import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { type AuditedRequest, actorOf, recordOutcome } from "../audit/log";
import type { PresentedCredential } from "../auth/credential";
import { POLICIES, type RoutePolicy } from "../auth/policy";
import { signingKey } from "../auth/signing-key";
import type { AuditTarget } from "../contract/audit";
import type { Env } from "../env";
import { type CursorList, CursorSeal } from "../http/cursor";
import { type Outcome, outcomeOf } from "../http/problem";
import { checkedIdempotencyKey, type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { idempotencyStore } from "../idempotency-store";
import { admit, type Caller, callerScope } from "./access";
import type { Intake } from "./intake";
import type { Limits, RequestKind } from "./limits/limits";
import type { HotTier } from "./memory/hot-tier";
import type { Replica } from "./replica";
import type { RequestPacing } from "./request-pacing";
import { idempotencyRecords } from "./schema";
import type { TermCache } from "./search/query";
import { setTimerOnce } from "./timers";

/**
 * The requests that do not make batches and the alarm's rounds give way (`RequestPacing`):
 * batches (a stream of them would cut every batch in chunks) and an import's status. A client
 * drawing a progress bar polls it every second, and each poll cut the import's chunks in five,
 * each a commit: about a third of its rate (docs/api/imports.md).
 */
const UNPACED: ReadonlySet<RoutePolicy> = new Set([POLICIES.batch, POLICIES.importRead]);

export type SpaceDatabase = DrizzleSqliteDODatabase<Record<string, unknown>>;

/** What the object holds that the requests of every capability work on. */
export interface SpaceParts {
  sql: SqlStorage;
  db: SpaceDatabase;
  env: Env;
  intake: Intake;
  limits: Limits;
  /** The events of open sessions, per profile, in memory (DESIGN 3.8). */
  hot: HotTier;
  /** Estimated document frequencies of frequent search terms (rebuilt as needed). */
  searchTerms: TermCache;
  requestPacing: RequestPacing;
  /** The key replica: replaced whole when the ControlObject replicates. */
  replica: () => Replica;
  /** The object's clock, which tests move (DESIGN §4). */
  now: () => number;
  /** What work sized by its time reads (`performance.now()`); tests stop it (`SpaceObject.stopwatch`). */
  stopwatch: () => number;
  /** Sets the alarm to the earliest timer when that changed. */
  armAlarm: () => Promise<void>;
}

/**
 * What every request of a space goes through, whatever its capability: admission against the
 * replica and the limits, an `Idempotency-Key`, the audit log, signed cursors. The request
 * classes of each capability (`identity/requests.ts`, `memory/requests.ts`, ...) run their
 * domain functions through it.
 */
export class SpaceRequests implements SpaceParts {
  readonly sql: SqlStorage;
  readonly db: SpaceDatabase;
  readonly env: Env;
  readonly intake: Intake;
  readonly limits: Limits;
  readonly hot: HotTier;
  readonly searchTerms: TermCache;
  readonly requestPacing: RequestPacing;
  readonly replica: () => Replica;
  readonly now: () => number;
  readonly stopwatch: () => number;
  readonly armAlarm: () => Promise<void>;
  #writes: IdempotentWrites;
  #cursors: CursorSeal;

  constructor(parts: SpaceParts) {
    ({
      sql: this.sql,
      db: this.db,
      env: this.env,
      intake: this.intake,
      limits: this.limits,
      hot: this.hot,
      searchTerms: this.searchTerms,
      requestPacing: this.requestPacing,
      replica: this.replica,
      now: this.now,
      stopwatch: this.stopwatch,
      armAlarm: this.armAlarm,
    } = parts);
    this.#writes = new IdempotentWrites(
      idempotencyStore(this.db, idempotencyRecords),
      () => this.now(),
      (expiresAt) => setTimerOnce(this.sql, { kind: "idempotency.purge", key: "", dueAt: expiresAt, payload: null }),
    );
    this.#cursors = new CursorSeal(() => signingKey(this.sql, "cursor"));
  }

  /** The space's name, as its R2 keys carry it. */
  spaceName(): string {
    return this.replica().space?.name ?? "";
  }

  /**
   * The admission every method goes through: the credential against the replica, then the
   * route's policy, then the limits (`kind`: writes are limited before reads); afterwards the
   * alarm follows any timer the work set. Any request but a batch or an import's status makes
   * batches and the alarm's rounds give way to requests for a while (`RequestPacing`, `UNPACED`).
   */
  async admitted<T>(
    credential: PresentedCredential,
    policy: RoutePolicy,
    work: (caller: Caller, now: number) => T | Promise<T>,
    kind: RequestKind = "read",
  ): Promise<Outcome<T>> {
    const paced = !UNPACED.has(policy);
    if (paced) this.requestPacing.otherRequest(performance.now());
    const outcome = await outcomeOf(() => {
      const now = this.now();
      const replica = this.replica();
      const caller = admit(replica, credential, policy, now);
      this.limits.admit(replica, callerScope(caller), kind, now);
      return work(caller, now);
    });
    if (paced) this.requestPacing.otherRequest(performance.now());
    await this.armAlarm();
    return outcome;
  }

  /**
   * A write with an `Idempotency-Key`: admitted first, then the key and the body checked (a
   * malformed request is `422` whatever the key did before), then the work in one transaction,
   * its answer kept 24 hours for this caller (a retry gets it again; another request is `409`;
   * another caller with the same key makes a fresh request).
   */
  idempotent<T, I = undefined>(
    credential: PresentedCredential,
    policy: RoutePolicy,
    idempotency: IdempotencyRequest,
    work: (caller: Caller, now: number, input: I) => T,
    parse: () => I = () => undefined as I,
  ): Promise<Outcome<T>> {
    return this.admitted(
      credential,
      policy,
      (caller, now) => {
        const request = { ...idempotency, scope: callerScope(caller), key: checkedIdempotencyKey(idempotency.key) };
        const input = parse();
        return this.#writes.runInTransaction(
          request,
          (inside) => this.db.transaction(inside),
          () => work(caller, now, input),
        );
      },
      "write",
    );
  }

  /** What the audit log records of a governance request (docs/api/privacy.md#audit). */
  audit<T>(
    credential: PresentedCredential,
    action: AuditedRequest<T>["action"],
    requestId: string | null,
    targets: AuditedRequest<T>["targets"] = [],
  ): AuditedRequest<T> {
    return { actor: actorOf(credential), action, requestId, targets };
  }

  /** A governance request: answered, then appended to the space's audit log with its outcome. */
  async audited<T>(request: AuditedRequest<T>, run: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const outcome = await run();
    recordOutcome(this.sql, request, outcome, this.now());
    return outcome;
  }

  /**
   * A read of a customer's data: audited when a person makes it, with the profiles it answered
   * (ids only; a merged-away id `asked` for answers its survivor), or, refused, the id it `asked`
   * for; a key's is an agent's at work and is not (docs/api/privacy.md "Audit").
   */
  async readByPerson<T>(
    credential: PresentedCredential,
    { asked, ...audit }: Pick<AuditedRequest<T>, "action" | "requestId" | "targetsOf"> & { asked?: AuditTarget },
    read: () => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    if (credential.kind === "key") return read();
    const outcome = await read();
    const targets = outcome.ok || !asked ? [] : [asked];
    recordOutcome(this.sql, { ...audit, actor: actorOf(credential), targets }, outcome, this.now());
    return outcome;
  }

  /**
   * A page of a list whose cursors this space signs (`CursorSeal`): the cursor opened before the
   * read, so one the space never issued is `422` before anything reads it; the next one sealed.
   */
  async paged<P extends { next_cursor: string | null }>(
    list: CursorList,
    cursor: string | undefined,
    place: string,
    read: (cursor: string | undefined) => P,
  ): Promise<P> {
    const page = read(await this.#cursors.open(list, cursor, place));
    return { ...page, next_cursor: await this.#cursors.seal(list, page.next_cursor) };
  }
}
