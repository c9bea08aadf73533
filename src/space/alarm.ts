import { continueSuggestions, type JobState, startSuggestions } from "./identity/suggestion-job";
import { type Timer, takeDueTimers } from "./timers";

/** Runs every timer due at `now` (DESIGN §4): the one place a timer's kind meets its effect. */
export function runDueTimers(sql: SqlStorage, now: number): void {
  for (const timer of takeDueTimers(sql, now)) run(sql, timer, now);
}

function run(sql: SqlStorage, timer: Timer, now: number): void {
  switch (timer.kind) {
    case "suggestions.debounce":
      startSuggestions(sql, now);
      break;
    case "suggestions.run":
      continueSuggestions(sql, timer.payload as JobState, now);
      break;
  }
}
