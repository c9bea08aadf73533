import type { AuditedRequest } from "../audit/log";
import { recordOutcome } from "../audit/log";
import type { PersonActor } from "../auth/person-token";
import { signingKey } from "../auth/signing-key";
import { importPepper } from "../auth/source-key";
import type { Env } from "../env";
import { type CursorList, CursorSeal } from "../http/cursor";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { idempotencyStore } from "../idempotency-store";
import { isDevelopment, mergeSecrets } from "../secrets";
import { spaceObject } from "../space/address";
import type { ControlDb } from "./db";
import { developmentSecrets } from "./generated-secrets";
import type { KeyIssuer } from "./keys";
import type { PersonRow } from "./people";
import { owedSpaces, owedVersion, owePushes, settlePush, spaceSnapshot } from "./replication";
import { idempotencyRecords } from "./schema";
import { type SpaceRow, tenantSpaces } from "./spaces";
import { requireLiveToken } from "./token-cuts";

export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
}

/** What the edge refuses a person for before a control route's work: a role, or the request's input. */
export interface EdgeRefusal {
  code: "forbidden" | "invalid_input";
  detail: string | null;
}

/** How long the alarm waits to push again to a space that did not take its records. */
export const PUSH_RETRY_S = 5;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * What every request of the control plane goes through: the person's token checked against the
 * cuts (`as`), an `Idempotency-Key` kept per person, the tenant's audit log, signed cursors, and
 * the push of a changed space's records to its object before the answer (owed until one lands:
 * `owe`, `push`). The request classes
 * (`people-requests.ts`, `project-requests.ts`, `settings-requests.ts`) run their domain
 * functions through it.
 */
export class ControlRequests {
  readonly db: ControlDb;
  readonly sql: SqlStorage;
  readonly env: Env;
  readonly now: () => number;
  #writes: IdempotentWrites;
  #cursors: CursorSeal;
  #issuer: Promise<KeyIssuer> | undefined;
  #pushes = new Map<string, Promise<void>>();
  #wakeBy: (at: number) => Promise<void>;

  constructor(parts: {
    db: ControlDb;
    sql: SqlStorage;
    env: Env;
    now: () => number;
    /**
     * Sets the object's alarm for `at` unless it is set sooner: the alarm deletes kept answers
     * when they are due and pushes again what a space did not take.
     */
    wakeBy: (at: number) => Promise<void>;
  }) {
    this.db = parts.db;
    this.sql = parts.sql;
    this.env = parts.env;
    this.now = parts.now;
    this.#wakeBy = parts.wakeBy;
    this.#writes = new IdempotentWrites(idempotencyStore(this.db, idempotencyRecords), () => this.now());
    this.#cursors = new CursorSeal(() => signingKey(this.sql, "cursor"));
  }

  /** A person's request: refused with `401` when the token was cut, else the work, given the person as stored. */
  as<T>(actor: PersonActor, work: (person: PersonRow) => T | Promise<T>): Promise<Outcome<T>> {
    return outcomeOf(() => work(requireLiveToken(this.db, actor)));
  }

  /**
   * A key write with its Idempotency-Key, inside `as`: `write` runs in one transaction with its
   * kept answer, so a retry after anything that fails later (a push, a restart) gets the same
   * answer and never makes a second write. Answers are kept per person: another person sending
   * the same key makes a fresh request and never receives the first one's answer (a new key's
   * secret). The alarm that deletes the answer is set first, so nothing comes between the write
   * and its audit row.
   */
  async idempotent<T>(actor: PersonActor, request: IdempotencyRequest, write: () => T): Promise<T> {
    await this.#wakeBy(this.now() + IDEMPOTENCY_RETENTION_MS);
    const scoped = { ...request, scope: `person:${actor.personId}` };
    return this.#writes.runInTransaction(scoped, (inside) => this.db.transaction(inside), write);
  }

  /**
   * A governance request of a person: answered, then appended to the tenant's audit log with its
   * outcome. A change spaces must receive is recorded as made, then `deliver` pushes it: a push
   * that fails does not undo the change (it stays owed to the spaces), so the log keeps it.
   */
  async recorded<T>(
    actor: PersonActor,
    request: Omit<AuditedRequest<T>, "actor">,
    run: () => Promise<Outcome<T>>,
    deliver?: (value: T) => Promise<void>,
  ): Promise<Outcome<T>> {
    const outcome = await run();
    const audited = { ...request, actor: { kind: "person", id: actor.personId } } as const;
    recordOutcome(this.sql, audited, outcome, this.now(), actor.tenantId);
    if (!outcome.ok || !deliver) return outcome;
    return outcomeOf(async () => {
      await deliver(outcome.value);
      return outcome.value;
    });
  }

  /**
   * A request the edge refused before it reached this object (a role the person lacks, input it
   * could not take), recorded under the route's action with the refusal's code, as `recorded`
   * records one refused here. The token is checked first: a cut one is `401` and names nobody.
   */
  refused(actor: PersonActor, request: Omit<AuditedRequest<never>, "actor">, refusal: EdgeRefusal): Promise<Outcome<never>> {
    return this.recorded(actor, request, () =>
      this.as(actor, () => {
        throw new Problem(refusal.code, refusal.detail);
      }),
    );
  }

  /**
   * A page of a list whose cursors this object signs: the cursor opened before the read (one it
   * never issued is `422`), the next one sealed.
   */
  async paged<P extends { next_cursor: string | null }>(
    list: CursorList,
    cursor: string | undefined,
    read: (cursor: string | undefined) => P,
  ): Promise<P> {
    const page = read(await this.#cursors.open(list, cursor, "query.cursor"));
    return { ...page, next_cursor: await this.#cursors.seal(list, page.next_cursor) };
  }

  /**
   * Marks, in the transaction of a change, the spaces that must receive it: they stay owed a
   * push until one lands, whatever fails or restarts in between.
   */
  owe(spaces: readonly SpaceRow[]): void {
    owePushes(this.db, spaces);
  }

  /** Every space of the tenant (a cut of person tokens, a change of the tenant's quotas). */
  oweTenant(tenantId: string): void {
    this.owe(tenantSpaces(this.db, tenantId));
  }

  /**
   * Pushes the spaces' records to their objects; the caller answers only after this returns. The
   * alarm is set first, to push again should a push not land (or this object stop meanwhile); a
   * push that fails is `503 unavailable`, the change made and owed to the space, which the alarm
   * pushes again every few seconds until it lands.
   */
  async push(spaces: readonly SpaceRow[]): Promise<void> {
    await this.#wakeBy(this.now() + PUSH_RETRY_S * 1000);
    const pushed = await Promise.allSettled(spaces.map((space) => this.#pushOne(space)));
    if (pushed.some((result) => result.status === "rejected")) {
      throw new Problem("unavailable", "the change is made; a space has not received it yet and is sent it again shortly", {
        "Retry-After": String(PUSH_RETRY_S),
      });
    }
  }

  pushTenant(tenantId: string): Promise<void> {
    return this.push(tenantSpaces(this.db, tenantId));
  }

  /** The alarm's turn: every space still owed a push; answers whether one did not land. */
  async pushOwed(): Promise<boolean> {
    const pushed = await Promise.allSettled(owedSpaces(this.db).map((space) => this.#pushOne(space)));
    return pushed.some((result) => result.status === "rejected");
  }

  /**
   * Pushes of one space run one after another, each taking its snapshot when its turn comes, so
   * an older snapshot can never land after a newer one (and undo a revocation). A push that lands
   * settles what the space was owed when its snapshot was taken.
   */
  async #pushOne(space: SpaceRow): Promise<void> {
    const previous = this.#pushes.get(space.spaceId) ?? Promise.resolve();
    const push = previous
      .catch(() => undefined)
      .then(async () => {
        const owed = owedVersion(this.db, space.spaceId);
        await spaceObject(this.env, space.name).replicate(spaceSnapshot(this.db, space, this.now()));
        if (owed !== undefined) settlePush(this.db, space.spaceId, owed);
      });
    this.#pushes.set(space.spaceId, push);
    try {
      await push;
    } catch (error) {
      console.error(JSON.stringify({ message: "push to a space failed", space_id: space.spaceId, error: (error as Error).name }));
      throw error;
    } finally {
      if (this.#pushes.get(space.spaceId) === push) this.#pushes.delete(space.spaceId);
    }
  }

  keyIssuer(): Promise<KeyIssuer> {
    this.#issuer ??= (async () => {
      const secrets = mergeSecrets(this.env, isDevelopment(this.env) ? developmentSecrets(this.db) : {});
      if (!secrets.KEY_PEPPER) throw new Problem("unavailable", "the service is not configured");
      return { prefix: this.env.KEY_PREFIX, pepper: await importPepper(secrets.KEY_PEPPER) };
    })();
    return this.#issuer;
  }
}
