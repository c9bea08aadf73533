import { LEVELS, type Level } from "../../contract/common";
import { Problem } from "../../http/problem";
import { noteCoOccurrence } from "./evidence";
import { findHandle, type HandleRecord, insertHandle, noteHandleSource, setHandleLevel, touchHandle } from "./handle-store";
import type { Handle } from "./handles";
import { type MergeEvidence, mergeRoots } from "./merges";
import { noteObjectOwner, objectOwner } from "./objects";
import { createProfile, findProfile, type ProfileRecord, rootOf, type SubjectKind } from "./profiles";

/**
 * Resolves the items of one batch to profiles (DESIGN 3.5), inside the batch's transaction.
 * Handle times and sources are gathered and written once per handle at the end of the batch,
 * not once per event.
 */
export class Resolution {
  #seen = new Map<string, { first: number; last: number }>();
  #sources = new Set<string>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly sourceId: string,
    private readonly now: number,
  ) {}

  /**
   * An event's profile: that of `subject.profile_id`, else of its first known handle (the
   * subject's handle first), else of its object; a new one when none is known. Unknown handles
   * join it. Known handles of another profile are never merged: their meeting is evidence.
   */
  event(refs: { profileId?: string; handles: readonly Handle[]; object?: { type: string; id: string } }, at: number): string {
    const known = refs.handles.map((handle) => findHandle(this.sql, handle));
    let profileId: string | null = null;
    if (refs.profileId !== undefined) {
      if (!findProfile(this.sql, refs.profileId)) throw new Problem("not_found", "subject.profile_id: unknown_profile");
      profileId = refs.profileId;
    }
    profileId ??= known.find((handle) => handle !== null)?.profileId ?? null;
    if (profileId === null && refs.object) profileId = objectOwner(this.sql, refs.object.type, refs.object.id);
    profileId ??= createProfile(this.sql, "person", this.now);
    const records = this.#attach(refs.handles, known, profileId, at);
    this.#noteMeetings(records, profileId);
    if (refs.object) noteObjectOwner(this.sql, refs.object.type, refs.object.id, profileId);
    return profileId;
  }

  /** `identify`: the handles are one subject. Their profiles merge into the oldest; unknown handles join it. */
  identify(handles: readonly Handle[], subjectKind: SubjectKind, evidence: MergeEvidence, at: number): string {
    const known = handles.map((handle) => findHandle(this.sql, handle));
    const roots = new Map<string, ProfileRecord>();
    for (const handle of known) {
      const root = handle && rootOf(this.sql, handle.profileId);
      if (root) roots.set(root.profileId, root);
    }
    const profileId =
      roots.size === 0
        ? createProfile(this.sql, subjectKind, this.now)
        : mergeRoots(this.sql, [...roots.values()], evidence, this.now);
    this.#attach(handles, known, profileId, at);
    return profileId;
  }

  /** `verify`: the handles it names (joined like an event's) reach at least `level`. */
  verify(handles: readonly Handle[], level: Level, at: number): string | null {
    if (handles.length === 0) return null;
    const profileId = this.event({ handles }, at);
    if (level === "no_customer") return profileId;
    for (const handle of handles) {
      const record = findHandle(this.sql, handle);
      if (record && LEVELS.indexOf(record.level) < LEVELS.indexOf(level)) setHandleLevel(this.sql, record.handleId, level);
    }
    return profileId;
  }

  /** Writes the gathered handle times and sources. */
  finish(): void {
    for (const [handleId, { first, last }] of this.#seen) touchHandle(this.sql, handleId, first, last);
    for (const pair of this.#sources) {
      const [handleId = "", sourceId = ""] = pair.split("\n");
      noteHandleSource(this.sql, handleId, sourceId);
    }
    this.#seen.clear();
    this.#sources.clear();
  }

  #attach(handles: readonly Handle[], known: (HandleRecord | null)[], profileId: string, at: number): HandleRecord[] {
    return handles.map((handle, index) => {
      // The same handle twice in one item, or created by an earlier item of the batch.
      const record = known[index] ?? findHandle(this.sql, handle) ?? insertHandle(this.sql, handle, profileId, at, this.now);
      const seen = this.#seen.get(record.handleId);
      this.#seen.set(
        record.handleId,
        seen ? { first: Math.min(seen.first, at), last: Math.max(seen.last, at) } : { first: at, last: at },
      );
      this.#sources.add(`${record.handleId}\n${this.sourceId}`);
      return record;
    });
  }

  /** Handles of other profiles in the same event are evidence for a suggestion, never a merge. */
  #noteMeetings(records: readonly HandleRecord[], profileId: string): void {
    if (records.every((record) => record.profileId === profileId)) return;
    const root = rootOf(this.sql, profileId)?.profileId;
    const own = records.find((record) => record.profileId === profileId) ?? records[0];
    const met = new Set<string>();
    for (const record of records) {
      const other = rootOf(this.sql, record.profileId)?.profileId;
      if (!other || other === root || !root || !own || met.has(other)) continue;
      met.add(other);
      noteCoOccurrence(this.sql, { profileId: root, handleId: own.handleId }, { profileId: other, handleId: record.handleId });
    }
  }
}
