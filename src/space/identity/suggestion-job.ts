import { replicatedConfig } from "../replica";
import { setDebounce, setTimer } from "../timers";
import { forgetTraitChanges, lastTraitChange, meetingsAfter, readTraits, sampleProfiles, traitChangesAfter } from "./evidence";
import { compareTraits, decodePattern, encodePattern } from "./linkage/comparisons";
import { countKeyedProfiles, currentModel, keyedProfiles, saveModel } from "./linkage/model-store";
import {
  addPairs,
  blocksAfter,
  comparedTraits,
  dirtyAfter,
  forgetDirty,
  keptPairs,
  linkageIds,
  markDirty,
  maxPairLid,
  nothingCompared,
  type PairRow,
  pairNumber,
  partnersOf,
  patternCounts,
  profileIdsOf,
  reachingPairs,
  setMeetings,
  traitsByPlace,
  writeProfiles,
} from "./linkage/pairs";
import { sampleU, seeded } from "./linkage/random-pairs";
import { DEFAULT_SUGGESTION_THRESHOLD } from "./linkage/threshold";
import type { TraitSet } from "./linkage/traits";
import {
  addUSamples,
  defaultModel,
  emptyUSample,
  estimateModel,
  levelWeights,
  matchWeight,
  probabilityOf,
  U_MIN_PROFILES,
  type USample,
  uFromSample,
} from "./linkage/weights";
import { type FoundPair, recordFound, withdrawUnfound } from "./suggestions";

/**
 * The offline job that finds suggestions by probabilistic record linkage (DESIGN 3.5, issue 30),
 * run from the object's alarm in slices, so that a space's requests are never held up for more
 * than a few milliseconds: each slice runs steps of bounded size while its stopwatch allows, and
 * hands the job's state to the next slice through its timer. A run:
 *   1. `changes`: reads the profiles whose traits changed since the last run, marks them to be
 *      compared again (forgetting their pairs) and writes their blocking keys anew;
 *   2. `pairs`: compares each of them with the profiles sharing a key (keys held by more than
 *      `MAX_BLOCK` profiles skipped), keeping each pair's comparison pattern;
 *   3. `meetings`: adds the pairs whose handles met in an event, with their count;
 *   4. `sample`: compares random pairs of the space, for u;
 *   5. `estimate`: m and the prior by EM over the kept pairs' patterns;
 *   6. `score`: weighs every kept pair, suggesting those that reach the threshold;
 *   7. `withdraw`: withdraws open suggestions the run did not find again; `tidy` forgets the marks.
 * Pairs of unchanged profiles are not compared again, only weighed again: the weights move as
 * the space grows.
 */
export type Phase = "changes" | "pairs" | "meetings" | "sample" | "estimate" | "score" | "withdraw" | "tidy";

export interface JobState {
  phase: Phase;
  /** Where the phase's walk stopped: the last row read. */
  after: string[] | null;
  /** The last `trait_changes` row read, and the last one this run reads (later ones wait for the next run). */
  seq: number;
  through: number;
  /**
   * The space's first run: every profile is new, so the run walks the blocks in key order (each
   * pair of a block compared where it is found) instead of each changed profile's blocks.
   */
  full: boolean;
  /** Profiles the run wrote for the first time, counted once the changes are read. */
  newProfiles: number;
  /** Sample chunks compared, and what they found. */
  chunk: number;
  sample: USample | null;
  threshold: number;
  startedAt: number;
  slices: number;
  /** The longest slice so far, by the stopwatch the alarm hands in. */
  maxSliceMs: number;
}

/** A slice runs steps while its stopwatch shows less than this (measured by `npm run bench`: `suggestions_max_slice_ms`). */
export const SLICE_BUDGET_MS = 5;
/** And at most this many steps: in production the clock stands still during work. */
export const SLICE_STEPS = 8;
/** Rows one step reads in each phase: each step about a millisecond, so a slice ends near its budget. */
const STEP = {
  changes: 100,
  pairs: 40,
  meetings: 50,
  score: 100,
  scoreLids: 1000,
  withdraw: 250,
  tidy: 500,
  firstChanges: 100,
  blocks: 400,
  blockPairs: 200,
} as const;
/** The sample for u: chunks of profiles, pairs compared in each (about 10,000 pairs in all). */
export const SAMPLE_CHUNKS = 32;
const SAMPLE_PROFILES = 100;
const SAMPLE_PAIRS = 300;
/** A run starts once writes have paused this long, so that a burst of writes makes one run... */
export const DEBOUNCE_MS = 30_000;
/** ...or this long after the burst's first write, however long writes keep coming. */
export const MAX_DEBOUNCE_MS = 300_000;

/** Asks for a run after writes that may have brought evidence: each write pushes it back, up to `MAX_DEBOUNCE_MS`. */
export function requestSuggestions(sql: SqlStorage, now: number): void {
  setDebounce(sql, "suggestions.debounce", now, DEBOUNCE_MS, MAX_DEBOUNCE_MS);
}

/** The debounce fired: start a run, or wait for the one under way to end. */
export function startSuggestions(sql: SqlStorage, now: number): void {
  const running = sql.exec("SELECT 1 FROM timers WHERE kind = 'suggestions.run'").toArray().length > 0;
  if (running) {
    requestSuggestions(sql, now);
    return;
  }
  const state: JobState = {
    phase: "changes",
    after: null,
    seq: 0,
    through: lastTraitChange(sql),
    full: nothingCompared(sql),
    newProfiles: 0,
    chunk: 0,
    sample: null,
    threshold: replicatedConfig(sql).suggestion_threshold ?? DEFAULT_SUGGESTION_THRESHOLD,
    startedAt: now,
    slices: 0,
    maxSliceMs: 0,
  };
  setTimer(sql, { kind: "suggestions.run", key: "", dueAt: now, payload: state });
}

/**
 * One slice of a run; the next is due at once, until the run is done. `stopwatch` measures the
 * slice (wall time where the runtime lets it advance during work, as under `wrangler dev`).
 */
export function continueSuggestions(sql: SqlStorage, state: JobState, now: number, stopwatch: () => number): void {
  const started = stopwatch();
  let next: JobState | null = state;
  for (let steps = 0; next && steps < SLICE_STEPS && (steps === 0 || stopwatch() - started < SLICE_BUDGET_MS); steps++) {
    next = step(sql, next, now);
  }
  const slices = state.slices + 1;
  const maxSliceMs = Math.max(state.maxSliceMs, stopwatch() - started);
  if (next) {
    setTimer(sql, { kind: "suggestions.run", key: "", dueAt: now, payload: { ...next, slices, maxSliceMs } });
    return;
  }
  sql.exec(
    `INSERT INTO job_runs (job, started_at, finished_at, slices, max_slice_ms) VALUES ('suggestions', ?, ?, ?, ?)
     ON CONFLICT (job) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at, slices = excluded.slices, max_slice_ms = excluded.max_slice_ms`,
    state.startedAt,
    now,
    slices,
    maxSliceMs,
  );
}

function step(sql: SqlStorage, state: JobState, now: number): JobState | null {
  switch (state.phase) {
    case "changes":
      return changesStep(sql, state);
    case "pairs":
      return pairsStep(sql, state);
    case "meetings":
      return meetingsStep(sql, state);
    case "sample":
      return sampleStep(sql, state);
    case "estimate":
      return estimateStep(sql, state, now);
    case "score":
      return scoreStep(sql, state, now);
    case "withdraw":
      return withdrawUnfound(sql, state.startedAt, STEP.withdraw) > 0 ? state : { ...state, phase: "tidy" };
    case "tidy":
      return forgetDirty(sql, STEP.tidy) > 0 ? state : null;
  }
}

const then = (state: JobState, phase: Phase): JobState => ({ ...state, phase, after: null });

function changesStep(sql: SqlStorage, state: JobState): JobState {
  const { profiles, last } = traitChangesAfter(sql, state.seq, state.through, state.full ? STEP.firstChanges : STEP.changes);
  if (last === null) {
    countKeyedProfiles(sql, state.newProfiles);
    return { ...then(state, "pairs"), newProfiles: 0 };
  }
  const { lids, added } = writeProfiles(sql, profiles, readTraits(sql, profiles));
  // A first run keeps no pairs yet, and compares every pair of every block: nothing to mark.
  if (!state.full) markDirty(sql, lids);
  forgetTraitChanges(sql, state.seq, last);
  return { ...state, seq: last, newProfiles: state.newProfiles + added };
}

/** Compares pairs of profiles (linkage ids), in `a` < `b` order, with `meetings`. */
function compared(sql: SqlStorage, pairs: readonly [number, number, number][]): PairRow[] {
  const traits = comparedTraits(sql, [...new Set(pairs.flatMap(([a, b]) => [a, b]))]);
  return pairs.map(([p, q, meetings]) => {
    const [a, b] = p < q ? [p, q] : [q, p];
    const pattern = encodePattern(compareTraits(traits.get(a) ?? ({} as TraitSet), traits.get(b) ?? {}));
    return { a, b, pattern, meetings };
  });
}

/**
 * A first run's step: the pairs of blocks in key order (a pair in two blocks is kept once), about
 * `STEP.blockPairs` of them: a block that would bring more is cut after a member, and the next
 * step goes on from there (`after` is its key and that member's place), so that no step compares
 * a whole block of `MAX_BLOCK` profiles (1,225 pairs) at once.
 */
function blocksStep(sql: SqlStorage, state: JobState): JobState {
  const [afterKey = "", resumeAt] = state.after ?? [];
  const read = blocksAfter(sql, afterKey, STEP.blocks, resumeAt !== undefined);
  if (!read) return then(state, "meetings");
  const pairs = new Map<number, [number, number, number]>();
  let next: string[] = [read.last];
  blocks: for (const [key, members] of read.blocks) {
    if (pairs.size >= STEP.blockPairs) break;
    next = [key];
    for (let i = key === afterKey && resumeAt !== undefined ? Number(resumeAt) : 0; i < members.length; i++) {
      if (pairs.size >= STEP.blockPairs) {
        next = [key, String(i)];
        break blocks;
      }
      for (let j = i + 1; j < members.length; j++) {
        const [a, b] = [members[i] as number, members[j] as number];
        pairs.set(a < b ? pairNumber(a, b) : pairNumber(b, a), [a, b, 0]);
      }
    }
  }
  addPairs(sql, compared(sql, [...pairs.values()]));
  return { ...state, after: next };
}

function pairsStep(sql: SqlStorage, state: JobState): JobState {
  if (state.full) return blocksStep(sql, state);
  const dirty = dirtyAfter(sql, Number(state.after?.[0] ?? 0), STEP.pairs);
  const last = dirty.at(-1);
  if (last === undefined) return then(state, "meetings");
  addPairs(
    sql,
    compared(
      sql,
      partnersOf(sql, dirty).map(([p, q]) => [p, q, 0]),
    ),
  );
  return { ...state, after: [String(last)] };
}

function meetingsStep(sql: SqlStorage, state: JobState): JobState {
  const meetings = meetingsAfter(sql, (state.after ?? ["", ""]) as [string, string], STEP.meetings);
  const last = meetings.at(-1);
  if (!last) return then(state, "sample");
  const lids = linkageIds(
    sql,
    meetings.flatMap((meeting) => [meeting.profileA, meeting.profileB]),
  );
  const pairs = meetings.map((meeting) => {
    const [p, q] = [lids.get(meeting.profileA) as number, lids.get(meeting.profileB) as number];
    return { a: Math.min(p, q), b: Math.max(p, q), count: meeting.count };
  });
  const kept = keptPairs(
    sql,
    pairs.map(({ a, b }) => [a, b]),
  );
  const update: PairRow[] = [];
  const fresh: [number, number, number][] = [];
  for (const { a, b, count } of pairs) {
    const pair = kept.get(pairNumber(a, b));
    if (!pair) fresh.push([a, b, count]);
    else if (pair.meetings !== count) update.push({ ...pair, meetings: count });
  }
  setMeetings(sql, update);
  addPairs(sql, compared(sql, fresh));
  return { ...state, after: [last.profileA, last.profileB] };
}

/**
 * One chunk of the sample: the same profiles and pairs for the same space (seeded by its size).
 * A small space is sampled in fewer chunks and pairs, so that no pair counts many times over.
 */
function sampleStep(sql: SqlStorage, state: JobState): JobState {
  const profiles = keyedProfiles(sql);
  if (profiles < U_MIN_PROFILES || state.chunk >= Math.min(SAMPLE_CHUNKS, Math.ceil(profiles / SAMPLE_PROFILES))) {
    return then(state, "estimate");
  }
  const rand = seeded(profiles * SAMPLE_CHUNKS + state.chunk);
  const ids = sampleProfiles(sql, SAMPLE_PROFILES, rand);
  const chunk = sampleU(traitsByPlace(sql, ids), Math.min(SAMPLE_PAIRS, (ids.length * (ids.length - 1)) / 2), rand);
  return { ...state, chunk: state.chunk + 1, sample: addUSamples(state.sample ?? emptyUSample(), chunk) };
}

function estimateStep(sql: SqlStorage, state: JobState, now: number): JobState {
  const profiles = keyedProfiles(sql);
  const model = estimateModel(
    patternCounts(sql).map(([pattern, count]) => [decodePattern(pattern), count]),
    profiles < U_MIN_PROFILES ? defaultModel().u : uFromSample(state.sample ?? emptyUSample()),
    Math.max(1, (profiles * (profiles - 1)) / 2),
  );
  saveModel(sql, model, now);
  return { ...then(state, "score"), sample: null };
}

/**
 * A score step: the kept pairs whose pattern reaches the threshold (weighed once per pattern) or
 * whose profiles met, among those with `a` in a range of `STEP.scoreLids` linkage ids, so that
 * SQLite passes over the others without handing them out; `STEP.score` found pairs at most (the
 * step after goes on within the range). `after` is the last pair read and the range's end.
 */
function scoreStep(sql: SqlStorage, state: JobState, now: number): JobState {
  const [a = 0, b = 0, end = 1 + STEP.scoreLids] = (state.after ?? []).map(Number);
  if (a > maxPairLid(sql)) return then(state, "withdraw");
  const model = currentModel(sql);
  const weights = levelWeights(model);
  const scoreOf = (pattern: string, meetings: number) =>
    Math.round(probabilityOf(matchWeight(decodePattern(pattern), weights, model.lambda, meetings)) * 1000) / 1000;
  const reaching = patternCounts(sql)
    .map(([pattern]) => pattern)
    .filter((pattern) => scoreOf(pattern, 0) >= state.threshold);
  const pairs = reachingPairs(sql, [a, b], end, reaching, STEP.score);
  const found: (PairRow & { score: number })[] = [];
  for (const pair of pairs) {
    const score = scoreOf(pair.pattern, pair.meetings);
    if (score >= state.threshold) found.push({ ...pair, score });
  }
  const ids = profileIdsOf(
    sql,
    found.flatMap((pair) => [pair.a, pair.b]),
  );
  const named: FoundPair[] = [];
  for (const { a, b, ...pair } of found) {
    const [profileA, profileB] = [ids.get(a), ids.get(b)];
    if (profileA !== undefined && profileB !== undefined) named.push({ ...pair, profileA, profileB });
  }
  recordFound(sql, named, state.startedAt, now);
  const last = pairs.at(-1);
  const after = last && pairs.length === STEP.score ? [last.a, last.b, end] : [end, 0, end + STEP.scoreLids];
  return { ...state, after: after.map(String) };
}

export interface JobStatus {
  status: "idle" | "waiting" | "running";
  last_run: { started_at: string; finished_at: string; slices: number; max_slice_ms: number } | null;
}

/** Whether a run waits or runs, and how the last one went. */
export function suggestionJobStatus(sql: SqlStorage): JobStatus {
  const kinds = new Set(
    sql
      .exec<{ kind: string }>("SELECT kind FROM timers WHERE kind IN ('suggestions.debounce', 'suggestions.run')")
      .toArray()
      .map((row) => row.kind),
  );
  const last = sql
    .exec<{ started_at: number; finished_at: number; slices: number; max_slice_ms: number }>(
      "SELECT started_at, finished_at, slices, max_slice_ms FROM job_runs WHERE job = 'suggestions'",
    )
    .toArray()[0];
  return {
    status: kinds.has("suggestions.run") ? "running" : kinds.has("suggestions.debounce") ? "waiting" : "idle",
    last_run: last
      ? {
          started_at: new Date(last.started_at).toISOString(),
          finished_at: new Date(last.finished_at).toISOString(),
          slices: last.slices,
          max_slice_ms: Math.round(last.max_slice_ms * 100) / 100,
        }
      : null,
  };
}
