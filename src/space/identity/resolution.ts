import { LEVELS, type Level } from "../../contract/common";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { type CoOccurrence, coOccurrence, noteCoOccurrences } from "./evidence";
import {
  findHandle,
  findHandles,
  type HandleRecord,
  insertHandles,
  newHandle,
  noteHandleSource,
  setHandleLevel,
  touchHandles,
} from "./handle-store";
import type { Handle } from "./handles";
import { type MergeEvidence, mergeRoots } from "./merges";
import { noteObjectOwners, objectOwner } from "./objects";
import { createProfile, findProfile, insertProfiles, type ProfileRecord, rootOf, rootsOf, type SubjectKind } from "./profiles";

const keyOf = (handle: Handle) => `${handle.type}\n${handle.scope}\n${handle.value}`;
const objectKey = (object: { type: string; id: string }) => `${object.type}\n${object.id}`;

/**
 * Resolves the items of one batch to profiles (DESIGN 3.5), inside the batch's transaction.
 * Handles met in the batch are kept in memory (a batch often names one customer many times),
 * and their seen times are written once per handle at the end, only where they widened. What
 * events create (profiles, handles, object owners, meetings) is stored together, one statement
 * each, before anything reads or changes identity in SQLite (`#store`).
 */
export class Resolution {
  #handles = new Map<string, HandleRecord>();
  /** After `prefetch`, a handle missing from `#handles` is not stored: no lookup needed. */
  #complete = false;
  #seen = new Map<HandleRecord, { first: number; last: number }>();
  /** Handles created by the batch and not stored yet (`#store`). */
  #created: HandleRecord[] = [];
  /** Roots met in the batch; forgotten at every merge. */
  #roots = new Map<string, string | null>();
  /** Created by events and not stored yet (`#store`). */
  #profiles: { profileId: string; subjectKind: SubjectKind }[] = [];
  #owners = new Map<string, { type: string; id: string; profileId: string }>();
  #meetings = new Map<string, CoOccurrence>();

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
    const known = refs.handles.map((handle) => this.#find(handle));
    let profileId: string | null = null;
    if (refs.profileId !== undefined) {
      if (!findProfile(this.sql, refs.profileId)) throw new Problem("not_found", "subject.profile_id: unknown_profile");
      profileId = refs.profileId;
    }
    profileId ??= known.find((handle) => handle !== null)?.profileId ?? null;
    if (profileId === null && refs.object) profileId = this.#ownerOf(refs.object);
    profileId ??= this.#newProfile();
    const records = this.#attach(refs.handles, known, profileId, at);
    this.#noteMeetings(records, profileId);
    if (refs.object && !this.#owners.has(objectKey(refs.object))) {
      this.#owners.set(objectKey(refs.object), { ...refs.object, profileId });
    }
    return profileId;
  }

  /** `identify`: the handles are one subject. Their profiles merge into the oldest; unknown handles join it. */
  identify(handles: readonly Handle[], subjectKind: SubjectKind, evidence: MergeEvidence, at: number): string {
    this.#store();
    const known = handles.map((handle) => this.#find(handle));
    const roots = new Map<string, ProfileRecord>();
    for (const handle of known) {
      const root = handle && rootOf(this.sql, handle.profileId);
      if (root) roots.set(root.profileId, root);
    }
    if (roots.size > 1) this.#roots.clear();
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
    this.#store();
    for (const handle of handles) {
      const record = this.#find(handle);
      if (record && LEVELS.indexOf(record.level) < LEVELS.indexOf(level)) {
        setHandleLevel(this.sql, record.handleId, level);
        record.level = level;
      }
    }
    return profileId;
  }

  /** Reads every stored handle the batch names, and their profiles' roots, in two statements instead of one lookup each. */
  prefetch(handles: readonly Handle[]): void {
    const distinct = new Map(handles.map((handle) => [keyOf(handle), handle]));
    for (const record of findHandles(this.sql, [...distinct.values()])) this.#handles.set(keyOf(record), record);
    const profileIds = new Set([...this.#handles.values()].map((record) => record.profileId));
    for (const [profileId, root] of rootsOf(this.sql, [...profileIds])) this.#roots.set(profileId, root);
    this.#complete = true;
  }

  /** A handle the batch named, as it stands now (before `finish`): its id and the profile it belongs to. */
  recordOf(handle: Handle): HandleRecord | undefined {
    return this.#handles.get(keyOf(handle));
  }

  /** Writes the seen times that widened a handle's, in one statement. */
  finish(): void {
    this.#store();
    const widened = [...this.#seen].filter(([record, { first, last }]) => first < record.firstSeen || last > record.lastSeen);
    touchHandles(
      this.sql,
      widened.map(([record, seen]) => ({ handleId: record.handleId, ...seen })),
      this.now,
    );
    this.#seen.clear();
    this.#handles.clear();
    this.#roots.clear();
    this.#complete = false;
  }

  #store(): void {
    insertProfiles(this.sql, this.#profiles, this.now);
    insertHandles(this.sql, this.#created);
    noteObjectOwners(this.sql, [...this.#owners.values()]);
    noteCoOccurrences(this.sql, [...this.#meetings.values()]);
    this.#profiles = [];
    this.#created = [];
    this.#owners.clear();
    this.#meetings.clear();
  }

  /** A new profile of a person, stored with the rest at `#store`. */
  #newProfile(): string {
    const profileId = uuidv7(this.now);
    this.#profiles.push({ profileId, subjectKind: "person" });
    this.#roots.set(profileId, profileId);
    return profileId;
  }

  /** An object's first owner: stored, else met earlier in the batch (as `INSERT OR IGNORE` would keep). */
  #ownerOf(object: { type: string; id: string }): string | null {
    return objectOwner(this.sql, object.type, object.id) ?? this.#owners.get(objectKey(object))?.profileId ?? null;
  }

  #rootOf(profileId: string): string | null {
    let root = this.#roots.get(profileId);
    if (root === undefined) {
      root = rootOf(this.sql, profileId)?.profileId ?? null;
      this.#roots.set(profileId, root);
    }
    return root;
  }

  #find(handle: Handle): HandleRecord | null {
    const key = keyOf(handle);
    const cached = this.#handles.get(key);
    if (cached || this.#complete) return cached ?? null;
    const found = findHandle(this.sql, handle);
    if (found) this.#handles.set(key, found);
    return found;
  }

  #attach(handles: readonly Handle[], known: (HandleRecord | null)[], profileId: string, at: number): HandleRecord[] {
    return handles.map((handle, index) => {
      // An unknown handle may stand twice in one item: the first time created it.
      let record = known[index] ?? this.#handles.get(keyOf(handle)) ?? null;
      if (!record) {
        record = newHandle(handle, profileId, at, this.sourceId, this.now);
        this.#created.push(record);
        this.#handles.set(keyOf(handle), record);
      }
      noteHandleSource(this.sql, record, this.sourceId);
      const seen = this.#seen.get(record);
      this.#seen.set(record, seen ? { first: Math.min(seen.first, at), last: Math.max(seen.last, at) } : { first: at, last: at });
      return record;
    });
  }

  /** Handles of other profiles in the same event are evidence for a suggestion, never a merge. */
  #noteMeetings(records: readonly HandleRecord[], profileId: string): void {
    if (records.every((record) => record.profileId === profileId)) return;
    const root = this.#rootOf(profileId);
    const own = records.find((record) => record.profileId === profileId) ?? records[0];
    const met = new Set<string>();
    for (const record of records) {
      const other = this.#rootOf(record.profileId);
      if (!other || other === root || !root || !own || met.has(other)) continue;
      met.add(other);
      const meeting = coOccurrence({ profileId: root, handleId: own.handleId }, { profileId: other, handleId: record.handleId });
      const key = `${meeting.profileA}\n${meeting.profileB}`;
      const known = this.#meetings.get(key);
      if (known) known.count++;
      else this.#meetings.set(key, meeting);
    }
  }
}
