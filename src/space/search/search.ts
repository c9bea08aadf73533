import type { ProfileSearchQuery, SearchInput, SearchPage } from "../../contract/search";
import { lookupProfile, readProfile, type Viewer } from "../identity/profile-view";
import { catchUpIndex } from "./backlog";
import { search, type TermCache } from "./query";

/**
 * Runs work in a transaction of its own, committed when it returns: FTS5 writes the totals that
 * ranking reads (`statistics.ts`) at the commit, so messages indexed before a search are indexed
 * in one.
 */
export type Committed = (work: () => void) => void;

/**
 * `POST /v1/search`: the whole space, or the profile holding `handle` (an unknown handle is
 * `404` and creates nothing). A vendor searches only what their sources wrote.
 */
export function searchSpace(
  sql: SqlStorage,
  input: SearchInput,
  viewer: Viewer,
  cache: TermCache,
  committed: Committed,
): SearchPage {
  const profile = input.handle ? lookupProfile(sql, input.handle, viewer) : null;
  const members = profile ? [profile.profile_id, ...profile.merged_profile_ids] : null;
  committed(() => catchUpIndex(sql, members));
  return search(sql, { ...input, cursorPlace: "cursor", members, sources: viewer.sources }, cache);
}

/** `GET /v1/profiles/{id}/search`: a merged-away id searches its survivor, with every profile merged into it. */
export function searchProfile(
  sql: SqlStorage,
  profileId: string,
  query: ProfileSearchQuery,
  viewer: Viewer,
  cache: TermCache,
  committed: Committed,
): SearchPage {
  const profile = readProfile(sql, profileId, viewer);
  const members = [profile.profile_id, ...profile.merged_profile_ids];
  committed(() => catchUpIndex(sql, members));
  const { q, ...rest } = query;
  return search(sql, { ...rest, query: q, cursorPlace: "query.cursor", members, sources: viewer.sources }, cache);
}
