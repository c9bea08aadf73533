import { DurableObject } from "cloudflare:workers";
import { type DrizzleSqliteDODatabase, drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/space/migrations.js";
import { type AuditedRequest, actorOf, auditPage, recordOutcome } from "../audit/log";
import type { PresentedCredential } from "../auth/credential";
import { POLICIES, type RoutePolicy } from "../auth/policy";
import { signingKey } from "../auth/signing-key";
import { type Clock, systemClock } from "../clock";
import type { SpaceAuditPage, SpaceAuditQuery } from "../contract/audit";
import type { BatchAnswer } from "../contract/batch";
import { type ContextAnswer, ContextInputSchema } from "../contract/context";
import { ExportInputSchema, type ExportRecord } from "../contract/exports";
import {
  type HistoryItem,
  HistoryOpenInputSchema,
  TimelineInputSchema,
  type TimelinePage,
  type TimelineQuery,
} from "../contract/history";
import {
  type Link,
  LinkInputSchema,
  LookupInputSchema,
  type Merge,
  type Profile,
  type Suggestion,
  type SuggestionQuery,
} from "../contract/identity";
import type { ContextUseQuery, ContextUseReport } from "../contract/measurement";
import { UploadReservationInputSchema } from "../contract/media";
import { ForgetInputSchema, type ReceiptKeyView } from "../contract/privacy";
import { type ProfileSearchQuery, SearchInputSchema, type SearchPage } from "../contract/search";
import type { Env } from "../env";
import { type BodyInput, parseJsonBody } from "../http/body";
import { type CursorList, CursorSeal } from "../http/cursor";
import { parseOrRefuse } from "../http/issues";
import { type Outcome, outcomeOf, Problem } from "../http/problem";
import { checkedIdempotencyKey, type IdempotencyRequest, IdempotentWrites } from "../idempotency";
import { admit, type Caller, callerScope, viewerOf } from "./access";
import { runDueTimers } from "./alarm";
import { BatchPacing } from "./batch-pacing";
import { BACKLOG_SESSIONS, CompilePacing } from "./compile-pacing";
import { ExportJobs } from "./exports/jobs";
import { downloadLink, openDownload } from "./exports/links";
import { exportView, requireExport } from "./exports/records";
import { spaceIdempotencyStore } from "./idempotency";
import { endLink, linkProfiles, linkView } from "./identity/links";
import { undoMerge } from "./identity/merges";
import { lookupProfile, mergeView, profileOfHandle, readProfile } from "./identity/profile-view";
import { membersOf, rootOf } from "./identity/profiles";
import { type JobStatus, suggestionJobStatus } from "./identity/suggestion-job";
import { acceptSuggestion, dismissSuggestion, listSuggestions } from "./identity/suggestions";
import { type Intake, ingestBatch, openIntake } from "./intake";
import { Limits, type RequestKind, type SpaceUsage } from "./limits/limits";
import { contextUseReport } from "./measurement/context-use";
import { forgetServedContexts } from "./measurement/served-contexts";
import { mediaCheckOf } from "./media/batch-media";
import { deleteErasedMedia } from "./media/erasure";
import { completeUpload, type MediaRecord, reservationForUpload, reserveMedia } from "./media/reservations";
import { compileBacklog, compileQueueLength, queueProfile, readerWaits } from "./memory/compiler";
import { contextOf, contextOfHandle } from "./memory/context";
import { ingestFeedback } from "./memory/feedback";
import { DEFAULT_HISTORY_TEXT_LEVEL, historyItem, openHistory, showsText } from "./memory/history";
import { HotTier } from "./memory/hot-tier";
import { type ModelSettings, ModelStep, type StepHost } from "./memory/model-step";
import { DEFAULT_MODEL_DAILY_LIMIT } from "./memory/model-summaries";
import { MODEL_TIMEOUT_MS, type SummaryModel } from "./memory/model-summarizer";
import { forgetReadings } from "./memory/speech-acts";
import { timelineOf, timelineOfHandle, timelineRequest } from "./memory/timeline";
import { forgetVocabulary } from "./memory/vocabulary";
import { continueErasure, type ErasureView, erasureView, requestErasure } from "./privacy/erasures";
import { receiptKeyById } from "./privacy/receipt-keys";
import { ReceiptSigner } from "./privacy/receipt-signer";
import { scheduleRetention } from "./privacy/retention";
import { applyReplicaSnapshot, emptyReplica, loadReplica, type Replica, type ReplicaSnapshot } from "./replica";
import type { TermCache } from "./search/query";
import { searchProfile, searchSpace } from "./search/search";
import { nextDueAt } from "./timers";

/** How many rounds of due timers one alarm runs, and for how long at most, before it yields to a new alarm. */
const ALARM_ROUNDS = 200;
const ALARM_BUDGET_MS = 1_000;

const MB = 1024 * 1024;
const DEFAULT_HOT_TIER_BUDGET_MB = 8;
const hotTierBudget = (replica: Replica) => (replica.config.values.hot_tier_budget_mb ?? DEFAULT_HOT_TIER_BUDGET_MB) * MB;

type SuggestionPage = { data: Suggestion[]; next_cursor: string | null; job: JobStatus };

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
  /** Workers AI for summaries (`AI`, absent under `npm run dev`) and how long a call may take; tests put a fake here. */
  summaryModel: { binding: SummaryModel | undefined; timeoutMs: number };
  #db: DrizzleSqliteDODatabase<Record<string, unknown>>;
  #sql: SqlStorage;
  #intake: Intake;
  #writes: IdempotentWrites;
  #cursors = new CursorSeal(() => signingKey(this.#sql, "cursor"));
  #replica: Replica = emptyReplica();
  /** The events of open sessions, per profile, in memory (DESIGN 3.8); rebuilt from SQLite as needed. */
  #hot = new HotTier(DEFAULT_HOT_TIER_BUDGET_MB * MB);
  /** Estimated document frequencies of frequent search terms (rebuilt as needed). */
  #searchTerms: TermCache = new Map();
  /** When the compiler gives way to writes and jobs. */
  #pacing = new CompilePacing();
  /** When batches give way to other requests. */
  #batchPacing = new BatchPacing();
  /** When the alarm is set for, as this object last set it (null: not set). */
  #alarmAt: number | null = null;
  /** Rate limits and the tenant's quotas (docs/api/contract.md "Rate limits"). */
  #limits: Limits;
  /** Model calls in flight, started by the `memory.summarize` timer. */
  #modelStep = new ModelStep();
  #stepHost: StepHost;
  /** Exports being written (`exports/jobs.ts`); public so that tests can make its slices small. */
  readonly exportJobs = new ExportJobs(() => ({ sql: this.#sql, bucket: this.env.FILES, now: () => this.clock.now() }));
  #receipts: ReceiptSigner;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#db = drizzle(ctx.storage);
    this.#sql = ctx.storage.sql;
    this.#intake = openIntake(this.#db, ctx.storage.sql);
    this.#limits = new Limits(ctx.storage.sql);
    this.#writes = new IdempotentWrites(spaceIdempotencyStore(this.#db), () => this.clock.now());
    this.summaryModel = { binding: env.AI, timeoutMs: MODEL_TIMEOUT_MS };
    this.#stepHost = {
      sql: this.#sql,
      transaction: (work) => this.#db.transaction(work),
      waitUntil: (promise) => ctx.waitUntil(promise),
      now: () => this.clock.now(),
      written: () => this.#armAlarm(),
    };
    this.#receipts = new ReceiptSigner(this.#sql, env.FILES, (work) => this.#db.transaction(work));
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
    const started = performance.now();
    const model = this.#modelSettings();
    for (let round = 1; ; round++) {
      const now = this.clock.now();
      const effects = this.#db.transaction(() =>
        runDueTimers(this.#sql, now, {
          stopwatch: () => performance.now(),
          mayCompile: (jobRunning) =>
            this.#pacing.mayCompile(now, {
              backlogged: () => compileBacklog(this.#sql, BACKLOG_SESSIONS),
              readerWaits: () => readerWaits(this.#sql),
              jobRunning,
            }),
          summarizing: model !== null,
        }),
      );
      this.#hot.close(effects.closed);
      this.#hot.forget(effects.retained);
      for (const receiptId of effects.sign) await this.#signReceipt(receiptId);
      // Not awaited: the calls run beside the alarm and write their outcome when they settle.
      if (effects.summarize && model !== null) this.#modelStep.start(this.#stepHost, model, now);
      for (const exportId of effects.exports) await this.exportJobs.step(exportId);
      const next = nextDueAt(this.#sql);
      const more = next !== null && next <= this.clock.now();
      if (!more || round >= ALARM_ROUNDS || performance.now() - started >= ALARM_BUDGET_MS) break;
      await scheduler.wait(0);
    }
    await this.#armAlarm();
  }

  /** Called by the ControlObject before it answers a change of keys, sources or configuration. */
  async replicate(snapshot: ReplicaSnapshot): Promise<void> {
    this.#db.transaction(() => applyReplicaSnapshot(this.#db, snapshot));
    this.#replica = loadReplica(this.#db);
    this.#hot.budgetBytes = hotTierBudget(this.#replica);
    scheduleRetention(this.#sql, this.clock.now());
    await this.#armAlarm();
  }

  async ingestBatch(credential: PresentedCredential, body: BodyInput): Promise<Outcome<BatchAnswer>> {
    return this.#admitted(
      credential,
      POLICIES.batch,
      async (caller, now) => {
        if (caller.principal.kind !== "key" || !caller.source) throw new Problem("forbidden", "this route needs a source key");
        const intakeCaller = {
          keyId: caller.principal.keyId,
          sourceId: caller.principal.sourceId,
          scopes: caller.principal.scopes,
          test: caller.principal.mode === "test",
          source: caller.source,
        };
        const config = this.#replica.config.values;
        const parsed = parseJsonBody(body);
        const media = await mediaCheckOf(this.#sql, this.env.FILES, this.#spaceName(), parsed, () => this.clock.now());
        const chunkItems = this.#batchPacing.chunkItems(performance.now());
        const chunks = ingestBatch(this.#intake, intakeCaller, parsed, now, config, chunkItems, media);
        for (let step = chunks.next(); ; step = chunks.next()) {
          if (step.done) {
            this.#pacing.wrote();
            this.#limits.eventsAccepted(step.value.accepted, now);
            return step.value;
          }
          // Committed: the next read from any channel sees these events in `live`.
          this.#hot.add(step.value.live.added);
          this.#hot.close(step.value.live.closed);
          // Requests waiting for the object go before the next chunk.
          if (step.value.more) await scheduler.wait(0);
        }
      },
      "events",
    );
  }

  async whoami(credential: PresentedCredential): Promise<Outcome<CallerView>> {
    return this.#admitted(credential, POLICIES.whoami, ({ principal }) => {
      const space = this.#replica.space?.name ?? "";
      if (principal.kind === "key") {
        const { keyId, sourceId, scopes, mode } = principal;
        return { space, principal: { kind: "key", key_id: keyId, source_id: sourceId, scopes: [...scopes], mode } };
      }
      return { space, principal: { kind: "person", person_id: principal.personId, roles: [...principal.roles] } };
    });
  }

  /** A person's read is audited (`profile.read`); a key's is an agent's and is not. */
  async readProfile(
    credential: PresentedCredential,
    profileId: string,
    requestId: string | null = null,
  ): Promise<Outcome<Profile>> {
    const read = () =>
      this.#admitted(credential, POLICIES.profileRead, (caller) => readProfile(this.#sql, profileId, viewerOf(caller)));
    if (credential.kind === "key") return read();
    const targets = [{ type: "profile" as const, id: profileId }];
    return this.#audited({ ...this.#audit(credential, "profile.read", requestId, targets), targetsOf: profileTarget }, read);
  }

  async lookupProfile(
    credential: PresentedCredential,
    body: BodyInput,
    requestId: string | null = null,
  ): Promise<Outcome<Profile>> {
    const lookup = () =>
      this.#admitted(credential, POLICIES.profileRead, (caller) => {
        const { handle } = parseOrRefuse(LookupInputSchema, parseJsonBody(body));
        return lookupProfile(this.#sql, handle, viewerOf(caller));
      });
    if (credential.kind === "key") return lookup();
    return this.#audited({ ...this.#audit(credential, "profile.lookup", requestId), targetsOf: profileTarget }, lookup);
  }

  async undoMerge(
    credential: PresentedCredential,
    mergeId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Merge>> {
    const audit = this.#audit<Merge>(credential, "merge.undo", requestId, [{ type: "merge", id: mergeId }]);
    audit.targetsOf = (merge) => [
      { type: "profile", id: merge.survivor_id },
      { type: "profile", id: merge.absorbed_id },
    ];
    return this.#audited(audit, () =>
      this.#idempotent(credential, POLICIES.identityReview, idempotency, (_caller, now) => {
        const merge = undoMerge(this.#sql, mergeId, now);
        queueProfile(this.#sql, [merge.survivorId, merge.absorbedId], now);
        return mergeView(merge);
      }),
    );
  }

  async readContext(credential: PresentedCredential, body: BodyInput): Promise<Outcome<ContextAnswer>> {
    return this.#admitted(credential, POLICIES.context, (caller, now) => {
      const input = parseOrRefuse(ContextInputSchema, parseJsonBody(body));
      const read = { hot: this.#hot, viewer: viewerOf(caller), knownEtag: input.known_etag, about: input.about, now };
      return contextOfHandle(this.#sql, input.handle, read);
    });
  }

  /** `POST /v1/search` (a body) and `GET /v1/profiles/{id}/search` (a profile id and its query string). */
  async search(
    credential: PresentedCredential,
    request: { body: BodyInput } | { profileId: string; query: ProfileSearchQuery },
  ): Promise<Outcome<SearchPage>> {
    return this.#admitted(credential, POLICIES.search, (caller) => {
      const viewer = viewerOf(caller);
      if ("profileId" in request) {
        const { profileId, query } = request;
        return this.#paged("search", query.cursor, "query.cursor", (cursor) =>
          searchProfile(this.#sql, profileId, { ...query, cursor }, viewer, this.#searchTerms),
        );
      }
      const input = parseOrRefuse(SearchInputSchema, parseJsonBody(request.body));
      return this.#paged("search", input.cursor, "cursor", (cursor) =>
        searchSpace(this.#sql, { ...input, cursor }, viewer, this.#searchTerms),
      );
    });
  }

  async profileContext(credential: PresentedCredential, profileId: string): Promise<Outcome<ContextAnswer>> {
    return this.#admitted(credential, POLICIES.context, (caller, now) =>
      contextOf(this.#sql, profileId, { hot: this.#hot, viewer: viewerOf(caller), now }),
    );
  }

  async contextUse(credential: PresentedCredential, query: ContextUseQuery): Promise<Outcome<ContextUseReport>> {
    return this.#admitted(credential, POLICIES.measurement, (_caller, now) => contextUseReport(this.#sql, query, now));
  }

  async giveFeedback(credential: PresentedCredential, body: BodyInput): Promise<Outcome<BatchAnswer>> {
    return this.#admitted(
      credential,
      POLICIES.feedback,
      ({ principal }, now) => {
        const giver =
          principal.kind === "key"
            ? { sourceId: principal.sourceId, keyId: principal.keyId, test: principal.mode === "test" }
            : { sourceId: `person:${principal.personId}`, keyId: `person:${principal.personId}`, test: false };
        const answer = ingestFeedback(this.#intake, giver, parseJsonBody(body), now);
        this.#limits.eventsAccepted(answer.accepted, now);
        return answer;
      },
      "events",
    );
  }

  /** `POST /v1/history/open`: text at the space's `history_text_level`, against the verification claimed (capped by the source's ceiling). */
  async openHistory(credential: PresentedCredential, body: BodyInput): Promise<Outcome<HistoryItem>> {
    return this.#admitted(credential, POLICIES.context, (caller, now) => {
      const { verification, ...input } = parseOrRefuse(HistoryOpenInputSchema, parseJsonBody(body));
      const textLevel = this.#replica.config.values.history_text_level ?? DEFAULT_HISTORY_TEXT_LEVEL;
      const showText = showsText(verification, textLevel, caller.source?.verificationCeiling ?? null);
      return openHistory(this.#sql, input, { viewer: viewerOf(caller), showText, now });
    });
  }

  /** `GET /v1/history/items/{item_id}`: no customer and no verification in the request, so read as `V0`. */
  async historyItem(credential: PresentedCredential, itemId: string): Promise<Outcome<HistoryItem>> {
    return this.#admitted(credential, POLICIES.context, (caller, now) => {
      const textLevel = this.#replica.config.values.history_text_level ?? DEFAULT_HISTORY_TEXT_LEVEL;
      return historyItem(this.#sql, itemId, { viewer: viewerOf(caller), showText: showsText("V0", textLevel, null), now });
    });
  }

  async readTimeline(credential: PresentedCredential, body: BodyInput): Promise<Outcome<TimelinePage>> {
    return this.#admitted(credential, POLICIES.context, (caller) => {
      const input = parseOrRefuse(TimelineInputSchema, parseJsonBody(body));
      return this.#paged("timeline", input.cursor, "cursor", (cursor) =>
        timelineOfHandle(this.#sql, input.handle, timelineRequest({ ...input, cursor }, "cursor", viewerOf(caller))),
      );
    });
  }

  async profileTimeline(
    credential: PresentedCredential,
    profileId: string,
    query: TimelineQuery,
  ): Promise<Outcome<TimelinePage>> {
    return this.#admitted(credential, POLICIES.context, (caller) => {
      const channels = query.channels?.split(",");
      return this.#paged("timeline", query.cursor, "query.cursor", (cursor) =>
        timelineOf(this.#sql, profileId, timelineRequest({ ...query, channels, cursor }, "query.cursor", viewerOf(caller))),
      );
    });
  }

  /** What the space used of each quota's metric in the current periods (the ControlObject's `GET /v1/usage`). */
  async usage(): Promise<SpaceUsage> {
    return this.#limits.usage(this.clock.now());
  }

  /** What the hot tier holds against its budget, and what waits for the compiler (operators, the benchmark). */
  async memoryStats(): Promise<{ hot_tier_bytes: number; hot_tier_budget_bytes: number; compile_queue: number }> {
    return {
      hot_tier_bytes: this.#hot.bytes,
      hot_tier_budget_bytes: this.#hot.budgetBytes,
      compile_queue: compileQueueLength(this.#sql),
    };
  }

  async createLink(credential: PresentedCredential, body: BodyInput, idempotency: IdempotencyRequest): Promise<Outcome<Link>> {
    const input = () => parseOrRefuse(LinkInputSchema, parseJsonBody(body));
    return this.#idempotent(
      credential,
      POLICIES.identity,
      idempotency,
      (caller, now, link) => linkProfiles(this.#sql, link, caller.source?.sourceId ?? null, now),
      input,
    );
  }

  async listSuggestions(credential: PresentedCredential, query: SuggestionQuery): Promise<Outcome<SuggestionPage>> {
    return this.#admitted(credential, POLICIES.identity, async (caller) => ({
      ...(await this.#paged("suggestions", query.cursor, "query.cursor", (cursor) =>
        listSuggestions(this.#sql, { ...query, cursor }, viewerOf(caller).visibility),
      )),
      job: suggestionJobStatus(this.#sql),
    }));
  }

  async dismissSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Suggestion>> {
    const audit = this.#audit(credential, "suggestion.dismiss", requestId, [{ type: "suggestion", id: suggestionId }]);
    return this.#audited({ ...audit, targetsOf: suggestionTargets }, () =>
      this.#idempotent(credential, POLICIES.identity, idempotency, (caller, now) =>
        dismissSuggestion(this.#sql, suggestionId, now, viewerOf(caller).visibility),
      ),
    );
  }

  async acceptSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null = null,
  ): Promise<Outcome<Suggestion>> {
    const audit = this.#audit(credential, "suggestion.accept", requestId, [{ type: "suggestion", id: suggestionId }]);
    return this.#audited({ ...audit, targetsOf: suggestionTargets }, () =>
      this.#idempotent(credential, POLICIES.identityReview, idempotency, (caller, now) => {
        const personId = caller.principal.kind === "person" ? caller.principal.personId : "";
        return acceptSuggestion(this.#sql, suggestionId, personId, now, viewerOf(caller).visibility);
      }),
    );
  }

  /** `POST /v1/exports`: the subject's data as NDJSON in R2; complete in the answer when small, else written on by a timer. */
  async createExport(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<ExportRecord>> {
    const audit = this.#audit<ExportRecord>(credential, "export.create", requestId);
    audit.targetsOf = (record) => [
      { type: "export", id: record.export_id },
      { type: "profile", id: record.profile_id },
    ];
    return this.#audited(audit, () =>
      this.#admitted(
        credential,
        POLICIES.security,
        async () => {
          const input = parseOrRefuse(ExportInputSchema, parseJsonBody(body));
          const whole = { visibility: "whole", sources: null } as const;
          const rootId = input.handle
            ? profileOfHandle(this.#sql, input.handle, whole)
            : rootOf(this.#sql, input.profile_id ?? "")?.profileId;
          if (!rootId) throw new Problem("not_found", "no such profile");
          const subject = { space: this.#replica.space?.name ?? "", rootId, members: membersOf(this.#sql, rootId) };
          const { exportId } = await this.exportJobs.start(subject, actorOf(credential).id);
          // Forget may have taken the subject while the request wrote: then the export is gone too.
          const row = requireExport(this.#sql, exportId);
          return exportView(row, await downloadLink(this.env, this.#sql, row, this.clock.now()));
        },
        "write",
      ),
    );
  }

  /** `GET /v1/exports/{id}`: the status record, with a fresh download link once completed. */
  async readExport(credential: PresentedCredential, exportId: string, requestId: string | null): Promise<Outcome<ExportRecord>> {
    const audit = this.#audit<ExportRecord>(credential, "export.read", requestId, [{ type: "export", id: exportId }]);
    audit.targetsOf = (record) => [{ type: "profile", id: record.profile_id }];
    return this.#audited(audit, () =>
      this.#admitted(credential, POLICIES.security, async (_caller, now) => {
        const row = requireExport(this.#sql, exportId);
        return exportView(row, await downloadLink(this.env, this.#sql, row, now));
      }),
    );
  }

  /** The development download route: the link's token checked, the file's R2 key for the edge to stream. */
  async openExportDownload(exportId: string, token: string, requestId: string | null): Promise<Outcome<{ objectKey: string }>> {
    const audit = { actor: { kind: "link", id: exportId }, action: "export.download", requestId, named: true } as const;
    return this.#audited({ ...audit, targets: [{ type: "export", id: exportId }] }, () =>
      outcomeOf(() => openDownload(this.#sql, exportId, token, this.#replica.space?.name ?? "", this.clock.now())),
    );
  }

  /** `GET /v1/audit`: the space's log, oldest first; the read itself is a row of it. */
  async readAudit(
    credential: PresentedCredential,
    query: SpaceAuditQuery,
    requestId: string | null,
  ): Promise<Outcome<SpaceAuditPage>> {
    return this.#audited(this.#audit(credential, "audit.read", requestId), () =>
      this.#admitted(credential, POLICIES.security, () =>
        this.#paged(
          "audit",
          query.cursor,
          "query.cursor",
          (cursor) => auditPage(this.#sql, { ...query, cursor }) as SpaceAuditPage,
        ),
      ),
    );
  }

  async endLink(credential: PresentedCredential, linkId: string, idempotency: IdempotencyRequest): Promise<Outcome<Link>> {
    return this.#idempotent(credential, POLICIES.identity, idempotency, (_caller, now) =>
      linkView(this.#sql, endLink(this.#sql, linkId, now)),
    );
  }

  /** `POST /v1/media/uploads`: the reservation, under its subject if it names one; the edge signs where its bytes go. */
  async reserveMedia(credential: PresentedCredential, body: BodyInput): Promise<Outcome<MediaRecord>> {
    return this.#admitted(
      credential,
      POLICIES.media,
      (caller, now) => {
        const input = parseOrRefuse(UploadReservationInputSchema, parseJsonBody(body));
        const by = { reservedBy: callerScope(caller), sourceId: caller.source?.sourceId ?? null };
        const share = this.#replica.quotas.get("media_bytes")?.share ?? null;
        return this.#db.transaction(() => reserveMedia(this.#sql, input, by, now, share));
      },
      "write",
    );
  }

  /** The development store, before it streams an upload into R2 (the edge checked its token): the reservation, if it takes one. */
  async reservationForUpload(mediaRef: string): Promise<Outcome<MediaRecord>> {
    return outcomeOf(() => reservationForUpload(this.#sql, mediaRef, this.clock.now()));
  }

  /** The development store, once R2 holds the bytes: the reservation is stored; a second upload that raced the first is `409`. */
  async uploadStored(mediaRef: string): Promise<Outcome<MediaRecord>> {
    return outcomeOf(() => completeUpload(this.#sql, mediaRef, this.clock.now()));
  }

  /**
   * `POST /v1/forget`: the subject is cut loose and its first slice erased in the request's
   * transaction; a small subject is done then, and its receipt signed before the answer.
   */
  async forget(
    credential: PresentedCredential,
    body: BodyInput,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<ErasureView>> {
    const input = () => parseOrRefuse(ForgetInputSchema, parseJsonBody(body));
    const audit = this.#audit<ErasureView>(credential, "forget", requestId);
    audit.targetsOf = (view) => [{ type: "receipt", id: view.state === "completed" ? view.receipt.receipt_id : view.receipt_id }];
    return this.#audited(audit, async () => {
      const started = await this.#idempotent(
        credential,
        POLICIES.security,
        idempotency,
        (_caller, now, subject) => {
          const { receiptId, members, job } = requestErasure(this.#sql, subject, now);
          this.#forgetHeld(members);
          if (job) continueErasure(this.#sql, job, now, () => performance.now());
          return { receipt_id: receiptId };
        },
        input,
      );
      if (!started.ok) return started;
      await this.#signReceipt(started.value.receipt_id);
      return outcomeOf(() => this.#erasure(started.value.receipt_id));
    });
  }

  async erasureReceipt(
    credential: PresentedCredential,
    receiptId: string,
    requestId: string | null,
  ): Promise<Outcome<ErasureView>> {
    const audit = this.#audit<ErasureView>(credential, "receipt.read", requestId, [{ type: "receipt", id: receiptId }]);
    return this.#audited(audit, () => this.#admitted(credential, POLICIES.security, () => this.#erasure(receiptId)));
  }

  /** `GET /v1/privacy/receipt-key`: the key that signs now, or the one named `kid`. */
  async receiptKey(credential: PresentedCredential, kid: string | undefined): Promise<Outcome<ReceiptKeyView>> {
    return this.#admitted(credential, POLICIES.receiptKey, async (_caller, now) => {
      const key = kid === undefined ? await this.#receipts.key(now) : receiptKeyById(this.#sql, kid);
      if (!key) throw new Problem("not_found", "no such key");
      return { kid: key.kid, jwk: key.jwk };
    });
  }

  #erasure(receiptId: string): ErasureView {
    const view = erasureView(this.#sql, receiptId);
    if (!view) throw new Problem("not_found", "no such receipt");
    return view;
  }

  /** Signs a receipt whose data is erased; what the object holds in memory of the space's words is read again. */
  async #signReceipt(receiptId: string): Promise<void> {
    // The media forget erased leave R2 before a receipt says they did (a restart: the signing timer).
    await deleteErasedMedia(this.#sql, this.env.FILES, this.#spaceName());
    await this.#receipts.sign(receiptId, this.clock.now());
    this.#forgetHeld([]);
  }

  /** What the object holds in memory of erased profiles (the hot tier, unwritten etags), of the space's words and of texts read. */
  #forgetHeld(profileIds: readonly string[]): void {
    this.#hot.forget(profileIds);
    forgetServedContexts(this.#sql, profileIds);
    this.#searchTerms.clear();
    forgetVocabulary(this.#sql);
    forgetReadings();
  }

  /**
   * The admission every method goes through: the credential against the replica, then the
   * route's policy, then the limits (`kind`: writes are limited before reads); afterwards the
   * alarm follows any timer the work set. Any request but a batch makes the batches of the next
   * second give way to requests (`BatchPacing`).
   */
  async #admitted<T>(
    credential: PresentedCredential,
    policy: RoutePolicy,
    work: (caller: Caller, now: number) => T | Promise<T>,
    kind: RequestKind = "read",
  ): Promise<Outcome<T>> {
    if (policy !== POLICIES.batch) this.#batchPacing.otherRequest(performance.now());
    const outcome = await outcomeOf(() => {
      const now = this.clock.now();
      const caller = admit(this.#replica, credential, policy, now);
      this.#limits.admit(this.#replica, caller, kind, now);
      return work(caller, now);
    });
    await this.#armAlarm();
    return outcome;
  }

  /** What the audit log records of a governance request (docs/api/privacy.md#audit). */
  #audit<T>(
    credential: PresentedCredential,
    action: AuditedRequest<T>["action"],
    requestId: string | null,
    targets: AuditedRequest<T>["targets"] = [],
  ): AuditedRequest<T> {
    return { actor: actorOf(credential), action, requestId, targets };
  }

  /** A governance request: answered, then appended to the space's audit log with its outcome. */
  async #audited<T>(request: AuditedRequest<T>, run: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
    const outcome = await run();
    recordOutcome(this.#sql, request, outcome, this.clock.now());
    return outcome;
  }

  /**
   * A page of a list whose cursors this object signs (`CursorSeal`): the cursor opened before the
   * read, so one the space never issued is `422` before anything reads it; the next one sealed.
   */
  async #paged<P extends { next_cursor: string | null }>(
    list: CursorList,
    cursor: string | undefined,
    place: string,
    read: (cursor: string | undefined) => P,
  ): Promise<P> {
    const page = read(await this.#cursors.open(list, cursor, place));
    return { ...page, next_cursor: await this.#cursors.seal(list, page.next_cursor) };
  }

  /** The model that summarizes sessions: a binding and a model named in the space's config, else null. */
  #modelSettings(): ModelSettings | null {
    const { summarizer_model: model, summarizer_daily_limit: dailyLimit } = this.#replica.config.values;
    const { binding, timeoutMs } = this.summaryModel;
    if (binding === undefined || model === undefined) return null;
    return { binding, model, timeoutMs, dailyLimit: dailyLimit ?? DEFAULT_MODEL_DAILY_LIMIT };
  }

  /** The space's name, as its R2 keys carry it. */
  #spaceName(): string {
    return this.#replica.space?.name ?? "";
  }

  /** Sets the alarm to the earliest timer when that changed. */
  async #armAlarm(): Promise<void> {
    const next = nextDueAt(this.#sql);
    if (next === null || next === this.#alarmAt) return;
    await this.ctx.storage.setAlarm(next);
    this.#alarmAt = next;
  }

  /**
   * A write with an `Idempotency-Key`: admitted first, then the key and the body checked (a
   * malformed request is `422` whatever the key did before), then the work in one transaction,
   * its answer kept 24 hours for this caller (a retry gets it again; another request is `409`;
   * another caller with the same key makes a fresh request).
   */
  #idempotent<T, I = undefined>(
    credential: PresentedCredential,
    policy: RoutePolicy,
    idempotency: IdempotencyRequest,
    work: (caller: Caller, now: number, input: I) => T,
    parse: () => I = () => undefined as I,
  ): Promise<Outcome<T>> {
    return this.#admitted(
      credential,
      policy,
      (caller, now) => {
        const request = { ...idempotency, scope: callerScope(caller), key: checkedIdempotencyKey(idempotency.key) };
        const input = parse();
        return this.#writes.runInTransaction(
          request,
          (inside) => this.#db.transaction(inside),
          () => work(caller, now, input),
        );
      },
      "write",
    );
  }
}

const profileTarget = (profile: Profile) => [{ type: "profile" as const, id: profile.profile_id }];

const suggestionTargets = (suggestion: Suggestion) => [
  { type: "profile" as const, id: suggestion.profile_a },
  { type: "profile" as const, id: suggestion.profile_b },
];
