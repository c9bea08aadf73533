import { LEVELS, type Level } from "../../contract/common";
import type { IdentifierObject, Merge, Profile } from "../../contract/identity";
import { Problem } from "../../http/problem";
import { findHandle, type HandleRecord, handlesFromSources, handlesOfRoot } from "./handle-store";
import { type HandleInput, normalizeHandle } from "./handles";
import { linksOfRoot, linkView } from "./links";
import { maskValue, type Visibility } from "./masking";
import { type MergeRecord, mergesOfRoot } from "./merges";
import { membersOf, type ProfileRecord, rootOf, type SubjectKind } from "./profiles";

/** Who reads: how much of a value they see, and for a `vendor` person the sources they may see. */
export interface Viewer {
  visibility: Visibility;
  /** Null: every source. */
  sources: readonly string[] | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Who a profile is, as a context answers it: the root that answers for it now, and the handles the viewer sees. */
export interface ProfileIdentity {
  profile_id: string;
  subject_kind: SubjectKind;
  level: Level;
  identifiers: IdentifierObject[];
}

/**
 * The identity of the profile that answers for `profileId` now; null when there is none, or when
 * a `vendor` person's sources wrote none of its handles.
 */
export function profileIdentity(sql: SqlStorage, profileId: string, viewer: Viewer): ProfileIdentity | null {
  return visibleProfile(sql, profileId, viewer)?.identity ?? null;
}

/**
 * A profile as `GET /v1/profiles/{id}` answers it, for the profile that answers for `profileId`
 * now; null when there is none, or when a `vendor` person's sources wrote none of its handles.
 */
export function profileView(sql: SqlStorage, profileId: string, viewer: Viewer): Profile | null {
  const visible = visibleProfile(sql, profileId, viewer);
  if (!visible) return null;
  const { identity, root } = visible;
  let merges = mergesOfRoot(sql, root.profileId);
  let links = linksOfRoot(sql, root.profileId);
  let merged = membersOf(sql, root.profileId).filter((id) => id !== root.profileId);
  if (viewer.sources !== null) {
    const sources = new Set(viewer.sources);
    merges = merges.filter((merge) => merge.sourceId !== null && sources.has(merge.sourceId));
    links = links.filter((link) => link.sourceId !== null && sources.has(link.sourceId));
    // Only the profiles merged in by merges the vendor sees: the others' ids would tell of merges hidden from them.
    const absorbed = new Set(merges.map((merge) => merge.absorbedId));
    merged = merged.filter((id) => absorbed.has(id));
  }
  return {
    ...identity,
    links: links.map((link) => linkView(sql, link)),
    merges: merges.map(mergeView),
    merged_profile_ids: merged,
    created_at: iso(root.createdAt),
  };
}

function visibleProfile(
  sql: SqlStorage,
  profileId: string,
  viewer: Viewer,
): { identity: ProfileIdentity; root: ProfileRecord } | null {
  const root = rootOf(sql, profileId);
  if (!root) return null;
  let handles = handlesOfRoot(sql, root.profileId);
  if (viewer.sources !== null) {
    const visible = handlesFromSources(sql, root.profileId, viewer.sources);
    handles = handles.filter((handle) => visible.has(handle.handleId));
    if (handles.length === 0) return null;
  }
  const identity = {
    profile_id: root.profileId,
    subject_kind: root.subjectKind,
    level: highestLevel(handles),
    identifiers: handles.map((handle) => identifierObject(handle, root.subjectKind, viewer.visibility)),
  };
  return { identity, root };
}

export function identifierObject(handle: HandleRecord, subjectKind: SubjectKind, visibility: Visibility): IdentifierObject {
  return {
    handle_id: handle.handleId,
    type: handle.type,
    value: maskValue(handle.type, handle.value, visibility) ?? "****",
    scope: handle.scope,
    subject_kind: subjectKind,
    status: handle.status,
    level: handle.level,
    first_seen: iso(handle.firstSeen),
    last_seen: iso(handle.lastSeen),
  };
}

export function mergeView(merge: MergeRecord): Merge {
  return {
    merge_id: merge.mergeId,
    survivor_id: merge.survivorId,
    absorbed_id: merge.absorbedId,
    method: merge.method,
    item_id: merge.itemId,
    source_id: merge.sourceId,
    created_at: iso(merge.createdAt),
    undone: merge.undoneAt !== null,
    undone_at: merge.undoneAt === null ? null : iso(merge.undoneAt),
  };
}

/** `no_customer` is outside the scale: a profile's level is the highest V0-V4 one of its handles. */
function highestLevel(handles: readonly HandleRecord[]): Level {
  let highest = 0;
  for (const handle of handles) {
    const at = LEVELS.indexOf(handle.level);
    if (handle.level !== "no_customer" && at > highest) highest = at;
  }
  return LEVELS[highest] ?? "V0";
}

/** `GET /v1/profiles/{id}`: an unknown id, or one the viewer may not see, is `404`. */
export function readProfile(sql: SqlStorage, profileId: string, viewer: Viewer): Profile {
  const profile = profileView(sql, profileId, viewer);
  if (!profile) throw new Problem("not_found", "no such profile");
  return profile;
}

/**
 * The profile that answers for a handle now, for a route that names its customer by handle. A
 * handle no profile holds and one the viewer may not see (a `vendor` person's, when only sources
 * outside the binding wrote it, whatever else of its profile they wrote) are the same `404`, one
 * status, code and `detail`: the answer never tells whether the handle exists.
 */
export function profileOfHandle(sql: SqlStorage, input: HandleInput, viewer: Viewer): string {
  const normalized = normalizeHandle(input);
  if (!normalized.ok) throw new Problem("invalid_input", `handle.value: ${normalized.rule}`);
  const handle = findHandle(sql, normalized.handle);
  const root = handle ? rootOf(sql, handle.profileId) : null;
  const seen =
    handle &&
    root &&
    (viewer.sources === null ||
      profileIdentity(sql, root.profileId, viewer)?.identifiers.some((identifier) => identifier.handle_id === handle.handleId));
  if (!seen) throw new Problem("not_found", "no profile holds this handle");
  return root.profileId;
}

/** `POST /v1/profiles/lookup`: the profile holding a handle. Looks only: an unknown handle creates nothing. */
export function lookupProfile(sql: SqlStorage, input: HandleInput, viewer: Viewer): Profile {
  return readProfile(sql, profileOfHandle(sql, input, viewer), viewer);
}
