import { membersOf, membersOfRoots, rootOf, rootsOf } from "../identity/profiles";
import { replicatedConfig } from "../replica";
import { type CompiledSession, indexSessions } from "../search/writes";
import { setTimer, setTimerOnce, setTimers } from "../timers";
import { type Correction, correctionsOf } from "./corrections";
import { type CompileSettings, compileSession, DEFAULT_HIGHLIGHTS, type EpisodeBody, type Outcome } from "./derivation";
import { addSubjects, type DerivationRow, noSubjects, replaceDerivations, type Subjects, storedDerivations } from "./derivations";
import { type Extractor, patternExtractor } from "./extractor";
import { listedEntriesOf, rebuildEntries, writeEntries } from "./memory-entries";
import { type EpisodeView, type Memory, memoryFrom } from "./memory-view";
import { modelSummariesOf, partsWithModel, type SummaryRow } from "./model-summaries";
import { sessionEvents } from "./session-events";
import { noteHandoff, type SessionRecord, sessionsById } from "./sessions";
import { extractiveSummarizer, type Summarizer } from "./summarizer";
import { spaceVocabulary } from "./vocabulary";

/** How long after a write the compiler waits, so that a burst of writes compiles once. */
export const COMPILE_DEBOUNCE_MS = 200;
/** How long one slice of compiling may hold the object, and how many events it compiles at most. */
export const SLICE_BUDGET_MS = 8;
export const SLICE_EVENTS = 500;
/** How many queued sessions one read of the queue takes. */
const QUEUE_READ = 32;
const EPISODES_IN_CONTEXT = 5;

/** The replaceable parts (README "Memory"): a model-backed summarizer or extractor goes here. */
export const COMPILER_PARTS: { summarizer: Summarizer; extractor: Extractor } = {
  summarizer: extractiveSummarizer,
  extractor: patternExtractor,
};

/** What the space gives a compile: its words' frequencies (held in memory) and `episode_highlights`. */
export function compileSettings(sql: SqlStorage): CompileSettings {
  return {
    vocabulary: spaceVocabulary(sql),
    highlights: replicatedConfig(sql).episode_highlights ?? DEFAULT_HIGHLIGHTS,
  };
}

/**
 * Sessions that got events: queued (with how many events wait) and a compile due after the
 * debounce. They go to the inbox, at its end; the compiler folds it into the queue before it takes
 * from it. Under saturation the queue holds thousands of sessions of random profiles, and an
 * upsert per session cost each batch hundreds of pages written; a fold writes each page once for
 * all the batches since the last one.
 */
export function queueCompile(
  sql: SqlStorage,
  queued: ReadonlyMap<string, { profileId: string; events: number }>,
  now: number,
): void {
  if (queued.size === 0) return;
  sql.exec(
    `INSERT INTO compile_inbox (session_id, profile_id, events, queued_at)
     SELECT q.value ->> 0, q.value ->> 1, q.value ->> 2, ? FROM json_each(?) q`,
    now,
    JSON.stringify([...queued].map(([sessionId, { profileId, events }]) => [sessionId, profileId, events])),
  );
  setTimerOnce(sql, { kind: "memory.compile", key: "", dueAt: now + COMPILE_DEBOUNCE_MS, payload: null });
}

/**
 * Moves the inbox into the queue in the queue's key order. A session adds up its events and keeps
 * its first time (0 when a reader hurried it: `hurryCompile` marks both tables).
 */
function foldInbox(sql: SqlStorage): void {
  sql.exec(
    `INSERT INTO compile_queue (session_id, profile_id, events, queued_at)
     SELECT session_id, profile_id, sum(events), min(queued_at) FROM compile_inbox WHERE true
     GROUP BY profile_id, session_id ORDER BY profile_id, session_id
     ON CONFLICT (profile_id, session_id) DO UPDATE SET events = events + excluded.events`,
  );
  sql.exec("DELETE FROM compile_inbox");
  // A subject being erased is compiled no more (a close timer may have queued one of its sessions).
  sql.exec("DELETE FROM compile_queue WHERE profile_id IN (SELECT profile_id FROM erasure_profiles)");
}

/**
 * A profile whose memory must be compiled again without a session of its own changing (its
 * members changed: a merge or an undo). Queued like a session, under the key `profile:<id>`.
 */
export function queueProfile(sql: SqlStorage, profileIds: readonly string[], now: number): void {
  queueCompile(sql, new Map(profileIds.map((profileId) => [`profile:${profileId}`, { profileId, events: 0 }])), now);
}

/**
 * One slice of compiling: queued sessions, oldest first, until the slice's budget is spent,
 * then the memory entries they touched and the memory of every root profile they belong to.
 * Due again at once while sessions wait. Returns the root profiles whose memory changed.
 * `summarizing`: closed sessions are queued for a model (`model-summaries.ts`).
 */
export function compileSlice(sql: SqlStorage, now: number, stopwatch: () => number, summarizing = false): Set<string> {
  const started = stopwatch();
  foldInbox(sql);
  const touched = new Map<string, Subjects>();
  const whole = new Set<string>();
  let events = 0;
  let more = true;
  const settings = compileSettings(sql);
  // What the slice's sessions write, written once for all of them after the loop.
  const writes: SliceWrites = { episodes: [], indexed: [] };
  while (more) {
    const next = sql
      .exec<{ session_id: string; profile_id: string }>(
        "SELECT session_id, profile_id FROM compile_queue ORDER BY queued_at, session_id LIMIT ?",
        QUEUE_READ,
      )
      .toArray();
    if (next.length < QUEUE_READ) more = false;
    const ids = next.map((queued) => queued.session_id);
    const sessions = sessionsById(sql, ids);
    const stored: StoredOfSessions = {
      derivations: storedDerivations(sql, ids),
      summaries: modelSummariesOf(sql, ids),
      corrections: correctionsOf(sql, ids),
    };
    const taken: [string, string][] = [];
    for (const { session_id: sessionId, profile_id: profileId } of next) {
      taken.push([profileId, sessionId]);
      const session = sessions.get(sessionId);
      if (session) {
        const subjects = touched.get(session.profileId) ?? noSubjects();
        touched.set(session.profileId, subjects);
        events += rebuildSession(sql, session, now, subjects, { summarizing, settings }, writes, stored);
      } else {
        whole.add(profileId); // a `profile:` entry: its members changed
      }
      // The events count bounds a slice where the clock does not advance during work (production Workers).
      if (events >= SLICE_EVENTS || stopwatch() - started >= SLICE_BUDGET_MS) {
        setTimer(sql, { kind: "memory.compile", key: "", dueAt: now, payload: null });
        more = false;
        break;
      }
    }
    sql.exec(
      "DELETE FROM compile_queue WHERE (profile_id, session_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
      JSON.stringify(taken),
    );
  }
  writeEpisodes(sql, writes.episodes);
  indexSessions(sql, writes.indexed);
  const roots = new Map<string, { subjects: Subjects; whole: boolean }>();
  const profiles = [...new Set([...touched.keys(), ...whole])];
  const rootOfProfile = rootsOf(sql, profiles);
  for (const profileId of profiles) {
    const rootId = rootOfProfile.get(profileId) ?? profileId;
    const root = roots.get(rootId) ?? { subjects: noSubjects(), whole: false };
    roots.set(rootId, root);
    if (whole.has(profileId)) root.whole = true;
    const subjects = touched.get(profileId);
    if (subjects) addSubjects(root.subjects, subjects);
  }
  const members = membersOfRoots(sql, [...roots.keys()]);
  for (const [rootId, { subjects, whole }] of roots) {
    if (whole) rebuildEntries(sql, rootId, members.get(rootId) ?? [], now);
    else writeEntries(sql, rootId, members.get(rootId) ?? [], subjects, now);
  }
  writeMemories(sql, [...roots.keys()], now);
  return new Set(roots.keys());
}

/**
 * Compiles again the entries of some subjects of a profile's memory, and its memory, at once:
 * a promise came due, or feedback changed a fact or an open item.
 */
export function compileSubjects(sql: SqlStorage, profileId: string, subjects: Subjects, now: number): void {
  const rootId = rootOf(sql, profileId)?.profileId;
  if (rootId === undefined) return; // erased (privacy/erasures.ts): nothing to compile

  writeEntries(sql, rootId, membersOf(sql, rootId), subjects, now);
  writeMemories(sql, [rootId], now);
}

/** A session's episode row, as `episodes` takes it. */
type EpisodeRow = [sessionId: string, profileId: string, startedAt: number, endedAt: number, open: 0 | 1, body: string];

/** What a queue read's sessions have stored, read for all of them at once. */
interface StoredOfSessions {
  derivations: Map<string, DerivationRow[]>;
  summaries: Map<string, SummaryRow>;
  corrections: Map<string, Correction>;
}

/** What a slice's sessions write once the slice has compiled them all. */
interface SliceWrites {
  episodes: EpisodeRow[];
  indexed: CompiledSession[];
}

/**
 * Rebuilds one session's episode and derivations from its events (late data included), adding
 * the subjects it touched; its episode and search rows go to `writes`. Returns how many events
 * it compiled.
 */
function rebuildSession(
  sql: SqlStorage,
  session: SessionRecord,
  now: number,
  touched: Subjects,
  { summarizing, settings }: { summarizing: boolean; settings: CompileSettings },
  writes: SliceWrites,
  stored: StoredOfSessions,
): number {
  const events = sessionEvents(sql, session.sessionId);
  // Read once for the queue read; a session queued twice in it reads what its first compile wrote.
  const derived = stored.derivations.get(session.sessionId) ?? storedDerivations(sql, [session.sessionId]).get(session.sessionId);
  stored.derivations.delete(session.sessionId);
  // The model's digest where one was made from these events; else the offline parts (and the session queued for the model).
  const parts = partsWithModel(
    sql,
    session,
    events,
    COMPILER_PARTS,
    { queue: summarizing, now },
    stored.summaries.get(session.sessionId),
  );
  const compiled = compileSession(events, { open: session.status === "open", handoffAt: session.handoffAt }, parts, settings);
  if (compiled.handoffAt !== null && compiled.handoffAt !== session.handoffAt) {
    noteHandoff(sql, session, compiled.handoffAt, now);
  }
  replaceDerivations(sql, session, compiled.derivations, touched, derived ?? []);
  const outcome = stored.corrections.get(session.sessionId);
  const episode: EpisodeRecord = {
    ...compiled.episode,
    ...(outcome?.action === "conversation_outcome" ? { outcome: outcome.value as Outcome } : {}),
    conversation_id: session.kind === "conversation" ? session.conversationId : null,
    channel: session.channel,
    status: session.status,
  };
  writes.episodes.push([
    session.sessionId,
    session.profileId,
    session.startedAt,
    session.closedAt ?? session.lastAt,
    session.status === "open" ? 1 : 0,
    JSON.stringify(episode),
  ]);
  writes.indexed.push({
    session,
    episodeText: compiled.searchable,
    derivations: compiled.derivations,
    sources: [...new Set(events.map((event) => event.sourceId))],
  });
  setTimers(
    sql,
    compiled.derivations.flatMap((d) =>
      d.type === "promise" && d.body.due_at !== null && d.body.due_at > now
        ? [
            {
              kind: "promise.due" as const,
              key: d.id,
              dueAt: d.body.due_at,
              payload: { profileId: session.profileId, subject: d.subject },
            },
          ]
        : [],
    ),
  );
  return events.length;
}

/** The slice's episodes, in one statement. */
function writeEpisodes(sql: SqlStorage, episodes: readonly EpisodeRow[]): void {
  if (episodes.length === 0) return;
  sql.exec(
    `INSERT INTO episodes (session_id, profile_id, started_at, ended_at, open, body)
     SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(?) WHERE true
     ON CONFLICT (session_id) DO UPDATE SET profile_id = excluded.profile_id, started_at = excluded.started_at,
       ended_at = excluded.ended_at, open = excluded.open, body = excluded.body`,
    JSON.stringify(episodes),
  );
}

type EpisodeRecord = EpisodeBody & { conversation_id: string | null; channel: string | null; status: "open" | "closed" };

/**
 * Writes root profiles' memory from their entries and latest episodes, each with a new version:
 * one statement for all their episodes, one for their entries, one for the writes.
 */
function writeMemories(sql: SqlStorage, rootIds: readonly string[], now: number): void {
  if (rootIds.length === 0) return;
  const roots = JSON.stringify(rootIds);
  const episodes = new Map<string, EpisodeView[]>();
  for (const row of sql.exec<{ root: string; session_id: string; started_at: number; ended_at: number; body: string }>(
    `SELECT r.value AS root, e.session_id, e.started_at, e.ended_at, e.body FROM json_each(?1) r
     CROSS JOIN episodes e ON e.rowid IN (
       SELECT x.rowid FROM profiles p CROSS JOIN episodes x ON x.profile_id = p.profile_id
       WHERE p.root_id = r.value ORDER BY x.started_at DESC, x.session_id DESC LIMIT ?2)
     ORDER BY r.value, e.started_at DESC, e.session_id DESC`,
    roots,
    EPISODES_IN_CONTEXT,
  )) {
    const body = JSON.parse(row.body) as EpisodeRecord;
    const list = episodes.get(row.root) ?? [];
    list.push({
      episode_id: row.session_id,
      ...body,
      started_at: new Date(row.started_at).toISOString(),
      ended_at: new Date(row.ended_at).toISOString(),
    });
    episodes.set(row.root, list);
  }
  const entries = listedEntriesOf(sql, rootIds);
  const memories = rootIds.map((rootId) => [
    rootId,
    JSON.stringify(memoryFrom(entries.get(rootId) ?? [], episodes.get(rootId) ?? [])),
  ]);
  sql.exec(
    `INSERT INTO memories (profile_id, version, through_at, compiled_at, body)
     SELECT value ->> 0, 1, ?1, ?1, value ->> 1 FROM json_each(?2) WHERE true
     ON CONFLICT (profile_id) DO UPDATE SET version = version + 1, through_at = excluded.through_at,
       compiled_at = excluded.compiled_at, body = excluded.body`,
    now,
    JSON.stringify(memories),
  );
}

export interface CompiledMemory {
  memory: Memory;
  version: number;
  through: number | null;
  pending: number;
}

const EMPTY: Memory = { facts: [], open_items: [], promises: [], episodes: [], objects: [] };

/** A profile's compiled memory as it stands, and how many of its events wait to be compiled: never waits for a compile. */
export function compiledMemory(sql: SqlStorage, rootId: string, members: readonly string[]): CompiledMemory {
  const row = sql
    .exec<{ version: number; through_at: number | null; body: string }>(
      "SELECT version, through_at, body FROM memories WHERE profile_id = ?",
      rootId,
    )
    .toArray()[0];
  // The inbox holds at most the batches since the last slice: read whole, not by profile.
  const pending = sql
    .exec<{ events: number }>(
      `SELECT (SELECT coalesce(sum(q.events), 0) FROM json_each(?1) m CROSS JOIN compile_queue q WHERE q.profile_id = m.value)
         + (SELECT coalesce(sum(events), 0) FROM compile_inbox WHERE profile_id IN (SELECT value FROM json_each(?1))) AS events`,
      JSON.stringify(members),
    )
    .one().events;
  const memory = row ? (JSON.parse(row.body) as Memory) : EMPTY;
  // A memory written before episodes kept highlights has none until its profile compiles again.
  for (const episode of memory.episodes) episode.highlights ??= [];
  return {
    memory,
    version: row?.version ?? 0,
    through: row?.through_at ?? null,
    pending,
  };
}

/**
 * A reader is waiting for these profiles' memory: their queued sessions move to the front of
 * the queue (the next slice compiles them before older work of profiles nobody is reading).
 */
export function hurryCompile(sql: SqlStorage, members: readonly string[]): void {
  for (const table of ["compile_queue", "compile_inbox"]) {
    sql.exec(
      `UPDATE ${table} SET queued_at = 0 WHERE queued_at > 0 AND profile_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(members),
    );
  }
}

/** Whether a reader waits for some profile's memory (`hurryCompile` moved its sessions to the front). */
export function readerWaits(sql: SqlStorage): boolean {
  return (
    sql
      .exec("SELECT 1 FROM compile_queue WHERE queued_at = 0 UNION ALL SELECT 1 FROM compile_inbox WHERE queued_at = 0 LIMIT 1")
      .toArray().length > 0
  );
}

/** Sessions (and profiles) waiting to be compiled, each once. */
export function compileQueueLength(sql: SqlStorage): number {
  return sql
    .exec<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT profile_id, session_id FROM compile_queue UNION SELECT profile_id, session_id FROM compile_inbox)",
    )
    .one().n;
}

/** Events the queued sessions received since they were last compiled (operators, the benchmark). */
export function compileEventsWaiting(sql: SqlStorage): number {
  return sql
    .exec<{ n: number }>(
      "SELECT (SELECT coalesce(sum(events), 0) FROM compile_queue) + (SELECT coalesce(sum(events), 0) FROM compile_inbox) AS n",
    )
    .one().n;
}

/**
 * Whether at least `sessions` wait to be compiled, without counting them all (a session in the
 * inbox more than once, or in both, counts as many times: it is a measure of load).
 */
export function compileBacklog(sql: SqlStorage, sessions: number): boolean {
  return (
    sql
      .exec("SELECT 1 FROM (SELECT 1 FROM compile_queue UNION ALL SELECT 1 FROM compile_inbox) LIMIT 1 OFFSET ?", sessions - 1)
      .toArray().length > 0
  );
}
