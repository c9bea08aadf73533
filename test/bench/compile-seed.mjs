// Issue 33's compile rate, in the ingest phase of `npm run bench` (run.mjs):
//   - compile_seed_events_per_s: a fresh space takes `batches` of the ingest workload's 500-item
//     batches from 4 clients, as fast as it answers (the compiler gives way meanwhile: the writes
//     saturate the object); from the last answer, the events waiting for the compiler
//     (`compile_events` of `GET /v1/ops/memory`) over the time until none wait, on a service of
//     its own (run.mjs `compileSeedRun`). The space's suggestions job starts 30 s after the last
//     write, and the compiler then takes a round a second (compile-pacing.ts): a drain longer than
//     that is slowed by it;
//   - compile_ratio: that over `ingest_items_per_s` of the same run (target ≥ 0.5: the compiler
//     keeps up with half of what the batch path takes in).
// The labelled set's `compile_events_per_s` (memory.mjs, issue 31) is another figure: every
// session of a set compiled again whole.
import { seedDemo } from "../../scripts/seed-demo.mjs";

const POLL_MS = 100;
const TIMEOUT_S = 900;

/** The memory figures of a space (`GET /v1/ops/memory`). */
async function memoryStats(base, operatorToken) {
  const response = await fetch(`${base}/v1/ops/memory`, { headers: { "x-service-operator-token": operatorToken } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/ops/memory answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Resolves once nothing waits for the space's compiler. */
async function compiled(base, operatorToken) {
  const t0 = performance.now();
  while ((await memoryStats(base, operatorToken)).compile_queue > 0) {
    if (performance.now() - t0 > TIMEOUT_S * 1000) throw new Error(`compile seed: not compiled after ${TIMEOUT_S} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The seed written into a fresh space of the service at `origin`, then timed until compiled.
 * `load(url, headers, bodies, seconds)` sends the bodies as the ingest rounds do.
 */
export async function compileSeedRate(origin, operatorToken, { workload, batches, load, assertClean }) {
  const demo = await seedDemo(origin, operatorToken);
  const bodies = workload.bodies("seed", batches);
  const written = await load(`${demo.base_url}/v1/batch`, { authorization: `Bearer ${demo.key}` }, bodies, 600);
  assertClean("compile seed", written);
  const t0 = performance.now();
  const { compile_events: events } = await memoryStats(demo.base_url, operatorToken);
  await compiled(demo.base_url, operatorToken);
  const seconds = (performance.now() - t0) / 1000;
  return { events, seconds, rate: events / seconds, written: written.items };
}
