import { describe, expect, it } from "vitest";
import { runDueTimers } from "../../src/space/alarm";
import { ingestBatch } from "../../src/space/intake";
import { COMPILE_DEBOUNCE_MS, compileQueueLength } from "../../src/space/memory/compiler";
import { COMPILE_YIELD_MS, MAX_YIELD_MS, WritePressure } from "../../src/space/write-pressure";
import { TRACK_CALLER, withIntake } from "../support/intake";
import { message } from "../support/seed";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

describe("the compiler yields to writes that saturate the object", () => {
  it("runs whenever no batch came since it last ran, however long the backlog", () => {
    const pressure = new WritePressure();
    expect(pressure.mayCompile(NOW, () => true)).toBe(true);
    expect(pressure.mayCompile(NOW + 1, () => true)).toBe(true);
  });

  it("yields while batches keep coming and the backlog is long, and still runs once per MAX_YIELD_MS", () => {
    const pressure = new WritePressure();
    expect(pressure.mayCompile(NOW, () => true)).toBe(true);
    pressure.wrote();
    expect(pressure.mayCompile(NOW + 10, () => true)).toBe(false);
    pressure.wrote();
    expect(pressure.mayCompile(NOW + MAX_YIELD_MS - 1, () => true)).toBe(false);
    pressure.wrote();
    expect(pressure.mayCompile(NOW + MAX_YIELD_MS, () => true)).toBe(true);
  });

  it("yields once per batch, so a steady rate below saturation never starves it, however long the backlog", () => {
    const pressure = new WritePressure();
    for (let batch = 1; batch <= 5; batch++) {
      const at = NOW + batch * 1_600;
      expect(pressure.mayCompile(at - 10, () => true)).toBe(true);
      pressure.wrote();
      expect(pressure.mayCompile(at, () => true)).toBe(false);
      expect(pressure.mayCompile(at + COMPILE_YIELD_MS, () => true)).toBe(true);
      expect(pressure.mayCompile(at + COMPILE_YIELD_MS + 10, () => true)).toBe(true);
    }
  });

  it("does not yield to batches while the backlog is short (a steady rate the compiler keeps up with)", () => {
    const pressure = new WritePressure();
    expect(pressure.mayCompile(NOW, () => false)).toBe(true);
    pressure.wrote();
    expect(pressure.mayCompile(NOW + 10, () => false)).toBe(true);
  });

  it("puts a compile it may not run off by COMPILE_YIELD_MS, its queue untouched, and compiles it later", async () => {
    await withIntake((intake, sql) => {
      ingestBatch(intake, TRACK_CALLER, { items: [message({ occurred_at: "2026-11-24T11:59:00Z" })] }, NOW, {});
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
