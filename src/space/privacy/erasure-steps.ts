import { deleteSessions } from "../memory/sessions";
import { idToken } from "../search/tokens";
import { deleteTimers } from "../timers";
import { conversationsOf, eraseSessionControls } from "./conversation-erasure";
import { type ErasedFile, forgetEvidence, forgetKeptAnswers } from "./identity-cut";
import { erasedHandleKeys, withoutHandles } from "./mentions";
import type { ErasureCounts } from "./receipts";
import { deleteSearchRows, purgeSearchStep, searchRowids, tombstoneItems } from "./session-erasure";

/**
 * The steps of an erasure's slices (docs/api/privacy.md "Slices"). Each step is one set of
 * statements over a chunk of the subject's rows, found by index from its profile ids
 * (`erasure_profiles`) or handle ids (`erasure_handles`), never by reading other subjects' rows:
 *   1. `events`: its events (through its sessions' `session_events`), tombstoned with their
 *      turns' stems and places; `derived`: what its sessions derived, by profile; `sessions`:
 *      its sessions, now empty, with their episodes, model summaries, queues, timers, feedback,
 *      conversation aliases and levels; `memory`: its memory entries;
 *   2. `items`: its other items (identify, verify, feedback) by the items' partial index by
 *      profile; `mentions`: other subjects' items that name its handles (`item_mentions`),
 *      scrubbed of them;
 *   3. `search`: the rows of both search tables under its profile tokens (messages, episodes,
 *      facts); `purge`: the tables' segments merged, so that no deleted row's words stay;
 *   4. `owners`, `served`: objects it owned and etags it was served, by rowid ranges;
 *   5. `tidy`: sightings, timers, evidence a job wrote meanwhile, kept answers again.
 */
export type ErasurePhase =
  | "events"
  | "derived"
  | "sessions"
  | "memory"
  | "items"
  | "mentions"
  | "search"
  | "purge"
  | "owners"
  | "served"
  | "tidy";

export interface ErasureJob {
  receiptId: string;
  phase: ErasurePhase;
  /** Where the phase's walk stopped: a rowid. */
  after: number;
  /** Export files of the subject in R2: the object deletes them before it signs. */
  files: ErasedFile[];
  /**
   * What the slices erased so far, added to the receipt's counts when the data is erased: one
   * write of the job a round instead of two of the receipt's row as well.
   */
  counts?: Partial<ErasureCounts>;
}

/**
 * Rows a step takes by default in each phase, and what a row costs (µs, measured under `wrangler
 * dev` with the bench's space, idle machine: an event with its turn and place, a derivation with
 * its three indexes, a session with its dozen tables, a search row in both tables). A slice
 * sizes each next step to the time it has left, from what the rows of the step before cost
 * (`rowsFor`), so that it ends near its budget whatever the machine's load; where the clock
 * stands still during work (production) these costs stand in for the stopwatch.
 */
export const STEP = { events: 60, derived: 100, sessions: 20, entries: 100, items: 100, search: 40, sweep: 1_000 } as const;
const DEFAULT_ROWS: Record<ErasurePhase, number> = {
  events: STEP.events,
  derived: STEP.derived,
  sessions: STEP.sessions,
  memory: STEP.entries,
  items: STEP.items,
  mentions: STEP.items,
  search: STEP.search,
  purge: 1,
  owners: 1,
  served: 1,
  tidy: 1,
};
const ROW_US: Record<ErasurePhase, number> = {
  events: 30,
  derived: 20,
  sessions: 100,
  memory: 20,
  items: 30,
  mentions: 60,
  search: 55,
  purge: 5_000,
  owners: 1_000,
  served: 1_000,
  tidy: 2_000,
};

/**
 * How many rows the next step of `phase` takes to fill `leftMs`: at what a row of the step
 * before cost (`perRowMs`, when it was of the same phase; at most twice the default: the next
 * rows may cost more than the last did), else at the estimate and at most the default (a loaded
 * machine is slower than the estimate); 0 when not one fits.
 */
export function rowsFor(phase: ErasurePhase, leftMs: number, perRowMs: number | null): number {
  const most = perRowMs === null ? DEFAULT_ROWS[phase] : 2 * DEFAULT_ROWS[phase];
  const perRow = perRowMs ?? ROW_US[phase] / 1000;
  return Math.max(0, Math.min(Math.floor(leftMs / perRow), most));
}

export type Counter = (name: keyof ErasureCounts, n: number) => void;

export interface Taken {
  /** The job as it stands after the step; null: the data is erased. */
  next: ErasureJob | null;
  /** Rows the step handled (1 for a step of fixed size), and their estimated cost. */
  rows: number;
  costMs: number;
}

/** One step of `rows` rows (the phase's default when absent). */
export function step(sql: SqlStorage, job: ErasureJob, add: Counter, rows = DEFAULT_ROWS[job.phase]): Taken {
  const then = (phase: ErasurePhase): ErasureJob => ({ ...job, phase, after: 0 });
  const cost = (next: ErasureJob | null, handled: number): Taken => {
    const counted = Math.max(handled, 1);
    return { next, rows: counted, costMs: (counted * ROW_US[job.phase]) / 1000 };
  };
  switch (job.phase) {
    case "events": {
      const erased = eraseEvents(sql, job.receiptId, rows, add);
      return cost(erased < rows ? then("derived") : job, erased);
    }
    case "derived": {
      const derived = dropDerivations(sql, job.receiptId, rows);
      add("memory_items", derived);
      return cost(derived < rows ? then("sessions") : job, derived);
    }
    case "sessions": {
      const dropped = dropSessions(sql, job.receiptId, rows, add);
      // Events placed since the first phase (an erasure started before this code) go first.
      if (dropped === "events left") return cost(then("events"), 1);
      return cost(dropped < rows ? then("memory") : job, dropped);
    }
    case "memory": {
      const erased = sql
        .exec(
          `DELETE FROM memory_entries WHERE rowid IN (SELECT m.rowid FROM erasure_profiles e CROSS JOIN memory_entries m
             WHERE e.receipt_id = ? AND m.profile_id = e.profile_id LIMIT ?) RETURNING 1`,
          job.receiptId,
          rows,
        )
        .toArray().length;
      add("memory_items", erased);
      return cost(erased < rows ? then("items") : job, erased);
    }
    case "items": {
      const seqs = sql
        .exec<{ seq: number }>(
          `SELECT i.seq FROM erasure_profiles e CROSS JOIN items i
           WHERE e.receipt_id = ? AND i.profile_id = e.profile_id AND i.type <> 'event' LIMIT ?`,
          job.receiptId,
          rows,
        )
        .toArray()
        .map((row) => row.seq);
      add("events", tombstoneItems(sql, seqs));
      return cost(seqs.length < rows ? then("mentions") : job, seqs.length);
    }
    case "mentions": {
      const looked = scrubMentions(sql, job.receiptId, rows, add);
      return cost(looked < rows ? then("search") : job, looked);
    }
    case "search": {
      const members = sql
        .exec<{ profile_id: string }>("SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?", job.receiptId)
        .toArray()
        .map((row) => `"${idToken(row.profile_id)}"`);
      // From the last rowid deleted on: the deleted rows' entries stay in the token's doclist until
      // the purge, and a match from the start would read them all again at every step.
      const expression = `profile : (${members.join(" OR ")})`;
      const rowids = members.length === 0 ? [] : searchRowids(sql, expression, rows, job.after);
      const last = rowids.at(-1);
      if (last === undefined) return cost(then("purge"), 1);
      add("search_rows", deleteSearchRows(sql, rowids));
      return cost({ ...job, after: last }, rowids.length);
    }
    case "purge":
      return cost(purgeSearchStep(sql, job.after === 0) ? { ...job, after: 1 } : then("owners"), 1);
    case "owners":
    case "served": {
      const table = job.phase === "owners" ? "object_owners" : "served_contexts";
      const swept = sweep(sql, table, job);
      add(job.phase === "owners" ? "identity_evidence" : "served_contexts", swept.erased);
      const next = swept.after !== null ? { ...job, after: swept.after } : then(job.phase === "owners" ? "served" : "tidy");
      return cost(next, 1);
    }
    case "tidy":
      tidy(sql, job.receiptId, add);
      return cost(null, 1);
  }
}

/**
 * Tombstones up to `limit` of the subject's events, found through its sessions' places, with
 * their turns' stems and their places. Answers how many places it took.
 */
function eraseEvents(sql: SqlStorage, receiptId: string, limit: number, add: Counter): number {
  const places = sql
    .exec<{ session_id: string; occurred_at: number; seq: number }>(
      `SELECT se.session_id, se.occurred_at, se.seq FROM erasure_profiles e CROSS JOIN sessions s CROSS JOIN session_events se
       WHERE e.receipt_id = ? AND s.profile_id = e.profile_id AND se.session_id = s.session_id LIMIT ?`,
      receiptId,
      limit,
    )
    .toArray();
  if (places.length === 0) return 0;
  const seqs = places.map((place) => place.seq);
  add("events", tombstoneItems(sql, seqs));
  add(
    "search_rows",
    sql.exec("DELETE FROM search_turns WHERE seq IN (SELECT value FROM json_each(?)) RETURNING 1", JSON.stringify(seqs)).toArray()
      .length,
  );
  sql.exec(
    `DELETE FROM session_events WHERE (session_id, occurred_at, seq) IN
       (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))`,
    JSON.stringify(places.map((place) => [place.session_id, place.occurred_at, place.seq])),
  );
  return places.length;
}

/** Deletes up to `limit` of what the subject's sessions derived, with the feedback on it and its promise timers. */
function dropDerivations(sql: SqlStorage, receiptId: string, limit: number): number {
  const derived = sql
    .exec<{ id: string }>(
      `DELETE FROM derivations WHERE rowid IN (SELECT d.rowid FROM erasure_profiles e CROSS JOIN derivations d
         WHERE e.receipt_id = ? AND d.profile_id = e.profile_id LIMIT ?) RETURNING id`,
      receiptId,
      limit,
    )
    .toArray()
    .map((row) => row.id);
  forgetDerived(sql, derived);
  return derived.length;
}

function forgetDerived(sql: SqlStorage, ids: readonly string[]): void {
  if (ids.length === 0) return;
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
  deleteTimers(sql, "promise.due", ids);
}

/**
 * Deletes up to `limit` of the subject's sessions, whose events and derivations are erased, with
 * everything else kept per session; answers how many, or "events left" when a session still has
 * places (they are erased first).
 */
function dropSessions(sql: SqlStorage, receiptId: string, limit: number, add: Counter): number | "events left" {
  const sessions = sql
    .exec<{ session_id: string; profile_id: string; kind: "conversation" | "task"; conversation_id: string | null }>(
      `SELECT s.session_id, s.profile_id, s.kind, s.conversation_id FROM erasure_profiles e CROSS JOIN sessions s
       WHERE e.receipt_id = ? AND s.profile_id = e.profile_id LIMIT ?`,
      receiptId,
      limit,
    )
    .toArray();
  if (sessions.length === 0) return 0;
  const ids = JSON.stringify(sessions.map((session) => session.session_id));
  const placed = sql.exec("SELECT 1 FROM json_each(?) j CROSS JOIN session_events se WHERE se.session_id = j.value LIMIT 1", ids);
  if (placed.toArray().length > 0) return "events left";
  const { own, shared } = conversationsOf(sql, receiptId, sessions);
  // What is kept per conversation goes with the subject's own only: other customers in a shared one keep it.
  const conversations = JSON.stringify(own.filter((c) => c.kind === "conversation").map((c) => c.id));
  add("events", eraseSessionControls(sql, own, shared));
  const deleted = (statement: string, values: string) => sql.exec(`${statement} RETURNING 1`, values).toArray().length;
  // A derivation under another profile id than its session's (none is written so; kept exact all the same).
  const strays = sql
    .exec<{ id: string }>("DELETE FROM derivations WHERE session_id IN (SELECT value FROM json_each(?)) RETURNING id", ids)
    .toArray()
    .map((row) => row.id);
  forgetDerived(sql, strays);
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", ids);
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", conversations);
  deleteTimers(
    sql,
    "session.close",
    sessions.map((session) => session.session_id),
  );
  const episodes = deleted("DELETE FROM episodes WHERE session_id IN (SELECT value FROM json_each(?))", ids);
  const models = deleted("DELETE FROM model_summaries WHERE session_id IN (SELECT value FROM json_each(?))", ids);
  sql.exec("DELETE FROM model_queue WHERE session_id IN (SELECT value FROM json_each(?))", ids);
  sql.exec(
    "DELETE FROM compile_queue WHERE (profile_id, session_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
    JSON.stringify(sessions.map((session) => [session.profile_id, session.session_id])),
  );
  sql.exec("DELETE FROM compile_inbox WHERE session_id IN (SELECT value FROM json_each(?))", ids);
  deleteSessions(
    sql,
    sessions.map((session) => session.session_id),
  );
  sql.exec(
    "DELETE FROM verification_levels WHERE (target_kind, target_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
    JSON.stringify(own.map((c) => [c.kind, c.id])),
  );
  sql.exec("DELETE FROM conversation_aliases WHERE conversation_id IN (SELECT value FROM json_each(?))", conversations);
  add("sessions", sessions.length);
  add("memory_items", strays.length + episodes + models);
  return sessions.length;
}

/**
 * Other subjects' items that name the subject's handles (`item_mentions`, by handle id), up to
 * `limit` of the notes: each item loses those handles (compared normalized), and the notes go.
 * Answers how many notes it read.
 */
function scrubMentions(sql: SqlStorage, receiptId: string, limit: number, add: Counter): number {
  const notes = sql
    .exec<{ handle_id: string; seq: number; body: string | null; type: string | null }>(
      `SELECT m.handle_id, m.seq, i.body, i.type FROM erasure_handles e CROSS JOIN item_mentions m
       LEFT JOIN items i ON i.seq = m.seq WHERE e.receipt_id = ? AND m.handle_id = e.handle_id LIMIT ?`,
      receiptId,
      limit,
    )
    .toArray();
  if (notes.length === 0) return 0;
  const erased = erasedHandleKeys(sql, receiptId);
  const scrubbed = new Map<number, string>();
  for (const note of notes) {
    if (note.body === null || !["event", "identify", "verify"].includes(note.type ?? "")) continue;
    const body = withoutHandles(scrubbed.get(note.seq) ?? note.body, erased);
    if (body !== null) scrubbed.set(note.seq, body);
  }
  if (scrubbed.size > 0) {
    sql.exec(
      "UPDATE items SET body = s.value ->> 1 FROM json_each(?) s WHERE items.seq = s.value ->> 0",
      JSON.stringify([...scrubbed]),
    );
  }
  add("mentions", scrubbed.size);
  sql.exec(
    "DELETE FROM item_mentions WHERE (handle_id, seq) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
    JSON.stringify(notes.map((note) => [note.handle_id, note.seq])),
  );
  return notes.length;
}

/** Deletes a range of `STEP.sweep` rowids' rows of the subject's profiles; `after` null: the table's end was reached. */
function sweep(sql: SqlStorage, table: string, job: ErasureJob): { erased: number; after: number | null } {
  const end =
    sql
      .exec<{ rowid: number }>(
        `SELECT rowid FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ?`,
        job.after,
        STEP.sweep - 1,
      )
      .toArray()[0]?.rowid ?? null;
  const erased = sql
    .exec(
      `DELETE FROM ${table} WHERE rowid > ? AND rowid <= ?
       AND profile_id IN (SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?) RETURNING 1`,
      job.after,
      end ?? Number.MAX_SAFE_INTEGER,
      job.receiptId,
    )
    .toArray().length;
  return { erased, after: end };
}

/** The small remainders, and again what a job under way may have written since the cut. */
function tidy(sql: SqlStorage, receiptId: string, add: Counter): void {
  const members = JSON.stringify(
    sql
      .exec<{ profile_id: string }>("SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?", receiptId)
      .toArray()
      .map((row) => row.profile_id),
  );
  sql.exec(
    "DELETE FROM handle_sightings WHERE handle_id IN (SELECT handle_id FROM erasure_handles WHERE receipt_id = ?)",
    receiptId,
  );
  add("kept_answers", forgetKeptAnswers(sql, receiptId, members));
  sql.exec(
    "DELETE FROM timers WHERE kind = 'promise.due' AND payload ->> 'profileId' IN (SELECT value FROM json_each(?))",
    members,
  );
  add("identity_evidence", forgetEvidence(sql, members));
  add(
    "suggestions",
    sql
      .exec(
        `DELETE FROM suggestions WHERE profile_a IN (SELECT value FROM json_each(?1)) OR profile_b IN (SELECT value FROM json_each(?1))
         RETURNING 1`,
        members,
      )
      .toArray().length,
  );
  for (const table of ["compile_queue", "compile_inbox", "model_queue", "memories", "memory_entries"]) {
    sql.exec(`DELETE FROM ${table} WHERE profile_id IN (SELECT value FROM json_each(?))`, members);
  }
}
