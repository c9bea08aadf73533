import { continueSuggestions, type JobState, startSuggestions } from "./identity/suggestion-job";
import { compileSlice, compileSubjects, queueCompile } from "./memory/compiler";
import { noSubjects } from "./memory/derivations";
import { closeSession } from "./memory/sessions";
import { type Timer, takeDueTimers } from "./timers";

/** What timers changed that the object holds in memory: sessions that closed leave the hot tier. */
export interface TimerEffects {
  closed: { sessionId: string; profileId: string }[];
}

/**
 * Runs every timer due at `now` (DESIGN §4): the one place a timer's kind meets its effect.
 * `stopwatch` measures work (jobs report their slices' length); `now` decides what is due.
 */
export function runDueTimers(sql: SqlStorage, now: number, stopwatch: () => number): TimerEffects {
  const effects: TimerEffects = { closed: [] };
  for (const timer of takeDueTimers(sql, now)) run(sql, timer, now, stopwatch, effects);
  return effects;
}

function run(sql: SqlStorage, timer: Timer, now: number, stopwatch: () => number, effects: TimerEffects): void {
  switch (timer.kind) {
    case "suggestions.debounce":
      startSuggestions(sql, now);
      break;
    case "suggestions.run":
      continueSuggestions(sql, timer.payload as JobState, now, stopwatch);
      break;
    case "session.close": {
      const closed = closeSession(sql, timer.key, timer.dueAt, (timer.payload as { windowMs?: number } | null)?.windowMs ?? null);
      if (closed) {
        effects.closed.push({ sessionId: closed.sessionId, profileId: closed.profileId });
        queueCompile(sql, new Map([[closed.sessionId, { profileId: closed.profileId, events: 0 }]]), now);
      }
      break;
    }
    case "memory.compile":
      compileSlice(sql, now, stopwatch);
      break;
    case "promise.due": {
      const { profileId, subject } = timer.payload as { profileId: string; subject: string };
      compileSubjects(sql, profileId, { ...noSubjects(), objects: new Set([subject]) }, now);
      break;
    }
  }
}
