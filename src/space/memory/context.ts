import type { Context, ContextAnswer, ContextInput } from "../../contract/context";
import { Problem } from "../../http/problem";
import { findHandle } from "../identity/handle-store";
import { normalizeHandle } from "../identity/handles";
import { linksOfRoot } from "../identity/links";
import { profileIdentity, type Viewer } from "../identity/profile-view";
import { membersOf, rootOf } from "../identity/profiles";
import { recordServedContext } from "../measurement/served-contexts";
import { compiledMemory, hurryCompile } from "./compiler";
import { type HotTier, LIVE_LIMIT } from "./hot-tier";
import { type LiveEntry, liveItemOf } from "./live";
import { latestSessionEvents } from "./session-events";
import { openSessionsOf } from "./sessions";
import { fingerprint } from "./stable-id";

/** What a context read needs besides the database: the hot tier, and what the caller already holds. */
export interface ContextRead {
  hot: HotTier;
  viewer: Viewer;
  knownEtag?: string | undefined;
  about?: ContextInput["about"];
  now: number;
}

/** A context answered and the profile it is of, which an `unchanged` answer does not say (the audit needs it). */
export interface AnsweredContext {
  profileId: string;
  answer: ContextAnswer;
}

/** `POST /v1/context`: the profile holding a handle. A read never creates anything: an unknown handle is `404`. */
export function contextOfHandle(sql: SqlStorage, handle: ContextInput["handle"], read: ContextRead): AnsweredContext {
  const normalized = normalizeHandle(handle);
  if (!normalized.ok) throw new Problem("invalid_input", `handle.value: ${normalized.rule}`);
  const found = findHandle(sql, normalized.handle);
  if (!found) throw new Problem("not_found", "no profile holds this handle");
  return contextOf(sql, found.profileId, read);
}

/**
 * The context of a profile (DESIGN 3.8): who it is, what is live in its open sessions (the hot
 * tier), and its compiled memory as it stands (never waiting for a compile). The ETag covers
 * everything but `as_of`.
 */
export function contextOf(sql: SqlStorage, profileId: string, read: ContextRead): AnsweredContext {
  const profile = profileIdentity(sql, profileId, read.viewer);
  if (!profile) throw new Problem("not_found", "no such profile");
  const members = membersOf(sql, profile.profile_id);
  const compiled = compiledMemory(sql, profile.profile_id, members);
  if (compiled.pending > 0) hurryCompile(sql, members);
  const { profile_id } = profile;
  const body: Omit<Context, "profile_id" | "etag" | "as_of"> = {
    compiled: {
      version: compiled.version,
      through: compiled.through === null ? null : new Date(compiled.through).toISOString(),
      pending: compiled.pending,
    },
    profile: { subject_kind: profile.subject_kind, level: profile.level, identifiers: profile.identifiers },
    live: read.hot.live(members, (member) => loadLive(sql, member)),
    memory: compiled.memory,
    ...(read.about ? { about: aboutOf(sql, profile.profile_id, read.about) } : {}),
  };
  const etag = `"${fingerprint(JSON.stringify([profile_id, body]))}"`;
  recordServedContext(sql, etag, profile_id, read.now);
  if (read.knownEtag === etag) return { profileId: profile_id, answer: { unchanged: true, etag } };
  return { profileId: profile_id, answer: { profile_id, etag, as_of: new Date(read.now).toISOString(), ...body } };
}

/**
 * The organization a person acts for, with its memory, when an active link joins them. Without
 * one the answer is the same whether or not the organization exists.
 */
function aboutOf(sql: SqlStorage, personRoot: string, about: NonNullable<ContextInput["about"]>): Context["about"] {
  const refused = () => new Problem("about_without_link", "about: no active link between the person and this organization");
  let organization: string | null = null;
  if (about.profile_id !== undefined) organization = rootOf(sql, about.profile_id)?.profileId ?? null;
  else if (about.handle) {
    const normalized = normalizeHandle(about.handle);
    if (!normalized.ok) throw new Problem("invalid_input", `about.handle.value: ${normalized.rule}`);
    const handle = findHandle(sql, normalized.handle);
    organization = handle ? (rootOf(sql, handle.profileId)?.profileId ?? null) : null;
  }
  if (organization === null) throw refused();
  const link = linksOfRoot(sql, personRoot).find(
    (candidate) =>
      candidate.status === "active" &&
      rootOf(sql, candidate.organizationId)?.profileId === organization &&
      rootOf(sql, candidate.personId)?.profileId === personRoot,
  );
  const root = rootOf(sql, organization);
  if (!link || !root) throw refused();
  return {
    profile_id: root.profileId,
    subject_kind: root.subjectKind,
    link: { link_id: link.linkId, kind: link.kind, role: link.role },
    memory: compiledMemory(sql, root.profileId, membersOf(sql, root.profileId)).memory,
  };
}

/** A profile's live entries from SQLite: the latest events of its open sessions (the hot tier's loader). */
export function loadLive(sql: SqlStorage, profileId: string): LiveEntry[] {
  const entries: LiveEntry[] = [];
  for (const session of openSessionsOf(sql, [profileId])) {
    for (const row of latestSessionEvents(sql, session.sessionId, LIVE_LIMIT)) {
      entries.push({
        sessionId: session.sessionId,
        profileId,
        occurredAt: row.occurred_at,
        seq: row.seq,
        item: liveItemOf(row.item_id, row.occurred_at, JSON.parse(row.body)),
      });
    }
  }
  return entries;
}
