import type { AuditedRequest } from "../audit/log";
import { recordOutcome } from "../audit/log";
import type { PersonActor } from "../auth/person-token";
import { signingKey } from "../auth/signing-key";
import { importPepper } from "../auth/source-key";
import type { Env } from "../env";
import { type CursorList, CursorSeal } from "../http/cursor";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { idempotencyStore } from "../idempotency-store";
import { isDevelopment, mergeSecrets } from "../secrets";
import { spaceObject } from "../space/address";
import type { ControlDb } from "./db";
import { developmentSecrets } from "./generated-secrets";
import type { KeyIssuer } from "./keys";
import type { PersonRow } from "./people";
import { spaceSnapshot } from "./replication";
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

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * What every request of the control plane goes through: the person's token checked against the
 * cuts (`as`), an `Idempotency-Key` kept per person, the tenant's audit log, signed cursors, and
 * the push of a changed space's records to its object before the answer. The request classes
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

  constructor(parts: {
    db: ControlDb;
    sql: SqlStorage;
    env: Env;
    now: () => number;
    /** Told when a kept answer is due to go: the object's alarm deletes it then. */
    answerKept: (expiresAt: number) => Promise<void>;
  }) {
    this.db = parts.db;
    this.sql = parts.sql;
    this.env = parts.env;
    this.now = parts.now;
    this.#writes = new IdempotentWrites(idempotencyStore(this.db, idempotencyRecords), () => this.now(), parts.answerKept);
    this.#cursors = new CursorSeal(() => signingKey(this.sql, "cursor"));
  }

  /** A person's request: refused with `401` when the token was cut, else the work, given the person as stored. */
  as<T>(actor: PersonActor, work: (person: PersonRow) => T | Promise<T>): Promise<Outcome<T>> {
    return outcomeOf(() => work(requireLiveToken(this.db, actor)));
  }

  /**
   * Key writes carry an Idempotency-Key, kept per person: another person sending the same key
   * makes a fresh request and never receives the first one's answer (a new key's secret).
   */
  idempotent<T>(actor: PersonActor, request: IdempotencyRequest, work: () => Promise<T>): Promise<Outcome<T>> {
    return this.as(actor, () => this.#writes.run({ ...request, scope: `person:${actor.personId}` }, work));
  }

  /** A governance request of a person: answered, then appended to the tenant's audit log with its outcome. */
  async recorded<T>(
    actor: PersonActor,
    request: Omit<AuditedRequest<T>, "actor">,
    run: () => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    const outcome = await run();
    const audited = { ...request, actor: { kind: "person", id: actor.personId } } as const;
    recordOutcome(this.sql, audited, outcome, this.now(), actor.tenantId);
    return outcome;
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
   * Pushes the space's records to its object; the caller answers only after this returns.
   * Pushes of one space run one after another, each taking its snapshot when its turn comes, so
   * an older snapshot can never land after a newer one (and undo a revocation).
   */
  async push(space: SpaceRow): Promise<void> {
    const previous = this.#pushes.get(space.spaceId) ?? Promise.resolve();
    const push = previous
      .catch(() => undefined)
      .then(() => spaceObject(this.env, space.name).replicate(spaceSnapshot(this.db, space, this.now())));
    this.#pushes.set(space.spaceId, push);
    try {
      await push;
    } finally {
      if (this.#pushes.get(space.spaceId) === push) this.#pushes.delete(space.spaceId);
    }
  }

  /** Every space of the tenant (after a cut of person tokens, or a change of the tenant's quotas). */
  async pushTenant(tenantId: string): Promise<void> {
    await Promise.all(tenantSpaces(this.db, tenantId).map((space) => this.push(space)));
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
