import { purgeAnswers } from "../idempotency-store";
import { COMPILE_YIELD_MS } from "./compile-pacing";
import { EXPORT_LEASE_MS } from "./exports/jobs";
import { foldSightings } from "./identity/handle-store";
import { continueSuggestions, type JobState, startSuggestions } from "./identity/suggestion-job";
import { holdWatch } from "./imports/watch";
import { writeServedContexts } from "./measurement/served-contexts";
import { holdExpiry } from "./media/expiry";
import { compileSlice, compileSubjects, queueCompile } from "./memory/compiler";
import { noSubjects } from "./memory/derivations";
import { foldPlacements } from "./memory/session-events";
import { closeSessions, foldSessions } from "./memory/sessions";
import { continueErasure, type ErasureJob, retrySigning } from "./privacy/erasures";
import { continueRetention, type RetentionJob } from "./privacy/retention";
import { indexStep } from "./search/backlog";
import { reindexSlice } from "./search/reindex";
import { setTimer, type Timer, takeDueTimers } from "./timers";

/**
 * What timers changed that the object holds in memory: sessions that closed leave the hot tier; a
 * due model step is started by the object after the round (its calls are async: `model-step.ts`),
 * and so are the due exports' slices (they write to R2: `exports/jobs.ts`).
 */
export interface TimerEffects {
  closed: { sessionId: string; profileId: string }[];
  summarize: boolean;
  exports: string[];
  /** Whether exports expired: the object deletes their files from R2 after the round (`exports/expiry.ts`). */
  expireExports: boolean;
  /** Erasures whose receipt is to be signed (async: WebCrypto), by receipt id. */
  sign: string[];
  /** Profiles whose events retention erased: the hot tier loads them again. */
  retained: string[];
  /** Expired media reservations, by `media_ref`: the object looks for their bytes in R2 after the round (`media/expiry.ts`). */
  mediaExpired: string[];
  /** Due import watches: the object acts on them after the round (`imports/watch.ts`: R2 and the queue). */
  importWatches: { importId: string; payload: unknown }[];
}

/** What a round of timers is told besides the time. */
export interface Round {
  /** Measures work (jobs report their slices' length); `now` decides what is due. */
  stopwatch: () => number;
  /** Asked when a compile is due: false while writes saturate the object or a job runs (`compile-pacing.ts`). */
  mayCompile: (jobRunning: boolean) => boolean;
  /** Whether closed sessions are queued for a model: a binding and a model named in config. */
  summarizing?: boolean;
  /** Whether batches keep the object busy (`CompilePacing.writesSaturate`): the search index gives way. */
  saturated?: boolean;
}

/** Runs every timer due at `now` (DESIGN §4): the one place a timer's kind meets its effect. */
export function runDueTimers(sql: SqlStorage, now: number, round: Round): TimerEffects {
  const due = takeDueTimers(sql, now);
  const effects: TimerEffects = {
    closed: [],
    summarize: due.some((timer) => timer.kind === "memory.summarize"),
    exports: due.filter((timer) => timer.kind === "export.run").map((timer) => timer.key),
    expireExports: false,
    sign: [],
    retained: [],
    mediaExpired: [],
    importWatches: [],
  };
  const jobRunning = due.some((timer) => timer.kind === "suggestions.run");
  // Close timers are read and written together: each session is read through the session inbox.
  const closes = due.filter((timer) => timer.kind === "session.close");
  if (closes.length > 0) {
    const closed = closeSessions(
      sql,
      closes.map((timer) => ({
        sessionId: timer.key,
        dueAt: timer.dueAt,
        windowMs: (timer.payload as { windowMs?: number } | null)?.windowMs ?? null,
      })),
      now,
    );
    effects.closed.push(...closed.map(({ sessionId, profileId }) => ({ sessionId, profileId })));
    queueCompile(sql, new Map(closed.map(({ sessionId, profileId }) => [sessionId, { profileId, events: 0 }])), now);
  }
  for (const timer of due) run(sql, timer, now, round, jobRunning, effects);
  return effects;
}

function run(sql: SqlStorage, timer: Timer, now: number, round: Round, jobRunning: boolean, effects: TimerEffects): void {
  const { stopwatch, mayCompile, summarizing } = round;
  switch (timer.kind) {
    case "suggestions.debounce":
      startSuggestions(sql, now);
      break;
    case "suggestions.run":
      continueSuggestions(sql, timer.payload as JobState, now, stopwatch);
      break;
    case "session.close":
      break; // above, all at once
    case "sessions.fold":
      foldSessions(sql);
      break;
    case "inbox.fold":
      foldSightings(sql);
      foldPlacements(sql);
      writeServedContexts(sql);
      break;
    case "memory.compile":
      if (mayCompile(jobRunning)) compileSlice(sql, now, stopwatch, summarizing === true);
      else setTimer(sql, { ...timer, dueAt: now + COMPILE_YIELD_MS });
      break;
    case "promise.due": {
      const { profileId, subject } = timer.payload as { profileId: string; subject: string };
      compileSubjects(sql, profileId, { ...noSubjects(), objects: new Set([subject]) }, now);
      break;
    }
    case "search.reindex":
      reindexSlice(sql, now, stopwatch);
      break;
    case "search.index":
      indexStep(sql, now, round.saturated === true);
      break;
    case "memory.summarize":
      break; // in effects: the object starts it after the round
    case "export.run":
      // In effects: the object writes the slice after the round. Held meanwhile, so that an
      // object that dies mid-slice has the export go on later.
      setTimer(sql, { ...timer, dueAt: now + EXPORT_LEASE_MS });
      break;
    case "export.expire":
      // In effects, as `export.run`: held meanwhile, so that an object that dies mid-delete does it again.
      setTimer(sql, { ...timer, dueAt: now + EXPORT_LEASE_MS });
      effects.expireExports = true;
      break;
    case "forget.run":
      if (continueErasure(sql, timer.payload as ErasureJob, now, stopwatch)) effects.sign.push(timer.key);
      break;
    case "forget.sign":
      // The object signs after the round; until its signature is stored, the timer stays.
      retrySigning(sql, timer, now);
      effects.sign.push(timer.key);
      break;
    case "media.expiry":
      holdExpiry(sql, timer.key, now);
      effects.mediaExpired.push(timer.key);
      break;
    case "import.watch":
      holdWatch(sql, timer.key, timer.payload, now);
      effects.importWatches.push({ importId: timer.key, payload: timer.payload });
      break;
    case "retention.run":
      effects.retained.push(...continueRetention(sql, timer.payload as RetentionJob | null, now, stopwatch));
      break;
    case "idempotency.purge": {
      const next = purgeAnswers(sql, now);
      if (next !== null) setTimer(sql, { ...timer, dueAt: next });
      break;
    }
  }
}
