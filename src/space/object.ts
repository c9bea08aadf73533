import { DurableObject } from "cloudflare:workers";
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/space/migrations.js";
import type { PresentedCredential } from "../auth/credential";
import { type Clock, systemClock } from "../clock";
import type { SpaceAuditQuery } from "../contract/audit";
import type { TimelineQuery } from "../contract/history";
import type { SuggestionQuery } from "../contract/identity";
import type { ContextUseQuery } from "../contract/measurement";
import type { ProfileSearchQuery } from "../contract/search";
import type { Env } from "../env";
import type { BodyInput } from "../http/body";
import type { IdempotencyRequest } from "../idempotency";
import { runDueTimers } from "./alarm";
import { BatchRequests } from "./batch-requests";
import { BACKLOG_SESSIONS, CompilePacing } from "./compile-pacing";
import { expireExports } from "./exports/expiry";
import { ExportJobs } from "./exports/jobs";
import { ExportRequests } from "./exports/requests";
import { IdentityRequests } from "./identity/requests";
import { implicitTransaction, type Transaction } from "./implicit-transaction";
import type { ImportChunk } from "./imports/chunks";
import type { ImportRequest } from "./imports/request";
import { ImportRequests } from "./imports/requests";
import { openIntake } from "./intake";
import { Limits, type SpaceUsage } from "./limits/limits";
import { MediaRequests } from "./media/requests";
import { compileBacklog, readerWaits } from "./memory/compiler";
import { HotTier } from "./memory/hot-tier";
import { type ModelSettings, ModelStep, type StepHost } from "./memory/model-step";
import { DEFAULT_MODEL_DAILY_LIMIT } from "./memory/model-summaries";
import { MODEL_TIMEOUT_MS, type SummaryModel } from "./memory/model-summarizer";
import { MemoryRequests } from "./memory/requests";
import { PrivacyRequests } from "./privacy/requests";
import { scheduleRetention } from "./privacy/retention";
import { applyReplicaSnapshot, emptyReplica, loadReplica, type Replica, type ReplicaSnapshot } from "./replica";
import { RequestPacing } from "./request-pacing";
import { SpaceRequests } from "./requests";
import { rowsFromArrays } from "./sql-rows";
import { nextDueAt } from "./timers";

/** How many rounds of due timers one alarm runs, and for how long at most, before it yields to a new alarm. */
const ALARM_ROUNDS = 200;
const ALARM_BUDGET_MS = 1_000;

const MB = 1024 * 1024;
const DEFAULT_HOT_TIER_BUDGET_MB = 8;
const hotTierBudget = (replica: Replica) => (replica.config.values.hot_tier_budget_mb ?? DEFAULT_HOT_TIER_BUDGET_MB) * MB;

/**
 * One space: every write of the space goes through here, one request at a time. The public
 * methods are the RPC surface, and nothing else is public: each hands its request to the
 * capability's request class (`identity/requests.ts`, `memory/requests.ts`, ...), which admits the
 * caller through `SpaceRequests` before it looks at the body, then runs one domain function.
 */
export class SpaceObject extends DurableObject<Env> {
  /** Tests move time through this (DESIGN §4). */
  clock: Clock = systemClock;
  /**
   * What slices sized by time read. A test that stops it sizes them by their steps' estimated
   * costs, as where the clock stands still during work: the same answer on a loaded machine.
   */
  stopwatch: () => number = () => performance.now();
  /** Workers AI for summaries (`AI`, absent under `npm run dev`) and how long a call may take; tests put a fake here. */
  summaryModel: { binding: SummaryModel | undefined; timeoutMs: number };
  #db: DrizzleSqliteDODatabase<Record<string, unknown>>;
  #sql: SqlStorage;
  /** The batch path's and the alarm rounds' writes: the turn's implicit transaction, no savepoint. */
  #turn: Transaction;
  #replica: Replica = emptyReplica();
  #hot = new HotTier(DEFAULT_HOT_TIER_BUDGET_MB * MB);
  /** When the compiler gives way to writes and jobs. */
  #pacing = new CompilePacing();
  /** When batches and the alarm's rounds give way to other requests. */
  #requestPacing = new RequestPacing();
  /** When the alarm is set for, as this object last set it (null: not set). */
  #alarmAt: number | null = null;
  /** The alarm handler is running: it sets the next alarm when its rounds end. */
  #alarmRunning = false;
  /** Model calls in flight, started by the `memory.summarize` timer. */
  #modelStep = new ModelStep();
  #stepHost: StepHost;
  /** Exports being written (`exports/jobs.ts`); public so that tests can make its slices small. */
  readonly exportJobs = new ExportJobs(() => ({ sql: this.#sql, bucket: this.env.FILES, now: () => this.clock.now() }));
  #space: SpaceRequests;
  #batch: BatchRequests;
  #identity: IdentityRequests;
  #memory: MemoryRequests;
  #privacy: PrivacyRequests;
  #exports: ExportRequests;
  #media: MediaRequests;
  #imports: ImportRequests;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = drizzle(ctx.storage);
    this.#sql = rowsFromArrays(ctx.storage.sql);
    this.#turn = implicitTransaction(ctx);
    this.summaryModel = { binding: env.AI, timeoutMs: MODEL_TIMEOUT_MS };
    this.#stepHost = {
      sql: this.#sql,
      transaction: (work) => this.#db.transaction(work),
      waitUntil: (promise) => ctx.waitUntil(promise),
      now: () => this.clock.now(),
      written: () => this.#armAlarm(),
    };
    this.#space = new SpaceRequests({
      sql: this.#sql,
      db: this.#db,
      env,
      intake: openIntake(this.#db, this.#sql, this.#turn),
      limits: new Limits(this.#sql),
      hot: this.#hot,
      searchTerms: new Map(),
      requestPacing: this.#requestPacing,
      replica: () => this.#replica,
      now: () => this.clock.now(),
      stopwatch: () => this.stopwatch(),
      armAlarm: () => this.#armAlarm(),
    });
    this.#batch = new BatchRequests(this.#space, (started, ended) => this.#pacing.wrote(started, ended));
    this.#identity = new IdentityRequests(this.#space);
    this.#memory = new MemoryRequests(this.#space);
    this.#privacy = new PrivacyRequests(this.#space);
    this.#exports = new ExportRequests(this.#space, this.exportJobs);
    this.#media = new MediaRequests(this.#space);
    // An import's chunk counts as a write; its time is not measured (it does not make the writes saturate).
    this.#imports = new ImportRequests(this.#space, () => this.#pacing.wrote(performance.now(), performance.now()));
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(this.#db, migrations);
      this.#replica = loadReplica(this.#db);
      this.#hot.budgetBytes = hotTierBudget(this.#replica);
      this.#alarmAt = await ctx.storage.getAlarm();
      await this.#armAlarm();
    });
  }

  /**
   * Runs what is due (DESIGN §4), then sets the alarm for the next timer. Work that is due again
   * at once (a job's next slice) runs in further rounds of the same alarm, each its own
   * transaction with requests let in between: a new alarm would cost more than a slice.
   */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    this.#alarmRunning = true;
    try {
      await this.#alarmRounds();
    } finally {
      this.#alarmRunning = false;
    }
    await this.#armAlarm();
  }

  async #alarmRounds(): Promise<void> {
    const started = performance.now();
    const model = this.#modelSettings();
    for (let round = 1; ; round++) {
      const now = this.clock.now();
      const saturated = this.#pacing.writesSaturate(performance.now());
      const effects = this.#turn(() =>
        runDueTimers(this.#sql, now, {
          stopwatch: () => this.stopwatch(),
          mayCompile: (jobRunning) =>
            this.#pacing.mayCompile(now, {
              backlogged: () => compileBacklog(this.#sql, BACKLOG_SESSIONS),
              saturated,
              readerWaits: () => readerWaits(this.#sql),
              jobRunning,
            }),
          summarizing: model !== null,
          saturated,
        }),
      );
      this.#hot.close(effects.closed);
      this.#hot.forget(effects.retained);
      for (const receiptId of effects.sign) await this.#privacy.signReceipt(receiptId);
      // Not awaited: the calls run beside the alarm and write their outcome when they settle.
      if (effects.summarize && model !== null) this.#modelStep.start(this.#stepHost, model, now);
      for (const exportId of effects.exports) await this.exportJobs.step(exportId);
      if (effects.mediaExpired.length > 0) await this.#media.settleExpired(effects.mediaExpired);
      if (effects.importWatches.length > 0) await this.#imports.actOnWatches(effects.importWatches);
      if (effects.expireExports) await expireExports(this.#sql, this.env.FILES, this.clock.now());
      const next = nextDueAt(this.#sql);
      const more = next !== null && next <= this.clock.now();
      if (!more || round >= ALARM_ROUNDS || performance.now() - started >= ALARM_BUDGET_MS) break;
      await scheduler.wait(this.#requestPacing.pauseAfterRound(performance.now()));
    }
  }

  /** Called by the ControlObject before it answers a change of keys, sources or configuration. */
  async replicate(snapshot: ReplicaSnapshot): Promise<void> {
    this.#db.transaction(() => applyReplicaSnapshot(this.#db, snapshot));
    this.#replica = loadReplica(this.#db);
    this.#hot.budgetBytes = hotTierBudget(this.#replica);
    scheduleRetention(this.#sql, this.clock.now());
    await this.#armAlarm();
  }

  // Writes and the caller

  async ingestBatch(credential: PresentedCredential, body: BodyInput) {
    return this.#batch.ingestBatch(credential, body);
  }

  async whoami(credential: PresentedCredential) {
    return this.#batch.whoami(credential);
  }

  /** What the space used of each quota's metric in the current periods (the ControlObject's `GET /v1/usage`). */
  async usage(): Promise<SpaceUsage> {
    return this.#space.limits.usage(this.clock.now());
  }

  // Identity (docs/api/identity.md)

  async readProfile(credential: PresentedCredential, profileId: string, requestId: string | null) {
    return this.#identity.readProfile(credential, profileId, requestId);
  }

  async lookupProfile(credential: PresentedCredential, body: BodyInput, requestId: string | null) {
    return this.#identity.lookupProfile(credential, body, requestId);
  }

  async undoMerge(credential: PresentedCredential, mergeId: string, idempotency: IdempotencyRequest, requestId: string | null) {
    return this.#identity.undoMerge(credential, mergeId, idempotency, requestId);
  }

  async createLink(credential: PresentedCredential, body: BodyInput, idempotency: IdempotencyRequest) {
    return this.#identity.createLink(credential, body, idempotency);
  }

  async endLink(credential: PresentedCredential, linkId: string, idempotency: IdempotencyRequest) {
    return this.#identity.endLink(credential, linkId, idempotency);
  }

  async listSuggestions(credential: PresentedCredential, query: SuggestionQuery) {
    return this.#identity.listSuggestions(credential, query);
  }

  async dismissSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ) {
    return this.#identity.dismissSuggestion(credential, suggestionId, idempotency, requestId);
  }

  async acceptSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ) {
    return this.#identity.acceptSuggestion(credential, suggestionId, idempotency, requestId);
  }

  // Memory: context, search, history, timeline, feedback, context use (docs/api/memory.md, docs/api/navigation.md)

  async readContext(credential: PresentedCredential, body: BodyInput, requestId: string | null) {
    return this.#memory.readContext(credential, body, requestId);
  }

  async profileContext(credential: PresentedCredential, profileId: string, requestId: string | null) {
    return this.#memory.profileContext(credential, profileId, requestId);
  }

  async search(
    credential: PresentedCredential,
    request: { body: BodyInput } | { profileId: string; query: ProfileSearchQuery },
    requestId: string | null,
  ) {
    return this.#memory.search(credential, request, requestId);
  }

  async openHistory(credential: PresentedCredential, body: BodyInput, requestId: string | null) {
    return this.#memory.openHistory(credential, body, requestId);
  }

  async historyItem(credential: PresentedCredential, itemId: string, requestId: string | null) {
    return this.#memory.historyItem(credential, itemId, requestId);
  }

  async readTimeline(credential: PresentedCredential, body: BodyInput, requestId: string | null) {
    return this.#memory.readTimeline(credential, body, requestId);
  }

  async profileTimeline(credential: PresentedCredential, profileId: string, query: TimelineQuery, requestId: string | null) {
    return this.#memory.profileTimeline(credential, profileId, query, requestId);
  }

  async giveFeedback(credential: PresentedCredential, body: BodyInput) {
    return this.#memory.giveFeedback(credential, body);
  }

  async contextUse(credential: PresentedCredential, query: ContextUseQuery) {
    return this.#memory.contextUse(credential, query);
  }

  async memoryStats() {
    return this.#memory.memoryStats();
  }

  // Privacy and audit (docs/api/privacy.md)

  async forget(credential: PresentedCredential, body: BodyInput, idempotency: IdempotencyRequest, requestId: string | null) {
    return this.#privacy.forget(credential, body, idempotency, requestId);
  }

  async erasureReceipt(credential: PresentedCredential, receiptId: string, requestId: string | null) {
    return this.#privacy.erasureReceipt(credential, receiptId, requestId);
  }

  async receiptKey(credential: PresentedCredential, kid: string | undefined) {
    return this.#privacy.receiptKey(credential, kid);
  }

  async readAudit(credential: PresentedCredential, query: SpaceAuditQuery, requestId: string | null) {
    return this.#privacy.readAudit(credential, query, requestId);
  }

  async createExport(credential: PresentedCredential, body: BodyInput, requestId: string | null) {
    return this.#exports.createExport(credential, body, requestId);
  }

  async readExport(credential: PresentedCredential, exportId: string, requestId: string | null) {
    return this.#exports.readExport(credential, exportId, requestId);
  }

  async openExportDownload(exportId: string, token: string, requestId: string | null) {
    return this.#exports.openExportDownload(exportId, token, requestId);
  }

  // Media (docs/api/media.md)

  async reserveMedia(
    credential: PresentedCredential,
    body: BodyInput,
    request: { idempotency: IdempotencyRequest | null; storeReady: boolean },
  ) {
    return this.#media.reserveMedia(credential, body, request);
  }

  async reservationForUpload(mediaRef: string) {
    return this.#media.reservationForUpload(mediaRef);
  }

  async uploadStored(mediaRef: string) {
    return this.#media.uploadStored(mediaRef);
  }

  // File imports (docs/api/imports.md): the edge's calls, then the queue reader's

  async receiveImport(credential: PresentedCredential, request: ImportRequest) {
    return this.#imports.receiveImport(credential, request);
  }

  async importReceived(importId: string, file: { sha256: string; sizeBytes: number } | null) {
    return this.#imports.importReceived(importId, file);
  }

  async importUpload(credential: PresentedCredential, request: ImportRequest, mediaRef: string) {
    return this.#imports.importUpload(credential, request, mediaRef);
  }

  async readImport(credential: PresentedCredential, importId: string) {
    return this.#imports.readImport(credential, importId);
  }

  async startImport(importId: string) {
    return this.#imports.startImport(importId);
  }

  async importChunk(importId: string, chunk: ImportChunk) {
    return this.#imports.importChunk(importId, chunk);
  }

  async endImport(importId: string, end: { at: number; failure: string | null }) {
    return this.#imports.endImport(importId, end);
  }

  /** The model that summarizes sessions: a binding and a model named in the space's config, else null. */
  #modelSettings(): ModelSettings | null {
    const { summarizer_model: model, summarizer_daily_limit: dailyLimit } = this.#replica.config.values;
    const { binding, timeoutMs } = this.summaryModel;
    if (binding === undefined || model === undefined) return null;
    return { binding, model, timeoutMs, dailyLimit: dailyLimit ?? DEFAULT_MODEL_DAILY_LIMIT };
  }

  /**
   * Sets the alarm to the earliest timer when that changed. Not while the alarm runs: its rounds
   * run what comes due meanwhile and it sets the alarm when they end, and a request setting it
   * in between would wait for a storage write, and its answer for that write's commit (every
   * read during an erasure did).
   */
  async #armAlarm(): Promise<void> {
    if (this.#alarmRunning) return;
    const next = nextDueAt(this.#sql);
    if (next === null || next === this.#alarmAt) return;
    await this.ctx.storage.setAlarm(next);
    this.#alarmAt = next;
  }
}
