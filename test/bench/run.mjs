#!/usr/bin/env node
// `npm run bench` (DESIGN §6): `POST /v1/batch` over HTTP against the service in workerd
// (`wrangler dev`), next to references measured in the same run on the same runtime:
//   - the minimal path (test/bench/minimal/): a bare Worker + one SQLite Durable Object that
//     inserts the same batches raw into the same `items` table;
//   - the storage limit: that object's insert loop alone;
//   - the floor: an authenticated request that does no work (`GET /v1/whoami`).
// Prints a table and, as the last line of stdout, one JSON object of figures.
//
// Environment: BENCH_SECONDS (measured seconds per target, default 10), BENCH_WARMUP_SECONDS
// (default 2), BENCH_SLICES (alternating slices per target, default 5), BENCH_CLIENTS (default 4), BENCH_FLOOR_REQUESTS (default 500),
// BENCH_STORAGE_BATCHES (batches per storage-limit round, default 40), BENCH_VERBOSE=1 (show
// wrangler's output), BENCH_QUICK=1 (smaller identity figures, for iterating; the closing note
// of an issue reports the full run).
// Identity figures (test/bench/identity.mjs) are measured on the same service, each in a space
// of its own, after the ingest slices.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { contextFigures } from "./context.mjs";
import { identifyRate, mergeLarge, suggestionsJob } from "./identity.mjs";
import { startWrangler, stopAll } from "./servers.mjs";
import { Workload } from "./workload.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MINIMAL_DIR = fileURLToPath(new URL("./minimal/", import.meta.url));
const SECONDS = setting("BENCH_SECONDS", 10);
const WARMUP_SECONDS = setting("BENCH_WARMUP_SECONDS", 2);
const CLIENTS = Math.round(setting("BENCH_CLIENTS", 4));
const FLOOR_REQUESTS = Math.round(setting("BENCH_FLOOR_REQUESTS", 500));
const STORAGE_BATCHES = Math.round(setting("BENCH_STORAGE_BATCHES", 40));
const STORAGE_ROUNDS = 3;
const SLICES = Math.round(setting("BENCH_SLICES", 5));
const QUICK = process.env.BENCH_QUICK === "1";
const IDENTITY = QUICK
  ? { merges: 1_000, mergeEvents: [5_000], suggestionProfiles: 10_000 }
  : { merges: 5_000, mergeEvents: [5_000, 50_000], suggestionProfiles: 100_000 };
const CONTEXT = QUICK
  ? { profiles: 2_000, perProfile: 10, large: 5_000, reads: 200 }
  : { profiles: 20_000, perProfile: 10, large: 50_000, reads: 500 };
const BATCH_ITEMS = 500;
const WARMUP_BATCHES = 60;
/**
 * Batches built before a measurement: enough for POOL_FACTOR times the warm-up rate, and never
 * fewer than MIN_POOL_RATE items/s would need (a warm-up on a busy machine can be slow).
 */
const POOL_FACTOR = 3;
const MIN_POOL_RATE = 15_000;

function setting(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll().finally(() => process.exit(130));
  });
}

try {
  const figures = await main();
  printTable(figures);
  console.log(JSON.stringify(figures.json));
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
  rmSync(new URL("./minimal/.wrangler", import.meta.url), { recursive: true, force: true });
}

async function main() {
  const workload = new Workload({ run: randomBytes(4).toString("hex"), batchItems: BATCH_ITEMS });
  log(`building ${WARMUP_BATCHES} warm-up batches of ${BATCH_ITEMS} items`);
  const warmup = workload.bodies("warm", WARMUP_BATCHES);
  const pool = [];
  const ensurePool = (rate) => {
    const need = Math.ceil((Math.max(POOL_FACTOR * rate, MIN_POOL_RATE) * SECONDS) / BATCH_ITEMS) + 4 * CLIENTS;
    if (pool.length < need) {
      log(`building ${need - pool.length} more batches (${need} in all) before timing`);
      pool.push(...workload.bodies("run", need - pool.length));
    }
  };

  // Both servers run side by side; the full and the minimal path are measured in alternating
  // slices, so a noisy neighbour on the machine weighs on both alike and the ratio holds.
  const secrets = Object.fromEntries(
    ["KEY_PEPPER", "JWT_SECRET", "OPERATOR_TOKEN", "UPLOAD_SECRET"].map((name) => [name, randomBytes(32).toString("base64url")]),
  );
  log("starting the service and the minimal path (wrangler dev)");
  const [service, bare] = await Promise.all([
    startWrangler({ label: "full", cwd: ROOT, vars: secrets, readyPath: "/v1/openapi.json" }),
    startWrangler({ label: "minimal", cwd: MINIMAL_DIR, config: "wrangler.toml", readyPath: "/noop" }),
  ]);
  let full;
  let minimal;
  let floor;
  let storage;
  let identify;
  const merges = [];
  let suggestions;
  let context;
  try {
    const demo = await seedDemo(service.origin, secrets.OPERATOR_TOKEN);
    const targets = {
      full: { url: `${demo.base_url}/v1/batch`, headers: { authorization: `Bearer ${demo.key}` }, runs: [] },
      minimal: { url: `${bare.origin}/v1/batch`, headers: {}, runs: [] },
    };
    let warmRate = 0;
    for (const [name, target] of Object.entries(targets)) {
      log(`${name} path: warming up (${WARMUP_SECONDS}s)`);
      const warm = await load(target.url, target.headers, warmup.splice(0, warmup.length / 2), WARMUP_SECONDS);
      assertClean(`${name} path warm-up`, warm);
      warmRate = Math.max(warmRate, warm.rate);
    }
    log(`floor: ${FLOOR_REQUESTS} sequential GET /v1/whoami`);
    floor = await sequential(`${demo.base_url}/v1/whoami`, targets.full.headers, FLOOR_REQUESTS);
    ensurePool(2 * warmRate);
    log(`full and minimal path: ${CLIENTS} clients, ${SLICES} alternating slices of ${SECONDS / SLICES}s each`);
    for (let slice = 0; slice < SLICES; slice++) {
      for (const [name, target] of Object.entries(targets)) {
        const run = await load(target.url, target.headers, pool, SECONDS / SLICES);
        assertClean(`${name} path`, run);
        target.runs.push(run);
      }
    }
    full = merged(targets.full.runs);
    minimal = merged(targets.minimal.runs);
    // Early, for iterating on ingest: the whole table comes at the end.
    log(
      `ingest: full ${Math.round(full.rate)} items/s, minimal ${Math.round(minimal.rate)} items/s, ratio ${(full.rate / minimal.rate).toFixed(3)}`,
    );
    log(`storage limit: ${STORAGE_ROUNDS} rounds of ${STORAGE_BATCHES} batches in one call`);
    storage = await storageLimit(bare.origin, workload);
    log(
      `context: ${CONTEXT.profiles} profiles of ${CONTEXT.perProfile} events and one of ${CONTEXT.large}, read under a steady ingest`,
    );
    context = await contextFigures(service.origin, secrets.OPERATOR_TOKEN, { ...CONTEXT, ingestRate: full.rate });
    log(`identify: ${IDENTITY.merges} identify items merging two profiles each`);
    identify = await identifyRate(service.origin, secrets.OPERATOR_TOKEN, { merges: IDENTITY.merges });
    for (const events of IDENTITY.mergeEvents) {
      log(`merge of two profiles of ${events} events each`);
      merges.push(await mergeLarge(service.origin, secrets.OPERATOR_TOKEN, events, Math.max(10, 2 * floor.p50)));
    }
  } finally {
    await Promise.all([service.stop(), bare.stop()]);
  }
  // On a service of its own: workerd runs every object of a process on one thread, and the spaces
  // measured before still compile for minutes (the large merge's rebuild, the context space's
  // ingest), which in production run on threads of their own.
  log(`suggestions job over ${IDENTITY.suggestionProfiles} profiles, on a fresh service (it starts 30 s after the last write)`);
  const jobService = await startWrangler({ label: "suggestions", cwd: ROOT, vars: secrets, readyPath: "/v1/openapi.json" });
  try {
    suggestions = await suggestionsJob(
      jobService.origin,
      secrets.OPERATOR_TOKEN,
      IDENTITY.suggestionProfiles,
      Math.max(10, 2 * floor.p50),
    );
  } finally {
    await jobService.stop();
  }

  const json = {
    ingest_items_per_s: Math.round(full.rate),
    minimal_path_items_per_s: Math.round(minimal.rate),
    storage_limit_items_per_s: Math.round(storage.rate),
    ingest_ratio: round(full.rate / minimal.rate, 3),
    storage_ratio: round(full.rate / storage.rate, 3),
    batch_p50_ms: round(full.p50, 1),
    batch_p99_ms: round(full.p99, 1),
    floor_p50_ms: round(floor.p50, 1),
    floor_p99_ms: round(floor.p99, 1),
    minimal_batch_p50_ms: round(minimal.p50, 1),
    minimal_batch_p99_ms: round(minimal.p99, 1),
    identify_items_per_s: Math.round(identify.rate),
    merge_large_ms: round(merges.at(-1).ms, 1),
    merge_large_events: merges.at(-1).events,
    merge_5k_ms: round(merges[0].ms, 1),
    merge_floor_ms: round(merges.at(-1).floor, 1),
    merge_quiet_wait_s: round(merges.at(-1).waitedS, 1),
    suggestions_job_ms: Math.round(suggestions.ms),
    suggestions_max_slice_ms: round(suggestions.maxSliceMs, 2),
    suggestions_profiles: suggestions.profiles,
    suggestions_slices: suggestions.slices,
    suggestions_quiet_wait_s: round(suggestions.waitedS, 1),
    context_p50_ms: round(context.p50, 1),
    context_p99_ms: round(context.p99, 1),
    context_p50_ratio: round(context.p50 / context.floor_p50, 2),
    context_p99_ratio: round(context.p99 / context.floor_p99, 2),
    context_floor_p50_ms: round(context.floor_p50, 1),
    context_floor_p99_ms: round(context.floor_p99, 1),
    context_large_p99_ms: round(context.largeP99, 1),
    context_unchanged_p99_ms: round(context.unchangedP99, 1),
    live_first_read: round(context.liveFirstRead, 3),
    visibility_p99_ms: round(context.visibilityP99, 1),
    recompile_p99_ms: round(context.recompileP99, 1),
    feedback_to_context_p99_ms: round(context.feedbackToContextP99, 1),
    ...context.navigation,
    hot_tier_mb: round(context.hotTierMb, 2),
    context_seed_compile_s: round(context.seedCompileS, 1),
    context_profiles: context.profiles,
    context_events: context.events,
    seconds: SECONDS,
    clients: CLIENTS,
    batch_items: BATCH_ITEMS,
  };
  return { json, full, minimal, storage, floor };
}

/**
 * `CLIENTS` clients, each posting the next unsent body as soon as its previous answer is in,
 * until `seconds` have passed (batches started before then are waited for and counted).
 */
async function load(url, headers, bodies, seconds) {
  const sendHeaders = { ...headers, "content-type": "application/json" };
  const latencies = [];
  const failures = [];
  let items = 0;
  let exhausted = false;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const body = bodies.shift();
      if (body === undefined) {
        exhausted = true;
        return;
      }
      const t0 = performance.now();
      let status = 0;
      let text = "";
      try {
        const response = await fetch(url, { method: "POST", headers: sendHeaders, body });
        status = response.status;
        text = await response.text();
      } catch (error) {
        text = String(error);
      }
      latencies.push(performance.now() - t0);
      const accepted = status === 200 ? safeJson(text)?.accepted : undefined;
      if (accepted === BATCH_ITEMS) items += BATCH_ITEMS;
      else failures.push(`${status} ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const elapsed = (performance.now() - start) / 1000;
  return summary({ latencies, items, elapsed, failures, exhausted });
}

function summary({ latencies, items, elapsed, failures, exhausted }) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    latencies,
    batches: latencies.length,
    items,
    elapsed,
    rate: items / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    failures,
    exhausted,
  };
}

/** The slices of one target as one run. */
function merged(runs) {
  return summary({
    latencies: runs.flatMap((run) => run.latencies),
    items: runs.reduce((sum, run) => sum + run.items, 0),
    elapsed: runs.reduce((sum, run) => sum + run.elapsed, 0),
    failures: runs.flatMap((run) => run.failures),
    exhausted: runs.some((run) => run.exhausted),
  });
}

function assertClean(what, run) {
  if (run.failures.length > 0) {
    const sample = [...new Set(run.failures)].slice(0, 3).join("\n  ");
    throw new Error(
      `${what}: ${run.failures.length} of ${run.batches} batches were not 200 with accepted=${BATCH_ITEMS}:\n  ${sample}`,
    );
  }
  if (run.batches === 0) throw new Error(`${what}: no batch completed`);
  if (run.exhausted && !what.endsWith("warm-up")) {
    throw new Error(
      `${what}: ran out of pre-built batches after ${run.batches}; raise POOL_FACTOR or MIN_POOL_RATE in test/bench/run.mjs`,
    );
  }
}

/** One request at a time: latency of a request that does no work, after a short warm-up. */
async function sequential(url, headers, count) {
  const once = async () => {
    const t0 = performance.now();
    const response = await fetch(url, { headers });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 300)}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < Math.min(50, count); i++) await once();
  const latencies = [];
  for (let i = 0; i < count; i++) latencies.push(await once());
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * The storage limit: the minimal object's insert loop alone. A round stages STORAGE_BATCHES
 * batches of rows in the object's memory (one call, untimed), then one timed call runs only the
 * insert loop over them, one transactionSync per batch as on the real path, plus the commit that
 * follows the call. The median of STORAGE_ROUNDS rounds.
 *
 * How it is timed: from here, the call's wall time minus the median of an empty call through
 * the same Worker and object. Not with the object's own clock: workerd only promises that
 * clocks advance across I/O (in production they stand still while code runs). Under
 * `wrangler dev` they do advance during CPU work (verified: the object's performance.now()
 * delta over the loop is printed beside and comes out at 70-80% of the wall figure), but that
 * delta stops before the commit, which runs after the call's code has returned.
 */
async function storageLimit(origin, workload) {
  const post = async (path, body) => {
    const response = await fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const empty = [];
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    await (await fetch(`${origin}/noop`)).text();
    empty.push(performance.now() - t0);
  }
  empty.sort((a, b) => a - b);
  const emptyMs = percentile(empty, 50);

  const rounds = [];
  for (let round = 0; round < STORAGE_ROUNDS; round++) {
    const tag = `storage-${round}`;
    const body = JSON.stringify({ items: workload.items(tag) });
    const staged = await post(`/storage/stage?reps=${STORAGE_BATCHES}&tag=${tag}`, body);
    const t0 = performance.now();
    const timing = await post("/storage/drain");
    const wallMs = performance.now() - t0;
    if (timing.inserted !== staged.staged)
      throw new Error(`storage limit: staged ${staged.staged} rows, inserted ${timing.inserted}`);
    const loopMs = Math.max(wallMs - emptyMs, 0.001);
    rounds.push({ rate: (timing.inserted / loopMs) * 1000, wallMs, loopMs, objectMs: timing.performanceMs });
  }
  rounds.sort((a, b) => a.rate - b.rate);
  return { ...rounds[Math.floor(rounds.length / 2)], emptyMs, rows: STORAGE_BATCHES * BATCH_ITEMS };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function round(value, digits) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function log(message) {
  console.error(`[bench] ${message}`);
}

function printTable({ json, full, minimal, storage }) {
  const items = (n) => `${Math.round(n).toLocaleString("en-US")} items/s`;
  const ms = (n) => `${n.toFixed(1)} ms`;
  const runNote = (run) => `${run.batches} batches in ${run.elapsed.toFixed(1)}s, 0 failed`;
  const rows = [
    ["figure", "value", "note"],
    ["ingest (full path)", items(json.ingest_items_per_s), runNote(full)],
    ["  batch latency p50 / p99", `${ms(full.p50)} / ${ms(full.p99)}`, `${CLIENTS} clients, ${BATCH_ITEMS} items per batch`],
    ["minimal path", items(json.minimal_path_items_per_s), runNote(minimal)],
    ["  batch latency p50 / p99", `${ms(minimal.p50)} / ${ms(minimal.p99)}`, "bare Worker + one SQLite Durable Object"],
    [
      "storage limit",
      items(json.storage_limit_items_per_s),
      `${storage.rows} rows in ${ms(storage.loopMs)} (call ${ms(storage.wallMs)} - empty call ${ms(storage.emptyMs)}; object's clock ${ms(storage.objectMs)})`,
    ],
    ["floor (GET /v1/whoami) p50 / p99", `${ms(json.floor_p50_ms)} / ${ms(json.floor_p99_ms)}`, `${FLOOR_REQUESTS} sequential`],
    ["ingest ratio (full / minimal)", json.ingest_ratio.toFixed(3), "events carry 1-3 handles, a fifth new"],
    ["identify (merging two profiles each)", items(json.identify_items_per_s), "batches of 500, one client"],
    [
      "merge of two large profiles",
      ms(json.merge_large_ms),
      `${json.merge_large_events} events each; at 5,000: ${ms(json.merge_5k_ms)}; floor ${ms(json.merge_floor_ms)} after ${json.merge_quiet_wait_s} s for the service to be quiet`,
    ],
    [
      "suggestions job",
      ms(json.suggestions_job_ms),
      `${json.suggestions_profiles} profiles, ${json.suggestions_slices} slices, after ${json.suggestions_quiet_wait_s} s for the service to be quiet`,
    ],
    ["  longest slice", ms(json.suggestions_max_slice_ms), "object's clock under wrangler dev"],
    [
      "context p50 / p99",
      `${ms(json.context_p50_ms)} / ${ms(json.context_p99_ms)}`,
      `ratios to the floor ${json.context_p50_ratio} / ${json.context_p99_ratio}; ${json.context_profiles} profiles, ${json.context_events} events`,
    ],
    ["  floor under the same ingest", `${ms(json.context_floor_p50_ms)} / ${ms(json.context_floor_p99_ms)}`, "GET /v1/whoami"],
    ["  large profile p99", ms(json.context_large_p99_ms), "its events in the hundreds of sessions"],
    ["  unchanged (known_etag) p99", ms(json.context_unchanged_p99_ms), ""],
    [
      "live on the first read",
      json.live_first_read.toFixed(3),
      `visibility p99 ${ms(json.visibility_p99_ms)} (batch sent to read answered)`,
    ],
    ["recompile p99", ms(json.recompile_p99_ms), "system event answered to its fact in compiled memory"],
    ["feedback to context p99", ms(json.feedback_to_context_p99_ms), "correct_fact sent to the corrected value in context"],
    [
      "timeline page p99",
      `${ms(json.timeline_page_p99_ms)} / large ${ms(json.timeline_large_page_p99_ms)}`,
      "first and follow-up pages; the large profile's 50,000 events",
    ],
    ["search p99", ms(json.search_p99_ms), `ratio to the floor ${json.search_p99_ratio} (target ≤ 3.0)`],
    ["MCP context p99", ms(json.mcp_context_p99_ms), `over the HTTP context p99: ${json.mcp_context_ratio} (target ≤ 1.3)`],
    [
      "search recall@10",
      String(json.search_recall_at_10),
      `textbook BM25 ${json.search_recall_textbook_at_10}; ratio ${json.search_recall_ratio} (target ≥ 1.0)`,
    ],
    ["hot tier", `${json.hot_tier_mb} MB`, "at the end of the run"],
    ["seed compiled in", `${json.context_seed_compile_s} s`, "the context space's backlog after its seed, before the reads"],
    ["storage ratio (full / storage limit)", json.storage_ratio.toFixed(3), ""],
  ];
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row) => `${row[0].padEnd(widths[0])}  ${row[1].padStart(widths[1])}  ${row[2]}`.trimEnd();
  console.log(line(rows[0]));
  console.log(`${"-".repeat(widths[0])}  ${"-".repeat(widths[1])}  ${"-".repeat(4)}`);
  for (const row of rows.slice(1)) console.log(line(row));
}
