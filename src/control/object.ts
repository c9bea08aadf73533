import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/control/migrations.js";
import { type AuditedRequest, auditPage, recordOutcome } from "../audit/log";
import { hashPassword } from "../auth/password";
import type { PersonActor, PersonPrincipal } from "../auth/person-token";
import { signingKey } from "../auth/signing-key";
import { importPepper } from "../auth/source-key";
import { type Clock, systemClock } from "../clock";
import type { ControlAuditPage, ControlAuditQuery } from "../contract/audit";
import type { SpaceConfigValues } from "../contract/config";
import type {
  Key,
  KeyInput,
  Person,
  PersonInput,
  PersonUpdate,
  Project,
  Source,
  SourceInput,
  TenantCreated,
  TenantInput,
} from "../contract/control";
import type { Quota, Usage } from "../contract/quotas";
import type { Env } from "../env";
import { type CursorList, CursorSeal, decodeCursor } from "../http/cursor";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { isDevelopment, mergeSecrets, type Secrets } from "../secrets";
import { spaceObject } from "../space/address";
import { type ConfigView, getConfig, putConfig } from "./config";
import type { ControlDb } from "./db";
import { developmentSecrets } from "./generated-secrets";
import { controlIdempotencyStore } from "./idempotency";
import { createKey, type KeyIssuer, requireKey, revokeKey, rotateKey } from "./keys";
import { insertPerson, listPeople, login, type PersonRow, personByEmail, personView, removePerson, updatePerson } from "./people";
import { createProject, listProjects, requireProject } from "./projects";
import { listQuotas, putQuota, tenantQuotas } from "./quotas";
import { spaceSnapshot } from "./replication";
import { insertSource, listSources, requireSource, sourceView } from "./sources";
import { insertSpace, listSpaces, requireSpace, type SpaceRow, type SpaceView, spaceView, tenantSpaces } from "./spaces";
import { createTenant } from "./tenants";
import { cutToken, requireLiveToken } from "./token-cuts";
import { tenantUsage } from "./usage";

export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * The control plane: tenants, people, projects, spaces, sources, keys, configuration and quotas. One
 * object for the deployment. The edge has verified the person token's signature and the route's
 * roles; every method here first checks that the token was not cut (`#as`), and scopes what it
 * touches to the actor's tenant (another tenant's record is `404`). A change a space must know
 * about is pushed to the space's object before the method returns.
 */
export class ControlObject extends DurableObject<Env> {
  /** Tests move time through this (DESIGN §4). */
  clock: Clock = systemClock;
  #db: ControlDb;
  #issuer: Promise<KeyIssuer> | undefined;
  #writes: IdempotentWrites;
  #pushes = new Map<string, Promise<void>>();
  #cursors = new CursorSeal(() => signingKey(this.ctx.storage.sql, "cursor"));

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = drizzle(ctx.storage);
    this.#writes = new IdempotentWrites(controlIdempotencyStore(this.#db), () => this.clock.now());
    void ctx.blockConcurrencyWhile(() => migrate(this.#db, migrations));
  }

  /** Secrets generated for development; production never generates any. */
  async developmentSecrets(): Promise<Secrets> {
    if (!isDevelopment(this.env)) throw new Error("secrets are generated only in development");
    return developmentSecrets(this.#db);
  }

  async createTenant(input: TenantInput): Promise<Outcome<TenantCreated>> {
    return outcomeOf(async () => {
      const hash = await hashPassword(input.admin.password);
      return createTenant(this.#db, input, hash, this.clock.now());
    });
  }

  /**
   * A login is audited under the person whose e-mail it names (`auth.login`, or
   * `auth.login_refused` with the refusal's code); one naming no person is not: it has no tenant,
   * and the e-mail is personal data.
   */
  async login(
    email: string,
    password: string,
    requestId: string | null = null,
  ): Promise<Outcome<{ person: PersonPrincipal; generation: number }>> {
    const outcome = await outcomeOf(() => login(this.#db, email, password, this.clock.now()));
    const person = outcome.ok ? outcome.value.person : personByEmail(this.#db, email);
    if (person) {
      const action = outcome.ok ? "auth.login" : "auth.login_refused";
      const actor = { kind: "person", id: person.personId } as const;
      const request = { actor, action, requestId, targets: [{ type: "person", id: person.personId }], named: true } as const;
      recordOutcome(this.ctx.storage.sql, request, outcome, this.clock.now(), person.tenantId);
    }
    return outcome;
  }

  /** Ends the token the request came with, in every space of the tenant, before it answers. */
  async logout(actor: PersonActor, requestId: string | null = null): Promise<Outcome<null>> {
    return this.#recorded(actor, { action: "auth.logout", requestId, targets: [{ type: "person", id: actor.personId }] }, () =>
      this.#as(actor, async () => {
        cutToken(this.#db, actor);
        await this.#pushTenant(actor.tenantId);
        return null;
      }),
    );
  }

  async me(actor: PersonActor): Promise<Outcome<Person>> {
    return this.#as(actor, (person) => personView(person));
  }

  async createPerson(actor: PersonActor, input: PersonInput, requestId: string | null = null): Promise<Outcome<Person>> {
    const audit = {
      action: "person.create",
      requestId,
      targetsOf: (person: Person) => [personTarget(person.person_id)],
    } as const;
    return this.#recorded(actor, audit, () =>
      this.#as(actor, async () => {
        const hash = await hashPassword(input.password);
        return personView(insertPerson(this.#db, actor.tenantId, input, hash, this.clock.now()));
      }),
    );
  }

  /** A change of roles or bindings cuts the person's tokens in every space of the tenant before it answers. */
  async updatePerson(
    actor: PersonActor,
    personId: string,
    input: PersonUpdate,
    requestId: string | null = null,
  ): Promise<Outcome<Person>> {
    return this.#recorded(actor, { action: "person.update", requestId, targets: [personTarget(personId)] }, () =>
      this.#as(actor, async () => {
        const person = this.#db.transaction(() => updatePerson(this.#db, actor.tenantId, personId, input, this.clock.now()));
        await this.#pushTenant(actor.tenantId);
        return personView(person);
      }),
    );
  }

  async removePerson(actor: PersonActor, personId: string, requestId: string | null = null): Promise<Outcome<null>> {
    return this.#recorded(actor, { action: "person.remove", requestId, targets: [personTarget(personId)] }, () =>
      this.#as(actor, async () => {
        this.#db.transaction(() => removePerson(this.#db, actor.tenantId, personId, this.clock.now()));
        await this.#pushTenant(actor.tenantId);
        return null;
      }),
    );
  }

  async listPeople(actor: PersonActor, page: PageRequest): Promise<Outcome<Page<Person>>> {
    return this.#as(actor, () => this.#paged("people", page, (after) => listPeople(this.#db, actor.tenantId, after, page.limit)));
  }

  async createProject(actor: PersonActor, name: string, requestId: string | null = null): Promise<Outcome<Project>> {
    const audit = {
      action: "project.create",
      requestId,
      targetsOf: (project: Project) => [{ type: "project", id: project.project_id }] as const,
    } as const;
    return this.#recorded(actor, audit, () =>
      this.#as(actor, () => createProject(this.#db, actor.tenantId, name, this.clock.now())),
    );
  }

  async listProjects(actor: PersonActor, page: PageRequest): Promise<Outcome<Page<Project>>> {
    return this.#as(actor, () =>
      this.#paged("projects", page, (after) => listProjects(this.#db, actor.tenantId, after, page.limit)),
    );
  }

  async createSpace(
    actor: PersonActor,
    projectId: string,
    name: string,
    region: string,
    requestId: string | null = null,
  ): Promise<Outcome<SpaceView>> {
    const audit = {
      action: "space.create",
      requestId,
      targets: [{ type: "project", id: projectId }],
      targetsOf: (space: SpaceView) => [{ type: "space", id: space.space_id }] as const,
    } as const;
    return this.#recorded(actor, audit, () =>
      this.#as(actor, async () => {
        const project = requireProject(this.#db, actor.tenantId, projectId);
        const space = insertSpace(this.#db, project, name, region, this.clock.now());
        // A new space changes every space's share of the tenant's quotas.
        if (tenantQuotas(this.#db, actor.tenantId).length > 0) await this.#pushTenant(actor.tenantId);
        else await this.#push(space);
        return spaceView(space);
      }),
    );
  }

  async listSpaces(actor: PersonActor, projectId: string, page: PageRequest): Promise<Outcome<Page<SpaceView>>> {
    return this.#as(actor, () => {
      requireProject(this.#db, actor.tenantId, projectId);
      return this.#paged("spaces", page, (after) => listSpaces(this.#db, projectId, after, page.limit));
    });
  }

  async createSource(
    actor: PersonActor,
    spaceId: string,
    input: SourceInput,
    requestId: string | null = null,
  ): Promise<Outcome<Source>> {
    const audit = {
      action: "source.create",
      requestId,
      targets: [{ type: "space", id: spaceId }],
      targetsOf: (source: Source) => [{ type: "source", id: source.source_id }] as const,
    } as const;
    return this.#recorded(actor, audit, () =>
      this.#as(actor, async () => {
        const space = requireSpace(this.#db, actor.tenantId, spaceId);
        const source = insertSource(this.#db, space, input, this.clock.now());
        await this.#push(space);
        return sourceView(source);
      }),
    );
  }

  async listSources(actor: PersonActor, spaceId: string, page: PageRequest): Promise<Outcome<Page<Source>>> {
    return this.#as(actor, () => {
      requireSpace(this.#db, actor.tenantId, spaceId);
      return this.#paged("sources", page, (after) => listSources(this.#db, spaceId, after, page.limit));
    });
  }

  async createKey(
    actor: PersonActor,
    sourceId: string,
    input: KeyInput,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Key>> {
    const audit = {
      action: "key.create",
      requestId,
      targets: [{ type: "source", id: sourceId }],
      targetsOf: keyTargets,
    } as const;
    return this.#recorded(actor, audit, () => this.#createKey(actor, sourceId, input, idempotency));
  }

  #createKey(actor: PersonActor, sourceId: string, input: KeyInput, idempotency: IdempotencyRequest): Promise<Outcome<Key>> {
    return this.#idempotent(actor, idempotency, async () => {
      const source = requireSource(this.#db, actor.tenantId, sourceId);
      const space = requireSpace(this.#db, actor.tenantId, source.spaceId);
      const key = await createKey(this.#db, await this.#keyIssuer(), source, space, input, this.clock.now());
      await this.#push(space);
      return key;
    });
  }

  async rotateKey(
    actor: PersonActor,
    keyId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Key>> {
    const audit = { action: "key.rotate", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return this.#recorded(actor, audit, () =>
      this.#idempotent(actor, idempotency, async () => {
        const row = requireKey(this.#db, actor.tenantId, keyId);
        const space = requireSpace(this.#db, actor.tenantId, row.spaceId);
        const key = await rotateKey(this.#db, await this.#keyIssuer(), row, space, this.clock.now());
        await this.#push(space);
        return key;
      }),
    );
  }

  async revokeKey(
    actor: PersonActor,
    keyId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Key>> {
    const audit = { action: "key.revoke", requestId, targets: [{ type: "key", id: keyId }], targetsOf: keyTargets } as const;
    return this.#recorded(actor, audit, () =>
      this.#idempotent(actor, idempotency, async () => {
        const row = requireKey(this.#db, actor.tenantId, keyId);
        const space = requireSpace(this.#db, actor.tenantId, row.spaceId);
        const key = revokeKey(this.#db, row, this.clock.now());
        await this.#push(space);
        return key;
      }),
    );
  }

  async getConfig(actor: PersonActor, spaceId: string, version?: number): Promise<Outcome<ConfigView>> {
    return this.#as(actor, () => {
      requireSpace(this.#db, actor.tenantId, spaceId);
      return getConfig(this.#db, spaceId, version);
    });
  }

  async putConfig(
    actor: PersonActor,
    spaceId: string,
    values: SpaceConfigValues,
    requestId: string | null = null,
  ): Promise<Outcome<ConfigView>> {
    return this.#recorded(actor, { action: "config.update", requestId, targets: [{ type: "space", id: spaceId }] }, () =>
      this.#as(actor, async () => {
        const space = requireSpace(this.#db, actor.tenantId, spaceId);
        const config = putConfig(this.#db, spaceId, values, actor.personId, this.clock.now());
        await this.#push(space);
        return config;
      }),
    );
  }

  /** The control API's `GET /v1/audit`: the tenant's control-plane log, oldest first; the read itself is a row of it. */
  async readAudit(
    actor: PersonActor,
    query: ControlAuditQuery,
    requestId: string | null = null,
  ): Promise<Outcome<ControlAuditPage>> {
    return this.#recorded(actor, { action: "audit.read", requestId }, () =>
      this.#as(actor, async () => {
        const cursor = await this.#cursors.open("audit", query.cursor, "query.cursor");
        // This log holds control-plane actions only.
        const page = auditPage(this.ctx.storage.sql, { ...query, cursor }, actor.tenantId) as ControlAuditPage;
        return { ...page, next_cursor: await this.#cursors.seal("audit", page.next_cursor) };
      }),
    );
  }

  /** Platform operation: sets a tenant's quota, in force in every space of the tenant before it answers. */
  async putQuota(quota: Quota): Promise<Outcome<Quota>> {
    return outcomeOf(async () => {
      const answer = putQuota(this.#db, quota, this.clock.now());
      await this.#pushTenant(quota.tenant_id);
      return answer;
    });
  }

  async listQuotas(tenantId: string): Promise<Outcome<{ data: Quota[] }>> {
    return outcomeOf(() => ({ data: listQuotas(this.#db, tenantId) }));
  }

  /** The actor's tenant's usage, asked of each of its spaces now. */
  async usage(actor: PersonActor): Promise<Outcome<Usage>> {
    return this.#as(actor, async () => {
      const spaces = await Promise.all(
        tenantSpaces(this.#db, actor.tenantId).map(async (space) => ({
          spaceId: space.spaceId,
          usage: await spaceObject(this.env, space.name).usage(),
        })),
      );
      return tenantUsage(actor.tenantId, tenantQuotas(this.#db, actor.tenantId), spaces, this.clock.now());
    });
  }

  /**
   * Pushes the space's records to its object; the caller answers only after this returns.
   * Pushes of one space run one after another, each taking its snapshot when its turn comes, so
   * an older snapshot can never land after a newer one (and undo a revocation).
   */
  async #push(space: SpaceRow): Promise<void> {
    const previous = this.#pushes.get(space.spaceId) ?? Promise.resolve();
    const push = previous
      .catch(() => undefined)
      .then(() => spaceObject(this.env, space.name).replicate(spaceSnapshot(this.#db, space, this.clock.now())));
    this.#pushes.set(space.spaceId, push);
    try {
      await push;
    } finally {
      if (this.#pushes.get(space.spaceId) === push) this.#pushes.delete(space.spaceId);
    }
  }

  /** A page of a list: only a cursor this object signed is read (else `422`), and the next one is signed. */
  async #paged<T>(list: CursorList, page: PageRequest, read: (after: string | null) => Page<T>): Promise<Page<T>> {
    const after = decodeCursor(await this.#cursors.open(list, page.cursor, "query.cursor"));
    const answer = read(after);
    return { ...answer, next_cursor: await this.#cursors.seal(list, answer.next_cursor) };
  }

  /** A governance request of a person: answered, then appended to the tenant's audit log with its outcome. */
  async #recorded<T>(
    actor: PersonActor,
    request: Omit<AuditedRequest<T>, "actor">,
    run: () => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    const outcome = await run();
    const audited = { ...request, actor: { kind: "person", id: actor.personId } } as const;
    recordOutcome(this.ctx.storage.sql, audited, outcome, this.clock.now(), actor.tenantId);
    return outcome;
  }

  /** Every space of the tenant, after a cut of person tokens. */
  async #pushTenant(tenantId: string): Promise<void> {
    await Promise.all(tenantSpaces(this.#db, tenantId).map((space) => this.#push(space)));
  }

  /** A person's request: refused with `401` when the token was cut, else the work, given the person as stored. */
  #as<T>(actor: PersonActor, work: (person: PersonRow) => T | Promise<T>): Promise<Outcome<T>> {
    return outcomeOf(() => work(requireLiveToken(this.#db, actor)));
  }

  /**
   * Key writes carry an Idempotency-Key, kept per person: another person sending the same key
   * makes a fresh request and never receives the first one's answer (a new key's secret).
   */
  #idempotent<T>(actor: PersonActor, request: IdempotencyRequest, work: () => Promise<T>): Promise<Outcome<T>> {
    return this.#as(actor, () => this.#writes.run({ ...request, scope: `person:${actor.personId}` }, work));
  }

  #keyIssuer(): Promise<KeyIssuer> {
    this.#issuer ??= (async () => {
      const secrets = mergeSecrets(this.env, isDevelopment(this.env) ? developmentSecrets(this.#db) : {});
      if (!secrets.KEY_PEPPER) throw new Problem("unavailable", "the service is not configured");
      return { prefix: this.env.KEY_PREFIX, pepper: await importPepper(secrets.KEY_PEPPER) };
    })();
    return this.#issuer;
  }
}

const personTarget = (id: string) => ({ type: "person", id }) as const;

const keyTargets = (key: Key) =>
  [
    { type: "key", id: key.key_id },
    { type: "source", id: key.source_id },
  ] as const;
