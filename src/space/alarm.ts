import { continueSuggestions, type JobState, startSuggestions } from "./identity/suggestion-job";
import { type Timer, takeDueTimers } from "./timers";

/**
 * Runs every timer due at `now` (DESIGN §4): the one place a timer's kind meets its effect.
 * `stopwatch` measures work (jobs report their slices' length); `now` decides what is due.
 */
export function runDueTimers(sql: SqlStorage, now: number, stopwatch: () => number): void {
  for (const timer of takeDueTimers(sql, now)) run(sql, timer, now, stopwatch);
}

function run(sql: SqlStorage, timer: Timer, now: number, stopwatch: () => number): void {
  switch (timer.kind) {
    case "suggestions.debounce":
      startSuggestions(sql, now);
      break;
    case "suggestions.run":
      continueSuggestions(sql, timer.payload as JobState, now, stopwatch);
      break;
  }
}
