import { describe, expect, it } from "vitest";
import { runDueTimers } from "../../src/space/alarm";
import {
  BUSY_WINDOW_MS,
  COMPILE_YIELD_MS,
  type CompileLoad,
  CompilePacing,
  MAX_YIELD_MS,
  SATURATED_SHARE,
} from "../../src/space/compile-pacing";
import { startSuggestions } from "../../src/space/identity/suggestion-job";
import { COMPILE_DEBOUNCE_MS, compileQueueLength } from "../../src/space/memory/compiler";
import { storeBatch, TRACK_CALLER, withIntake } from "../support/intake";
import { message } from "../support/seed";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
/** The load of a space that only takes writes: `backlogged` or not, `saturated` or not. */
const writes = (backlogged: boolean, saturated = false): CompileLoad => ({
  backlogged: () => backlogged,
  saturated,
  readerWaits: () => false,
  jobRunning: false,
});
/** A batch stored in 10 ms of the batches' clock. */
const stored = (pacing: CompilePacing, at = 0) => pacing.wrote(at, at + 10);

describe("the compiler gives way to writes that saturate the object", () => {
  it("runs whenever no batch came since it last ran, however long the backlog", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    expect(pacing.mayCompile(NOW + 1, writes(true))).toBe(true);
  });

  it("yields while batches keep coming and the backlog is long, and still runs once per MAX_YIELD_MS", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    stored(pacing);
    expect(pacing.mayCompile(NOW + 10, writes(true))).toBe(false);
    stored(pacing);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS - 1, writes(true))).toBe(false);
    stored(pacing);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS, writes(true))).toBe(true);
  });

  it("yields once per batch, so a steady rate below saturation never starves it, however long the backlog", () => {
    const pacing = new CompilePacing();
    for (let batch = 1; batch <= 5; batch++) {
      const at = NOW + batch * 1_600;
      expect(pacing.mayCompile(at - 10, writes(true))).toBe(true);
      stored(pacing);
      expect(pacing.mayCompile(at, writes(true))).toBe(false);
      expect(pacing.mayCompile(at + COMPILE_YIELD_MS, writes(true))).toBe(true);
      expect(pacing.mayCompile(at + COMPILE_YIELD_MS + 10, writes(true))).toBe(true);
    }
  });

  it("runs at once, batches or not, when a reader waits for a profile's memory", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    stored(pacing);
    expect(pacing.mayCompile(NOW + 10, { ...writes(true), readerWaits: () => true })).toBe(true);
  });

  it("does not yield to batches while the backlog is short (a steady rate the compiler keeps up with)", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(false))).toBe(true);
    stored(pacing);
    expect(pacing.mayCompile(NOW + 10, writes(false))).toBe(true);
  });

  it("yields to batches that keep the object busy however short the backlog, and still runs once per MAX_YIELD_MS", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(false, true))).toBe(true);
    stored(pacing);
    expect(pacing.mayCompile(NOW + 10, writes(false, true))).toBe(false);
    stored(pacing);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS, writes(false, true))).toBe(true);
  });

  it("calls the writes saturating when batches took SATURATED_SHARE of the last BUSY_WINDOW_MS", () => {
    const busy = SATURATED_SHARE * BUSY_WINDOW_MS;
    const pacing = new CompilePacing();
    expect(pacing.writesSaturate(0)).toBe(false);
    // Two batches of half the share each, with a pause between them.
    pacing.wrote(0, busy / 2);
    pacing.wrote(busy, busy * 1.5 - 1);
    expect(pacing.writesSaturate(busy * 1.5)).toBe(false);
    pacing.wrote(busy * 1.5, busy * 1.5 + 1);
    expect(pacing.writesSaturate(busy * 1.5 + 1)).toBe(true);
    // A second later the same batches are out of the window.
    expect(pacing.writesSaturate(busy * 1.5 + 1 + BUSY_WINDOW_MS)).toBe(false);
    // A steady quarter of the object never saturates it.
    const quarter = new CompilePacing();
    for (let at = 0; at < 10 * BUSY_WINDOW_MS; at += 100) {
      quarter.wrote(at, at + 25);
      expect(quarter.writesSaturate(at + 25)).toBe(false);
    }
  });

  it("puts a compile it may not run off by COMPILE_YIELD_MS, its queue untouched, and compiles it later", async () => {
    await withIntake((intake, sql) => {
      storeBatch(intake, TRACK_CALLER, { items: [message({ occurred_at: "2026-11-24T11:59:00Z" })] }, NOW, {});
      expect(compileQueueLength(sql)).toBe(1);

      const due = NOW + COMPILE_DEBOUNCE_MS;
      runDueTimers(sql, due, { stopwatch: () => performance.now(), mayCompile: () => false });
      expect(compileQueueLength(sql)).toBe(1);
      const timer = sql.exec<{ due_at: number }>("SELECT due_at FROM timers WHERE kind = 'memory.compile'").one();
      expect(timer.due_at).toBe(due + COMPILE_YIELD_MS);

      runDueTimers(sql, due + COMPILE_YIELD_MS, { stopwatch: () => performance.now(), mayCompile: () => true });
      expect(compileQueueLength(sql)).toBe(0);
    });
  });
});

describe("the compiler gives way to a run of the suggestions job", () => {
  const job = (readerWaits: boolean): CompileLoad => ({
    backlogged: () => false,
    saturated: false,
    readerWaits: () => readerWaits,
    jobRunning: true,
  });

  it("takes a round once per MAX_YIELD_MS while a run is under way", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, job(false))).toBe(true);
    expect(pacing.mayCompile(NOW + COMPILE_YIELD_MS, job(false))).toBe(false);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS - 1, job(false))).toBe(false);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS, job(false))).toBe(true);
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS + 1, writes(true))).toBe(true);
  });

  it("runs at once when a reader waits for a profile's memory", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, job(false))).toBe(true);
    expect(pacing.mayCompile(NOW + 10, job(true))).toBe(true);
  });

  it("is told of the run by the rounds that have a slice of it due", async () => {
    await withIntake((intake, sql) => {
      storeBatch(intake, TRACK_CALLER, { items: [message({ occurred_at: "2026-11-24T11:59:00Z" })] }, NOW, {});
      let at = NOW + COMPILE_DEBOUNCE_MS;
      startSuggestions(sql, at);
      const asked: boolean[] = [];
      const round = {
        stopwatch: () => performance.now(),
        mayCompile: (jobRunning: boolean) => {
          asked.push(jobRunning);
          return !jobRunning;
        },
      };
      const running = () => sql.exec("SELECT 1 FROM timers WHERE kind = 'suggestions.run'").toArray().length > 0;
      while (running()) {
        runDueTimers(sql, at, round);
        at += COMPILE_YIELD_MS;
      }
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((jobRunning) => jobRunning)).toBe(true);
      expect(compileQueueLength(sql)).toBe(1);
      runDueTimers(sql, at, round);
      expect(asked.at(-1)).toBe(false);
      expect(compileQueueLength(sql)).toBe(0);
    });
  });
});
