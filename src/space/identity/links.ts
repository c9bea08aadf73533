import type { Link, LinkInput } from "../../contract/identity";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { handleUnderErasure } from "../privacy/arrivals";
import { findHandle, insertHandles, newHandle } from "./handle-store";
import { type Handle, type HandleInput, normalizeHandle } from "./handles";
import { createProfile, findProfile, rootOf, type SubjectKind } from "./profiles";

interface LinkRow {
  link_id: string;
  person_id: string;
  organization_id: string;
  kind: string;
  role: string | null;
  source_id: string | null;
  status: string;
  created_at: number;
  ended_at: number | null;
  [column: string]: SqlStorageValue;
}

export interface LinkRecord {
  linkId: string;
  personId: string;
  organizationId: string;
  kind: "account" | "partner";
  role: string | null;
  sourceId: string | null;
  status: "active" | "ended";
  createdAt: number;
  endedAt: number | null;
}

const record = (row: LinkRow): LinkRecord => ({
  linkId: row.link_id,
  personId: row.person_id,
  organizationId: row.organization_id,
  kind: row.kind as LinkRecord["kind"],
  role: row.role,
  sourceId: row.source_id,
  status: row.status as LinkRecord["status"],
  createdAt: row.created_at,
  endedAt: row.ended_at,
});

export type LinkSide = { handle?: HandleInput | undefined; profile_id?: string | undefined };

/**
 * The profile a side of a link names: a profile id that must exist, or a handle, created with a
 * profile of `kind` when the space does not know it yet.
 */
function profileOfSide(
  sql: SqlStorage,
  side: LinkSide,
  field: string,
  kind: SubjectKind,
  sourceId: string | null,
  now: number,
): string {
  if (side.profile_id !== undefined) {
    if (!findProfile(sql, side.profile_id)) throw new Problem("not_found", `${field}.profile_id: unknown_profile`);
    return side.profile_id;
  }
  const normalized = normalizeHandle(side.handle ?? { type: "", value: "" });
  if (!normalized.ok) throw new Problem("invalid_input", `${field}.handle.value: ${normalized.rule}`);
  return profileOfHandle(sql, normalized.handle, kind, sourceId, now);
}

/**
 * The profile that holds a handle; an unknown handle gets a new profile of `kind` (links, media
 * reserved under a subject), except one of a subject being erased: `404` until its receipt.
 */
export function profileOfHandle(
  sql: SqlStorage,
  handle: Handle,
  kind: SubjectKind,
  sourceId: string | null,
  now: number,
): string {
  const known = findHandle(sql, handle);
  if (known) return known.profileId;
  if (handleUnderErasure(sql, handle)) throw new Problem("not_found", "the subject is being erased");
  const profileId = createProfile(sql, kind, now);
  insertHandles(sql, [newHandle(handle, profileId, now, sourceId, now)]);
  return profileId;
}

/** `POST /v1/identity/links`: the sides resolved (handles created when unknown), then an active link. */
export function linkProfiles(sql: SqlStorage, input: LinkInput, sourceId: string | null, now: number): Link {
  const personId = profileOfSide(sql, input.person, "person", "person", sourceId, now);
  const organizationId = profileOfSide(sql, input.organization, "organization", input.kind, sourceId, now);
  const link = createLink(sql, { personId, organizationId, kind: input.kind, role: input.role ?? null, sourceId }, now);
  return linkView(sql, link);
}

function createLink(
  sql: SqlStorage,
  link: { personId: string; organizationId: string; kind: LinkRecord["kind"]; role: string | null; sourceId: string | null },
  now: number,
): LinkRecord {
  if (rootOf(sql, link.personId)?.profileId === rootOf(sql, link.organizationId)?.profileId) {
    throw new Problem("invalid_input", "organization: same_profile_as_person");
  }
  const created: LinkRecord = { ...link, linkId: uuidv7(now), status: "active", createdAt: now, endedAt: null };
  sql.exec(
    "INSERT INTO links (link_id, person_id, organization_id, kind, role, source_id, status, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
    created.linkId,
    created.personId,
    created.organizationId,
    created.kind,
    created.role,
    created.sourceId,
    created.status,
    now,
  );
  return created;
}

/** Ends a link; ending an ended link answers it as it is. */
export function endLink(sql: SqlStorage, linkId: string, now: number): LinkRecord {
  const row = sql.exec<LinkRow>("SELECT * FROM links WHERE link_id = ?", linkId).toArray()[0];
  if (!row) throw new Problem("not_found", "no such link");
  const link = record(row);
  if (link.status === "ended") return link;
  sql.exec("UPDATE links SET status = 'ended', ended_at = ? WHERE link_id = ?", now, linkId);
  return { ...link, status: "ended", endedAt: now };
}

/** The links of a root's profiles, on either side, oldest first. */
export function linksOfRoot(sql: SqlStorage, rootId: string): LinkRecord[] {
  return sql
    .exec<LinkRow>(
      `SELECT DISTINCT l.* FROM links l JOIN profiles p ON p.profile_id IN (l.person_id, l.organization_id)
       WHERE p.root_id = ? ORDER BY l.created_at, l.link_id`,
      rootId,
    )
    .toArray()
    .map(record);
}

/** A link as answered: each side as the profile that answers for it now. */
export function linkView(sql: SqlStorage, link: LinkRecord): Link {
  return {
    link_id: link.linkId,
    person_id: rootOf(sql, link.personId)?.profileId ?? link.personId,
    organization_id: rootOf(sql, link.organizationId)?.profileId ?? link.organizationId,
    kind: link.kind,
    role: link.role,
    status: link.status,
    created_at: new Date(link.createdAt).toISOString(),
    ended_at: link.endedAt === null ? null : new Date(link.endedAt).toISOString(),
  };
}
