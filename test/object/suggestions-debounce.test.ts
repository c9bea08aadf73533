import { describe, expect, it } from "vitest";
import { DEBOUNCE_MS, MAX_DEBOUNCE_MS, requestSuggestions } from "../../src/space/identity/suggestion-job";
import { withIntake } from "../support/intake";

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const dueAt = (sql: SqlStorage) =>
  sql.exec<{ due_at: number }>("SELECT due_at FROM timers WHERE kind = 'suggestions.debounce'").one().due_at;

describe("the suggestions job's debounce", () => {
  it("waits for writes to pause for DEBOUNCE_MS, so a burst longer than that makes one run", async () => {
    // The documented times (docs/api/identity.md): 30 s after writes pause, at most 5 minutes after the first.
    expect([DEBOUNCE_MS, MAX_DEBOUNCE_MS]).toEqual([30_000, 300_000]);
    await withIntake((_intake, sql) => {
      requestSuggestions(sql, NOW);
      expect(dueAt(sql)).toBe(NOW + DEBOUNCE_MS);
      requestSuggestions(sql, NOW + 25_000);
      expect(dueAt(sql)).toBe(NOW + 25_000 + DEBOUNCE_MS);
    });
  });

  it("starts a run MAX_DEBOUNCE_MS after a burst's first write, however long writes keep coming", async () => {
    await withIntake((_intake, sql) => {
      for (let at = NOW; at < NOW + 2 * MAX_DEBOUNCE_MS; at += DEBOUNCE_MS / 2) {
        requestSuggestions(sql, at);
        expect(dueAt(sql)).toBe(Math.min(at + DEBOUNCE_MS, NOW + MAX_DEBOUNCE_MS));
      }
    });
  });

  it("never moves a debounce set before it was bounded (no first write on record) later", async () => {
    await withIntake((_intake, sql) => {
      sql.exec("INSERT INTO timers (kind, key, due_at, payload) VALUES ('suggestions.debounce', '', ?, 'null')", NOW);
      requestSuggestions(sql, NOW - 1_000);
      expect(dueAt(sql)).toBe(NOW);
    });
  });
});
