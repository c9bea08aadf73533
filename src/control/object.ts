import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/control/migrations.js";
import { hashPassword } from "../auth/password";
import type { PersonActor } from "../auth/person-token";
import { type Clock, systemClock } from "../clock";
import type { AuditTarget, ControlAuditAction, ControlAuditQuery } from "../contract/audit";
import type { SpaceConfigValues } from "../contract/config";
import type { KeyInput, PersonInput, PersonUpdate, SourceInput, TenantCreated, TenantInput } from "../contract/control";
import type { Quota } from "../contract/quotas";
import type { Env } from "../env";
import { type Outcome, outcomeOf } from "../http/problem";
import type { IdempotencyRequest } from "../idempotency";
import { purgeAnswers } from "../idempotency-store";
import { isDevelopment, type Secrets } from "../secrets";
import type { ControlDb } from "./db";
import { developmentSecrets } from "./generated-secrets";
import { PeopleRequests } from "./people-requests";
import { ProjectRequests } from "./project-requests";
import { ControlRequests, type EdgeRefusal, type PageRequest, PUSH_RETRY_S } from "./requests";
import { SettingsRequests } from "./settings-requests";
import { createTenant } from "./tenants";

export type { PageRequest };

/**
 * The control plane: tenants, people, projects, spaces, sources, keys, configuration and quotas. One
 * object for the deployment. The edge has verified the person token's signature and the route's
 * roles (a person it refused on an audited route is recorded through `refused`); every method here
 * first checks that the token was not cut (`ControlRequests.as`), and scopes what it touches to
 * the actor's tenant (another tenant's record is `404`). A change a
 * space must know about is pushed to the space's object before the method returns, and pushed
 * again by the alarm until it lands should that push fail. The public
 * methods are the RPC surface, each handing its request to its capability's request class.
 */
export class ControlObject extends DurableObject<Env> {
  /** Tests move time through this (DESIGN §4). */
  clock: Clock = systemClock;
  #db: ControlDb;
  #people: PeopleRequests;
  #projects: ProjectRequests;
  #settings: SettingsRequests;
  #control: ControlRequests;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = drizzle(ctx.storage);
    const control = new ControlRequests({
      db: this.#db,
      sql: ctx.storage.sql,
      env,
      now: () => this.clock.now(),
      wakeBy: (at) => this.#wakeBy(at),
    });
    this.#control = control;
    this.#people = new PeopleRequests(control);
    this.#projects = new ProjectRequests(control);
    this.#settings = new SettingsRequests(control);
    void ctx.blockConcurrencyWhile(() => migrate(this.#db, migrations));
  }

  /**
   * Kept idempotency answers are deleted when their 24 hours are over (a key creation's answer
   * holds the new key whole), and every space still owed a push is pushed again, every
   * `PUSH_RETRY_S` until it lands. The alarm is set for the sooner of the two.
   */
  override async alarm(): Promise<void> {
    const answersDue = purgeAnswers(this.ctx.storage.sql, this.clock.now());
    const pushesDue = (await this.#control.pushOwed()) ? this.clock.now() + PUSH_RETRY_S * 1000 : null;
    const due = [answersDue, pushesDue].filter((at) => at !== null);
    if (due.length > 0) await this.ctx.storage.setAlarm(Math.min(...due));
  }

  async #wakeBy(at: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > at) await this.ctx.storage.setAlarm(at);
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
   * A person's request the edge refused for a role or for its input, recorded in the tenant's log
   * under the route's action (docs/api/privacy.md#audit); the answer is the refusal, or `401`
   * when the token was cut.
   */
  async refused(actor: PersonActor, action: ControlAuditAction, targets: AuditTarget[], refusal: EdgeRefusal, requestId: string) {
    return this.#control.refused(actor, { action, targets, requestId }, refusal);
  }

  // People (docs/api/control.md)

  async login(email: string, password: string, requestId: string | null = null) {
    return this.#people.login(email, password, requestId);
  }

  async logout(actor: PersonActor, requestId: string | null = null) {
    return this.#people.logout(actor, requestId);
  }

  async me(actor: PersonActor) {
    return this.#people.me(actor);
  }

  async createPerson(actor: PersonActor, input: PersonInput, requestId: string | null = null) {
    return this.#people.createPerson(actor, input, requestId);
  }

  async updatePerson(actor: PersonActor, personId: string, input: PersonUpdate, requestId: string | null = null) {
    return this.#people.updatePerson(actor, personId, input, requestId);
  }

  async removePerson(actor: PersonActor, personId: string, requestId: string | null = null) {
    return this.#people.removePerson(actor, personId, requestId);
  }

  async listPeople(actor: PersonActor, page: PageRequest) {
    return this.#people.listPeople(actor, page);
  }

  // Projects, spaces, sources and keys

  async createProject(
    actor: PersonActor,
    name: string,
    idempotency: IdempotencyRequest | null = null,
    requestId: string | null = null,
  ) {
    return this.#projects.createProject(actor, name, idempotency, requestId);
  }

  async listProjects(actor: PersonActor, page: PageRequest) {
    return this.#projects.listProjects(actor, page);
  }

  async createSpace(
    actor: PersonActor,
    projectId: string,
    name: string,
    region: string,
    idempotency: IdempotencyRequest | null = null,
    requestId: string | null = null,
  ) {
    return this.#projects.createSpace(actor, projectId, name, region, idempotency, requestId);
  }

  async listSpaces(actor: PersonActor, projectId: string, page: PageRequest) {
    return this.#projects.listSpaces(actor, projectId, page);
  }

  async createSource(
    actor: PersonActor,
    spaceId: string,
    input: SourceInput,
    idempotency: IdempotencyRequest | null = null,
    requestId: string | null = null,
  ) {
    return this.#projects.createSource(actor, spaceId, input, idempotency, requestId);
  }

  async listSources(actor: PersonActor, spaceId: string, page: PageRequest) {
    return this.#projects.listSources(actor, spaceId, page);
  }

  async createKey(
    actor: PersonActor,
    sourceId: string,
    input: KeyInput,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ) {
    return this.#projects.createKey(actor, sourceId, input, idempotency, requestId);
  }

  async listKeys(actor: PersonActor, sourceId: string, page: PageRequest) {
    return this.#projects.listKeys(actor, sourceId, page);
  }

  async rotateKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null = null) {
    return this.#projects.rotateKey(actor, keyId, idempotency, requestId);
  }

  async revokeKey(actor: PersonActor, keyId: string, idempotency: IdempotencyRequest, requestId: string | null = null) {
    return this.#projects.revokeKey(actor, keyId, idempotency, requestId);
  }

  // Configuration, audit, quotas and usage

  async getConfig(actor: PersonActor, spaceId: string, version?: number) {
    return this.#settings.getConfig(actor, spaceId, version);
  }

  async putConfig(actor: PersonActor, spaceId: string, values: SpaceConfigValues, requestId: string | null = null) {
    return this.#settings.putConfig(actor, spaceId, values, requestId);
  }

  async readAudit(actor: PersonActor, query: ControlAuditQuery, requestId: string | null = null) {
    return this.#settings.readAudit(actor, query, requestId);
  }

  async putQuota(quota: Quota) {
    return this.#settings.putQuota(quota);
  }

  async listQuotas(tenantId: string) {
    return this.#settings.listQuotas(tenantId);
  }

  async usage(actor: PersonActor) {
    return this.#settings.usage(actor);
  }
}
