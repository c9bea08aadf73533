import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import {
  type Link,
  LinkInputSchema,
  LookupInputSchema,
  type Merge,
  type Profile,
  type Suggestion,
  type SuggestionQuery,
} from "../../contract/identity";
import { type BodyInput, parseJsonBody } from "../../http/body";
import { parseOrRefuse } from "../../http/issues";
import type { Outcome } from "../../http/problem";
import type { IdempotencyRequest } from "../../idempotency";
import { viewerOf } from "../access";
import { queueProfile } from "../memory/compiler";
import type { SpaceRequests } from "../requests";
import { endLink, linkProfiles, linkView } from "./links";
import { undoMerge } from "./merges";
import { lookupProfile, mergeView, readProfile } from "./profile-view";
import { type JobStatus, suggestionJobStatus } from "./suggestion-job";
import { acceptSuggestion, dismissSuggestion, listSuggestions } from "./suggestions";

type SuggestionPage = { data: Suggestion[]; next_cursor: string | null; job: JobStatus };

/** The identity routes of a space: profiles, merges, links and suggestions (docs/api/identity.md). */
export class IdentityRequests {
  #space: SpaceRequests;

  constructor(space: SpaceRequests) {
    this.#space = space;
  }

  readProfile(credential: PresentedCredential, profileId: string, requestId: string | null): Promise<Outcome<Profile>> {
    const space = this.#space;
    const audit = { action: "profile.read" as const, requestId, asked: { type: "profile" as const, id: profileId } };
    return space.readByPerson(credential, { ...audit, targetsOf: profileTarget }, () =>
      space.admitted(credential, POLICIES.profileRead, (caller) => readProfile(space.sql, profileId, viewerOf(caller))),
    );
  }

  lookupProfile(credential: PresentedCredential, body: BodyInput, requestId: string | null): Promise<Outcome<Profile>> {
    const space = this.#space;
    return space.readByPerson(credential, { action: "profile.lookup", requestId, targetsOf: profileTarget }, () =>
      space.admitted(credential, POLICIES.profileRead, (caller) => {
        const { handle } = parseOrRefuse(LookupInputSchema, parseJsonBody(body));
        return lookupProfile(space.sql, handle, viewerOf(caller));
      }),
    );
  }

  undoMerge(
    credential: PresentedCredential,
    mergeId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<Merge>> {
    const space = this.#space;
    const audit = space.audit<Merge>(credential, "merge.undo", requestId, [{ type: "merge", id: mergeId }]);
    audit.targetsOf = (merge) => [
      { type: "profile", id: merge.survivor_id },
      { type: "profile", id: merge.absorbed_id },
    ];
    return space.audited(audit, () =>
      space.idempotent(credential, POLICIES.identityReview, idempotency, (_caller, now) => {
        const merge = undoMerge(space.sql, mergeId, now);
        queueProfile(space.sql, [merge.survivorId, merge.absorbedId], now);
        return mergeView(merge);
      }),
    );
  }

  createLink(credential: PresentedCredential, body: BodyInput, idempotency: IdempotencyRequest): Promise<Outcome<Link>> {
    const space = this.#space;
    const input = () => parseOrRefuse(LinkInputSchema, parseJsonBody(body));
    return space.idempotent(
      credential,
      POLICIES.identity,
      idempotency,
      (caller, now, link) => linkProfiles(space.sql, link, caller.source?.sourceId ?? null, now),
      input,
    );
  }

  endLink(credential: PresentedCredential, linkId: string, idempotency: IdempotencyRequest): Promise<Outcome<Link>> {
    const space = this.#space;
    return space.idempotent(credential, POLICIES.identity, idempotency, (_caller, now) =>
      linkView(space.sql, endLink(space.sql, linkId, now)),
    );
  }

  listSuggestions(credential: PresentedCredential, query: SuggestionQuery): Promise<Outcome<SuggestionPage>> {
    const space = this.#space;
    return space.admitted(credential, POLICIES.identity, async (caller) => ({
      ...(await space.paged("suggestions", query.cursor, "query.cursor", (cursor) =>
        listSuggestions(space.sql, { ...query, cursor }, viewerOf(caller).visibility),
      )),
      job: suggestionJobStatus(space.sql),
    }));
  }

  dismissSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<Suggestion>> {
    const space = this.#space;
    const audit = space.audit(credential, "suggestion.dismiss", requestId, [{ type: "suggestion", id: suggestionId }]);
    return space.audited({ ...audit, targetsOf: suggestionTargets }, () =>
      space.idempotent(credential, POLICIES.identity, idempotency, (caller, now) =>
        dismissSuggestion(space.sql, suggestionId, now, viewerOf(caller).visibility),
      ),
    );
  }

  acceptSuggestion(
    credential: PresentedCredential,
    suggestionId: string,
    idempotency: IdempotencyRequest,
    requestId: string | null,
  ): Promise<Outcome<Suggestion>> {
    const space = this.#space;
    const audit = space.audit(credential, "suggestion.accept", requestId, [{ type: "suggestion", id: suggestionId }]);
    return space.audited({ ...audit, targetsOf: suggestionTargets }, () =>
      space.idempotent(credential, POLICIES.identityReview, idempotency, (caller, now) => {
        const personId = caller.principal.kind === "person" ? caller.principal.personId : "";
        const { suggestion, survivor } = acceptSuggestion(space.sql, suggestionId, personId, now, viewerOf(caller).visibility);
        // The absorbed profile's memory joins the survivor's, as after an `identify` that merges.
        if (survivor !== null) queueProfile(space.sql, [survivor], now);
        return suggestion;
      }),
    );
  }
}

const profileTarget = (profile: Profile) => [{ type: "profile" as const, id: profile.profile_id }];

const suggestionTargets = (suggestion: Suggestion) => [
  { type: "profile" as const, id: suggestion.profile_a },
  { type: "profile" as const, id: suggestion.profile_b },
];
