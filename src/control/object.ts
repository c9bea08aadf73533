import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/control/migrations.js";
import { hashPassword } from "../auth/password";
import type { PersonPrincipal } from "../auth/person-token";
import { importPepper } from "../auth/source-key";
import { type Clock, systemClock } from "../clock";
import type { SpaceConfigValues } from "../contract/config";
import type {
  Key,
  KeyInput,
  Person,
  PersonInput,
  Project,
  Source,
  SourceInput,
  TenantCreated,
  TenantInput,
} from "../contract/control";
import type { Env } from "../env";
import { decodeCursor } from "../http/cursor";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { isDevelopment, mergeSecrets, type Secrets } from "../secrets";
import { spaceObject } from "../space/address";
import { type ConfigView, getConfig, putConfig } from "./config";
import type { ControlDb } from "./db";
import { developmentSecrets } from "./generated-secrets";
import { controlIdempotencyStore } from "./idempotency";
import { createKey, type KeyIssuer, requireKey, revokeKey, rotateKey } from "./keys";
import { getPerson, insertPerson, listPeople, login, personView } from "./people";
import { createProject, listProjects, requireProject } from "./projects";
import { spaceSnapshot } from "./replication";
import { insertSource, listSources, requireSource, sourceView } from "./sources";
import { insertSpace, listSpaces, requireSpace, type SpaceRow, type SpaceView, spaceView } from "./spaces";
import { createTenant } from "./tenants";

export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * The control plane: tenants, people, projects, spaces, sources, keys and configuration. One
 * object for the deployment. The edge has verified the person token and the route's roles; every
 * method here scopes what it touches to the actor's tenant (another tenant's record is `404`).
 * A change a space must know about is pushed to the space's object before the method returns.
 */
export class ControlObject extends DurableObject<Env> {
  /** Tests move time through this (DESIGN §4). */
  clock: Clock = systemClock;
  #db: ControlDb;
  #issuer: Promise<KeyIssuer> | undefined;
  #writes: IdempotentWrites;
  #pushes = new Map<string, Promise<void>>();

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

  async login(email: string, password: string): Promise<Outcome<PersonPrincipal>> {
    return outcomeOf(() => login(this.#db, email, password, this.clock.now()));
  }

  async me(actor: PersonPrincipal): Promise<Outcome<Person>> {
    return outcomeOf(() => {
      const person = getPerson(this.#db, actor.personId);
      if (!person) throw new Problem("unauthenticated", "the person no longer exists");
      return personView(person);
    });
  }

  async createPerson(actor: PersonPrincipal, input: PersonInput): Promise<Outcome<Person>> {
    return outcomeOf(async () => {
      const hash = await hashPassword(input.password);
      return personView(insertPerson(this.#db, actor.tenantId, input, hash, this.clock.now()));
    });
  }

  async listPeople(actor: PersonPrincipal, page: PageRequest): Promise<Outcome<Page<Person>>> {
    return outcomeOf(() => listPeople(this.#db, actor.tenantId, decodeCursor(page.cursor), page.limit));
  }

  async createProject(actor: PersonPrincipal, name: string): Promise<Outcome<Project>> {
    return outcomeOf(() => createProject(this.#db, actor.tenantId, name, this.clock.now()));
  }

  async listProjects(actor: PersonPrincipal, page: PageRequest): Promise<Outcome<Page<Project>>> {
    return outcomeOf(() => listProjects(this.#db, actor.tenantId, decodeCursor(page.cursor), page.limit));
  }

  async createSpace(actor: PersonPrincipal, projectId: string, name: string, region: string): Promise<Outcome<SpaceView>> {
    return outcomeOf(async () => {
      const project = requireProject(this.#db, actor.tenantId, projectId);
      const space = insertSpace(this.#db, project, name, region, this.clock.now());
      await this.#push(space);
      return spaceView(space);
    });
  }

  async listSpaces(actor: PersonPrincipal, projectId: string, page: PageRequest): Promise<Outcome<Page<SpaceView>>> {
    return outcomeOf(() => {
      requireProject(this.#db, actor.tenantId, projectId);
      return listSpaces(this.#db, projectId, decodeCursor(page.cursor), page.limit);
    });
  }

  async createSource(actor: PersonPrincipal, spaceId: string, input: SourceInput): Promise<Outcome<Source>> {
    return outcomeOf(async () => {
      const space = requireSpace(this.#db, actor.tenantId, spaceId);
      const source = insertSource(this.#db, space, input, this.clock.now());
      await this.#push(space);
      return sourceView(source);
    });
  }

  async listSources(actor: PersonPrincipal, spaceId: string, page: PageRequest): Promise<Outcome<Page<Source>>> {
    return outcomeOf(() => {
      requireSpace(this.#db, actor.tenantId, spaceId);
      return listSources(this.#db, spaceId, decodeCursor(page.cursor), page.limit);
    });
  }

  async createKey(
    actor: PersonPrincipal,
    sourceId: string,
    input: KeyInput,
    idempotency: IdempotencyRequest,
  ): Promise<Outcome<Key>> {
    return this.#idempotent(actor, idempotency, async () => {
      const source = requireSource(this.#db, actor.tenantId, sourceId);
      const space = requireSpace(this.#db, actor.tenantId, source.spaceId);
      const key = await createKey(this.#db, await this.#keyIssuer(), source, space, input, this.clock.now());
      await this.#push(space);
      return key;
    });
  }

  async rotateKey(actor: PersonPrincipal, keyId: string, idempotency: IdempotencyRequest): Promise<Outcome<Key>> {
    return this.#idempotent(actor, idempotency, async () => {
      const row = requireKey(this.#db, actor.tenantId, keyId);
      const space = requireSpace(this.#db, actor.tenantId, row.spaceId);
      const key = await rotateKey(this.#db, await this.#keyIssuer(), row, space, this.clock.now());
      await this.#push(space);
      return key;
    });
  }

  async revokeKey(actor: PersonPrincipal, keyId: string, idempotency: IdempotencyRequest): Promise<Outcome<Key>> {
    return this.#idempotent(actor, idempotency, async () => {
      const row = requireKey(this.#db, actor.tenantId, keyId);
      const space = requireSpace(this.#db, actor.tenantId, row.spaceId);
      const key = revokeKey(this.#db, row, this.clock.now());
      await this.#push(space);
      return key;
    });
  }

  async getConfig(actor: PersonPrincipal, spaceId: string, version?: number): Promise<Outcome<ConfigView>> {
    return outcomeOf(() => {
      requireSpace(this.#db, actor.tenantId, spaceId);
      return getConfig(this.#db, spaceId, version);
    });
  }

  async putConfig(actor: PersonPrincipal, spaceId: string, values: SpaceConfigValues): Promise<Outcome<ConfigView>> {
    return outcomeOf(async () => {
      const space = requireSpace(this.#db, actor.tenantId, spaceId);
      const config = putConfig(this.#db, spaceId, values, actor.personId, this.clock.now());
      await this.#push(space);
      return config;
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
      .then(() => spaceObject(this.env, space.name).replicate(spaceSnapshot(this.#db, space)));
    this.#pushes.set(space.spaceId, push);
    try {
      await push;
    } finally {
      if (this.#pushes.get(space.spaceId) === push) this.#pushes.delete(space.spaceId);
    }
  }

  /** Key writes carry an Idempotency-Key, kept per tenant. */
  #idempotent<T>(actor: PersonPrincipal, request: IdempotencyRequest, work: () => Promise<T>): Promise<Outcome<T>> {
    return outcomeOf(() => this.#writes.run({ ...request, scope: actor.tenantId }, work));
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
