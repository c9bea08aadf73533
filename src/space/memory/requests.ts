import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import type { AuditTarget } from "../../contract/audit";
import type { BatchAnswer } from "../../contract/batch";
import { type ContextAnswer, ContextInputSchema } from "../../contract/context";
import {
  type HistoryItem,
  HistoryOpenInputSchema,
  TimelineInputSchema,
  type TimelinePage,
  type TimelineQuery,
} from "../../contract/history";
import type { ContextUseQuery, ContextUseReport } from "../../contract/measurement";
import { type ProfileSearchQuery, SearchInputSchema, type SearchPage } from "../../contract/search";
import { type BodyInput, parseJsonBody } from "../../http/body";
import { parseOrRefuse } from "../../http/issues";
import { type Outcome, ok } from "../../http/problem";
import { type Caller, viewerOf } from "../access";
import { contextUseReport } from "../measurement/context-use";
import type { SpaceRequests } from "../requests";
import { indexBacklogLength } from "../search/backlog";
import { searchProfile, searchSpace } from "../search/search";
import { compileEventsWaiting, compileQueueLength } from "./compiler";
import { type AnsweredContext, contextOf, contextOfHandle } from "./context";
import { ingestFeedback } from "./feedback";
import { DEFAULT_HISTORY_TEXT_LEVEL, historyItem, openHistory, showsText } from "./history";
import { timelineOf, timelineOfHandle, timelineRequest } from "./timeline";

const profileTarget = (id: string): AuditTarget => ({ type: "profile", id });
const historyTarget = (item: HistoryItem) => [profileTarget(item.profile_id)];
const timelineTarget = (page: TimelinePage) => [profileTarget(page.profile_id)];

/** The routes that read a space's memory: context, search, history, timeline, and the feedback and use that measure it. */
export class MemoryRequests {
  #space: SpaceRequests;

  constructor(space: SpaceRequests) {
    this.#space = space;
  }

  readContext(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<ContextAnswer>> {
    return this.#context(credential, requestId, undefined, (caller, now) => {
      const input = parseOrRefuse(ContextInputSchema, parseJsonBody(body));
      const read = { hot: this.#space.hot, viewer: viewerOf(caller), knownEtag: input.known_etag, about: input.about, now };
      return contextOfHandle(this.#space.sql, input.handle, read);
    });
  }

  profileContext(credential: PresentedCredential, profileId: string, requestId: string | null): Promise<Outcome<ContextAnswer>> {
    return this.#context(credential, requestId, profileTarget(profileId), (caller, now) =>
      contextOf(this.#space.sql, profileId, { hot: this.#space.hot, viewer: viewerOf(caller), now }),
    );
  }

  /** A context read, audited for a person with the profile answered (an `unchanged` answer too). */
  async #context(
    credential: PresentedCredential,
    requestId: string | null,
    asked: AuditTarget | undefined,
    read: (caller: Caller, now: number) => AnsweredContext,
  ): Promise<Outcome<ContextAnswer>> {
    const space = this.#space;
    const targetsOf = ({ profileId }: AnsweredContext) => [profileTarget(profileId)];
    const outcome = await space.readByPerson(credential, { action: "context.read", requestId, targetsOf, asked }, () =>
      space.admitted(credential, POLICIES.context, read),
    );
    return outcome.ok ? ok(outcome.value.answer) : outcome;
  }

  /** `POST /v1/search` (a body) and `GET /v1/profiles/{id}/search` (a profile id and its query string). */
  search(
    credential: PresentedCredential,
    request: { body: BodyInput } | { profileId: string; query: ProfileSearchQuery },
    requestId: string | null,
  ): Promise<Outcome<SearchPage>> {
    const space = this.#space;
    // Messages not indexed yet are indexed in a transaction of their own before the search reads.
    const committed = (work: () => void) => space.db.transaction(work);
    const targetsOf = (page: SearchPage) => [...new Set(page.results.map((result) => result.profile_id))].map(profileTarget);
    const asked = "profileId" in request ? profileTarget(request.profileId) : undefined;
    return space.readByPerson(credential, { action: "search.read", requestId, targetsOf, asked }, () =>
      space.admitted(credential, POLICIES.search, (caller) => {
        const viewer = viewerOf(caller);
        if ("profileId" in request) {
          const { profileId, query } = request;
          return space.paged("search", query.cursor, "query.cursor", (cursor) =>
            searchProfile(space.sql, profileId, { ...query, cursor }, viewer, space.searchTerms, committed),
          );
        }
        const input = parseOrRefuse(SearchInputSchema, parseJsonBody(request.body));
        return space.paged("search", input.cursor, "cursor", (cursor) =>
          searchSpace(space.sql, { ...input, cursor }, viewer, space.searchTerms, committed),
        );
      }),
    );
  }

  /** `POST /v1/history/open`: text at the space's `history_text_level`, against the verification claimed (capped by the source's ceiling). */
  openHistory(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<HistoryItem>> {
    const space = this.#space;
    return space.readByPerson(credential, { action: "history.read", requestId, targetsOf: historyTarget }, () =>
      space.admitted(credential, POLICIES.context, (caller, now) => {
        const { verification, ...input } = parseOrRefuse(HistoryOpenInputSchema, parseJsonBody(body));
        const showText = showsText(verification, this.#textLevel(), caller.source?.verificationCeiling ?? null);
        return openHistory(space.sql, input, { viewer: viewerOf(caller), showText, now });
      }),
    );
  }

  /** `GET /v1/history/items/{item_id}`: no customer and no verification in the request, so read as `V0`. */
  historyItem(credential: PresentedCredential, itemId: string, requestId: string | null): Promise<Outcome<HistoryItem>> {
    const space = this.#space;
    return space.readByPerson(credential, { action: "history.read", requestId, targetsOf: historyTarget }, () =>
      space.admitted(credential, POLICIES.context, (caller, now) => {
        const showText = showsText("V0", this.#textLevel(), null);
        return historyItem(space.sql, itemId, { viewer: viewerOf(caller), showText, now });
      }),
    );
  }

  readTimeline(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<TimelinePage>> {
    const space = this.#space;
    return space.readByPerson(credential, { action: "timeline.read", requestId, targetsOf: timelineTarget }, () =>
      space.admitted(credential, POLICIES.context, (caller) => {
        const input = parseOrRefuse(TimelineInputSchema, parseJsonBody(body));
        return space.paged("timeline", input.cursor, "cursor", (cursor) =>
          timelineOfHandle(space.sql, input.handle, timelineRequest({ ...input, cursor }, "cursor", viewerOf(caller))),
        );
      }),
    );
  }

  profileTimeline(
    credential: PresentedCredential,
    profileId: string,
    query: TimelineQuery,
    requestId: string | null,
  ): Promise<Outcome<TimelinePage>> {
    const space = this.#space;
    const audit = { action: "timeline.read" as const, requestId, targetsOf: timelineTarget, asked: profileTarget(profileId) };
    return space.readByPerson(credential, audit, () =>
      space.admitted(credential, POLICIES.context, (caller) => {
        const channels = query.channels?.split(",");
        return space.paged("timeline", query.cursor, "query.cursor", (cursor) =>
          timelineOf(space.sql, profileId, timelineRequest({ ...query, channels, cursor }, "query.cursor", viewerOf(caller))),
        );
      }),
    );
  }

  giveFeedback(credential: PresentedCredential, body: BodyInput): Promise<Outcome<BatchAnswer>> {
    const space = this.#space;
    return space.admitted(
      credential,
      POLICIES.feedback,
      ({ principal }, now) => {
        const giver =
          principal.kind === "key"
            ? { sourceId: principal.sourceId, keyId: principal.keyId, test: principal.mode === "test" }
            : { sourceId: `person:${principal.personId}`, keyId: `person:${principal.personId}`, test: false };
        const answer = ingestFeedback(space.intake, giver, parseJsonBody(body), now, space.replica().config.values);
        space.limits.eventsAccepted(answer.accepted, now);
        return answer;
      },
      "events",
    );
  }

  contextUse(credential: PresentedCredential, query: ContextUseQuery): Promise<Outcome<ContextUseReport>> {
    return this.#space.admitted(credential, POLICIES.measurement, (_caller, now) =>
      contextUseReport(this.#space.sql, query, now),
    );
  }

  /** What the hot tier holds against its budget, and what waits for the compiler (operators, the benchmark). */
  memoryStats(): Record<
    "hot_tier_bytes" | "hot_tier_budget_bytes" | "compile_queue" | "compile_events" | "search_backlog",
    number
  > {
    const { hot, sql } = this.#space;
    return {
      hot_tier_bytes: hot.bytes,
      hot_tier_budget_bytes: hot.budgetBytes,
      compile_queue: compileQueueLength(sql),
      compile_events: compileEventsWaiting(sql),
      search_backlog: indexBacklogLength(sql),
    };
  }

  #textLevel() {
    return this.#space.replica().config.values.history_text_level ?? DEFAULT_HISTORY_TEXT_LEVEL;
  }
}
