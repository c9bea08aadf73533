import { describe, expect, it } from "vitest";
import { runDueTimers } from "../../src/space/alarm";
import { COMPILE_YIELD_MS, type CompileLoad, CompilePacing, MAX_YIELD_MS } from "../../src/space/compile-pacing";
import { startSuggestions } from "../../src/space/identity/suggestion-job";
import { COMPILE_DEBOUNCE_MS, compileQueueLength } from "../../src/space/memory/compiler";
import { storeBatch, TRACK_CALLER, withIntake } from "../support/intake";
import { message } from "../support/seed";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
/** The load of a space that only takes writes: `backlogged` or not. */
const writes = (backlogged: boolean): CompileLoad => ({
  backlogged: () => backlogged,
  readerWaits: () => false,
  jobRunning: false,
});

describe("the compiler gives way to writes that saturate the object", () => {
  it("runs whenever no batch came since it last ran, however long the backlog", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    expect(pacing.mayCompile(NOW + 1, writes(true))).toBe(true);
  });

  it("yields while batches keep coming and the backlog is long, and still runs once per MAX_YIELD_MS", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    pacing.wrote();
    expect(pacing.mayCompile(NOW + 10, writes(true))).toBe(false);
    pacing.wrote();
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS - 1, writes(true))).toBe(false);
    pacing.wrote();
    expect(pacing.mayCompile(NOW + MAX_YIELD_MS, writes(true))).toBe(true);
  });

  it("yields once per batch, so a steady rate below saturation never starves it, however long the backlog", () => {
    const pacing = new CompilePacing();
    for (let batch = 1; batch <= 5; batch++) {
      const at = NOW + batch * 1_600;
      expect(pacing.mayCompile(at - 10, writes(true))).toBe(true);
      pacing.wrote();
      expect(pacing.mayCompile(at, writes(true))).toBe(false);
      expect(pacing.mayCompile(at + COMPILE_YIELD_MS, writes(true))).toBe(true);
      expect(pacing.mayCompile(at + COMPILE_YIELD_MS + 10, writes(true))).toBe(true);
    }
  });

  it("runs at once, batches or not, when a reader waits for a profile's memory", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(true))).toBe(true);
    pacing.wrote();
    expect(pacing.mayCompile(NOW + 10, { ...writes(true), readerWaits: () => true })).toBe(true);
  });

  it("does not yield to batches while the backlog is short (a steady rate the compiler keeps up with)", () => {
    const pacing = new CompilePacing();
    expect(pacing.mayCompile(NOW, writes(false))).toBe(true);
    pacing.wrote();
    expect(pacing.mayCompile(NOW + 10, writes(false))).toBe(true);
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
