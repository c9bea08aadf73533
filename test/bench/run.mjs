#!/usr/bin/env node
// `npm run bench` (DESIGN §6): `POST /v1/batch` over HTTP against the service in workerd
// (`wrangler dev`), next to references measured in the same run on the same runtime:
//   - the minimal path (test/bench/minimal/): a bare Worker + one SQLite Durable Object that
//     inserts the same batches raw into the same `items` table;
//   - the storage limit: that object's insert loop alone;
//   - the floor: an authenticated request that does no work (`GET /v1/whoami`).
// Prints a table, a verdict for every target, and, as the last line of stdout, one JSON object
// of figures.
//
// Figures that hold from run to run (a p99 of a hundred samples in one window on a noisy 2-core
// machine is one or two samples):
//   - Interleaved rounds. Every latency and its reference are measured in ROUNDS rounds (default
//     5), target and reference alternating within each round and their order reversed every
//     other round: the full path, the minimal path and the storage limit, one slice each per
//     round; in the context space the eight read probes, one request of each in turn
//     (context.mjs). A ratio is the MEDIAN OF THE ROUNDS' RATIOS (each round's target over the
//     same round's reference); a figure in ms or items/s is taken over all rounds' samples at
//     once. Beside each, `<key>_spread` = [min, max] of the rounds' values (for a ratio, the
//     rounds' ratios; for a percentile, the rounds' own percentiles). One convention throughout.
//   - Samples behind each percentile, full run (BENCH_QUICK=1 in brackets). Nearest rank: a p99
//     of n samples is the smallest of its n/100 largest, so it rests on n/100 samples.
//       batch latency, full and minimal path: ROUNDS × ROUND_BATCHES = 5 × 200 = 1,000 batches
//         each (5 × 60 = 300): p99 on 10 (3); a round's p99 on 2 (1);
//       floor (GET /v1/whoami, right after the warm-ups): 1,000 sequential (400): p99 on 10 (4);
//       context reads of a random and of the large profile, known_etag reads, timeline pages of
//         both, search, MCP, and the floor beside them: 5 × 240 = 1,200 each (5 × 40 = 200):
//         p99 on 12 (2); a round's on 2;
//       visibility and live_first_read: 1,000 trials (200): p99 on 10 (2);
//       recompile and feedback to context: 300 trials each (50): p99 on 3 (1). Each waits for a
//         compile (200 ms debounce), and the run's time allows no more; their spread says how
//         far that p99 moves from round to round;
//       storage limit: one drain of STORAGE_BATCHES × 500 rows per round (the median of 5).
//     On a machine too busy for the run's time, a slice ends after SLICE_MAX_SECONDS and a round
//     of context samples after its `maxSeconds` (below), with fewer samples: the table prints
//     how many samples stand behind each figure.
//   - Single-shot timings are repeated, each in a space of its own, and reported as the median
//     with the spread: the merge of two profiles of 5,000 events (merge_5k_ms) 5 times (3), of
//     50,000 (merge_large_ms) 3 times (the quick run merges 5,000 only: merge_large_ms is its
//     5,000 figure), the suggestions job 3 times (3) and the compile seed's drain 3 times (3),
//     each on a service of its own.
//   - The servers run a snapshot of the tree taken at the start, with wrangler's local
//     observability off (servers.mjs).
//
// Environment: BENCH_ROUNDS (interleaved rounds of every phase, default 5), BENCH_ROUND_BATCHES
// (batches per path per round, default 200, quick 60), BENCH_SLICE_MAX_SECONDS (default 30,
// quick 15), BENCH_WARMUP_SECONDS (default 2), BENCH_CLIENTS (default 4), BENCH_FLOOR_REQUESTS
// (default 1000, quick 400), BENCH_STORAGE_BATCHES (batches per storage-limit drain, default
// 40), BENCH_VERBOSE=1 (show wrangler's output), BENCH_QUICK=1 (smaller spaces and fewer
// samples, for iterating: a few minutes; the closing note of an issue reports the full run),
// BENCH_LOCAL_OBSERVABILITY=1 (keep wrangler's local observability on, to measure its cost),
// BENCH_TREE=<dir> (the servers build from that checkout instead of this one, e.g. a `git
// worktree` of an older commit with node_modules linked: this bench's figures of another tree),
// BENCH_ONLY=ingest, suggestions, memory, ratelimit, forget, media or import (only the ingest
// rounds, only the suggestions job and the labelled records, only the memory phase, only the
// rate-limit rounds, only the erasure phase, only the media uploads, or only the file imports; the
// last line holds their figures only).
// The erasure phase (forget.mjs: forget_ms, forget_other_context_p99_ratio) runs after the memory
// phase, on a service of its own: a subject of FORGET.subjectEvents events and FORGET.subjectMedia
// files erased while other customers' contexts are read, FORGET.repeats times (the median, with
// its spread). The media uploads (media.mjs: upload_mb_per_s, MEDIA_ROUNDS uploads
// of 100 MB through the development store) run after it, on a service of their own, and the file
// imports (imports.mjs: IMPORTS.ndjsonMb NDJSON files and a CSV of IMPORTS.csvRows identities,
// each on a service of its own, the reference ingest before, between and after the files) last.
// The rate limits' cost (rate-limits.mjs: rate_limit_overhead_ratio) is measured right after the
// ingest rounds, on the same service: ROUNDS interleaved rounds of ROUND_BATCHES / 2 batches into
// a space with every limit configured and none reached, and into one without limits.
// Identity figures (test/bench/identity.mjs) are measured on the same service, each in a space
// of its own, after the ingest rounds and the context figures. The memory phase (memory.mjs: the
// labelled conversation set of sessions-labelled.mjs, MEMORY.customers customers, written
// MEMORY.repeats times for the compile rate) runs last, on a service of its own.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { compileSeedRate } from "./compile-seed.mjs";
import { contextFigures } from "./context.mjs";
import { median, overRounds, pct, pooled, ratioOverRounds, round, spread } from "./figures.mjs";
import { forgetFigures } from "./forget.mjs";
import { identifyRate, mergeLarge, suggestionsJob } from "./identity.mjs";
import { csvImport, ndjsonImport, referenceIngest } from "./imports.mjs";
import { uploadFigures } from "./media.mjs";
import { memoryFigures } from "./memory.mjs";
import { rateLimitOverhead } from "./rate-limits.mjs";
import { febrlFigures, locomoFigures } from "./real-data.mjs";
import { serviceSecrets, snapshotTree, startWrangler, stopAll } from "./servers.mjs";
import { Workload } from "./workload.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const QUICK = process.env.BENCH_QUICK === "1";
/**
 * `BENCH_ONLY=ingest`: the warm-ups, the floor, the ingest rounds and the compile seed only, for iterating on the
 * batch path; `BENCH_ONLY=suggestions`: the suggestions job and the labelled records only;
 * `BENCH_ONLY=memory`: the memory phase only; `BENCH_ONLY=ratelimit`: the rate limits' cost only;
 * `BENCH_ONLY=forget`: the erasure phase only; `BENCH_ONLY=media`: the media uploads only;
 * `BENCH_ONLY=import`: the file imports only; `BENCH_ONLY=real`: the figures on public data
 * (real-data.mjs, BENCH_FEBRL and BENCH_LOCOMO) only.
 */
const ONLY = process.env.BENCH_ONLY ?? "";
if (!["", "ingest", "suggestions", "memory", "ratelimit", "forget", "media", "import", "real"].includes(ONLY))
  throw new Error(`BENCH_ONLY must be ingest, suggestions, memory, ratelimit, forget, media, import or real, got ${ONLY}`);
const INGEST_ONLY = ONLY === "ingest";
const ROUNDS = Math.round(setting("BENCH_ROUNDS", 5));
const ROUND_BATCHES = Math.round(setting("BENCH_ROUND_BATCHES", QUICK ? 60 : 200));
/** A slice ends after ROUND_BATCHES batches or this many seconds, whichever comes first. */
const SLICE_MAX_SECONDS = setting("BENCH_SLICE_MAX_SECONDS", QUICK ? 15 : 30);
const WARMUP_SECONDS = setting("BENCH_WARMUP_SECONDS", 2);
const CLIENTS = Math.round(setting("BENCH_CLIENTS", 4));
const FLOOR_REQUESTS = Math.round(setting("BENCH_FLOOR_REQUESTS", QUICK ? 400 : 1_000));
const STORAGE_BATCHES = Math.round(setting("BENCH_STORAGE_BATCHES", 40));
const IDENTITY = QUICK
  ? { merges: 1_000, mergeEvents: [5_000], mergeRepeats: [3], suggestionProfiles: 10_000, suggestionRepeats: 3 }
  : { merges: 5_000, mergeEvents: [5_000, 50_000], mergeRepeats: [5, 3], suggestionProfiles: 100_000, suggestionRepeats: 3 };
/** `maxSeconds`: at most that long for one round of each kind of sample (context.mjs). */
const CONTEXT = QUICK
  ? {
      profiles: 2_000,
      perProfile: 10,
      large: 5_000,
      reads: 40,
      liveTrials: 200,
      recompileTrials: 50,
      feedbackTrials: 50,
      maxSeconds: { reads: 30, live: 10, recompile: 15, feedback: 15 },
    }
  : {
      profiles: 20_000,
      perProfile: 10,
      large: 50_000,
      reads: 240,
      liveTrials: 1_000,
      recompileTrials: 300,
      feedbackTrials: 300,
      maxSeconds: { reads: 60, live: 20, recompile: 30, feedback: 30 },
    };
/** The labelled set's size (every fourth customer has 30 sessions) and how many times it is written. */
const MEMORY = QUICK ? { customers: 8, repeats: 2 } : { customers: 40, repeats: 3 };
/** The erasure phase: other customers and their events, the subject's events (issue 32: 10,000), floor samples. */
/** Uploads of 100 MB: each writes 100 MB to local R2's disk, so fewer than the other phases' rounds. */
const MEDIA_ROUNDS = QUICK ? 1 : Math.min(ROUNDS, 3);
/** File imports: NDJSON files of these sizes (MB; the last one's rate is the figure), a CSV of this many rows, the reference ingest. */
const IMPORTS = QUICK
  ? { ndjsonMb: [5, 20], csvRows: 10_000, reference: { batches: 40, clients: CLIENTS }, compileLimitS: 600 }
  : { ndjsonMb: [20, 100], csvRows: 100_000, reference: { batches: 120, clients: CLIENTS }, compileLimitS: 900 };
const FORGET = QUICK
  ? { others: 500, perOther: 10, subjectEvents: 2_000, subjectMedia: 20, floor: 100, repeats: 1 }
  : { others: 2_000, perOther: 10, subjectEvents: 10_000, subjectMedia: 20, floor: 300, repeats: 3 };
const BATCH_ITEMS = 500;
const WARMUP_BATCHES = 60;
/** The compile seed's batches (compile-seed.mjs): 20,000 events (quick: 6,000). */
const COMPILE_SEED_BATCHES = QUICK ? 12 : 40;
const COMPILE_SEED_REPEATS = 3;
/** Targets of the figures, as the issues name them: printed as verdicts under the table. */
const TARGETS = [
  ["context_p50_ratio", "≤", 1.5, "context p50 / floor p50"],
  ["context_p99_ratio", "≤", 2.0, "context p99 / floor p99"],
  ["context_large_p99_ratio", "≤", 1.2, "large profile p99 / context p99"],
  ["context_unchanged_p99_ratio", "≤", 1.2, "known_etag p99 / floor p99"],
  ["live_first_read", "≥", 1.0, "share of first reads holding the message"],
  ["recompile_p99_ms", "≤", 1_000, "system event to compiled memory"],
  ["feedback_to_context_p99_ms", "≤", 1_000, "correct_fact to context"],
  ["ingest_ratio", "≥", 0.5, "full / minimal path items/s"],
  ["compile_ratio", "≥", 0.5, "seed compiled events/s (nothing else running) / ingest items/s"],
  ["rate_limit_overhead_ratio", "≥", 0.95, "ingest with every limit configured, none reached / without"],
  ["upload_mb_per_s", null, null, "100 MB through the development store (production uploads go to R2)"],
  ["import_ratio", "≥", 0.5, "NDJSON import items/s / a batch ingest's (the same events, a service like it)"],
  ["import_rss_ratio", "≤", 1.2, "workerd's peak RSS importing the larger file / the smaller"],
  ["import_compiled_s", null, null, "from the import's `completed` to every imported profile compiled"],
  ["csv_rows_per_s", null, null, "CSV identities, identity resolution on"],
  ["forget_ms", "≤", 5_000, "erasure of a subject of 10,000 events and 20 files, request to signed receipt"],
  ["forget_other_context_p99_ratio", "≤", 2.0, "other customers' context p99 during the erasure / floor p99"],
  ["batch_p99_ratio", "≤", 1.5, "full / minimal path batch p99"],
  ["hot_tier_mb", "≤", 8, "hot tier at the end"],
  ["merge_large_ms", "≤", 50, "merge of two large profiles"],
  ["suggestions_max_slice_ms", "≤", 10, "longest slice of the job"],
  ["suggestions_job_ms", "≤", 10_000, "suggestions job"],
  ["suggestion_precision", "≥", 0.95, "open suggestions right, of 5,000 labelled records"],
  ["suggestion_recall", "≥", 0.9, "true pairs suggested, of 5,000 labelled records"],
  ["search_p99_ratio", "≤", 3.0, "search p99 / floor p99"],
  ["search_recall_ratio", "≥", 1.2, "recall@10 / textbook BM25's"],
  ["mcp_context_ratio", "≤", 1.3, "MCP p99 / HTTP context p99"],
  ["timeline_page_p99_ratio", null, null, "timeline page p99 / floor p99"],
  ["timeline_large_page_p99_ratio", null, null, "large profile's page p99 / floor p99"],
  ["episode_lead3_ratio", "≥", 1.5, "episode / lead-3 ROUGE-1 recall of the reference summaries"],
  ["highlight_coverage", "≥", 0.6, "labelled customer statements among the highlights"],
  ["context_bytes_p99", "≤", 16_384, "context of a customer of 30 sessions"],
  ["open_item_precision", "≥", 0.9, "open questions that are unanswered"],
  ["compile_events_per_s", null, null, "≥ 0.8 × before issue 31: COMPARE=compile compare-trees.mjs"],
];

function setting(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

// The servers build from a copy of the tree taken now: wrangler dev restarts a worker whose
// sources change, and the tree is edited while benches run.
const tree = snapshotTree(process.env.BENCH_TREE || ROOT);
const MINIMAL_DIR = join(tree.dir, "test", "bench", "minimal");

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    log(`stopped by ${signal}: removing the servers and the snapshot`);
    stopAll().finally(() => {
      tree.remove();
      process.exit(130);
    });
  });
}

const started = performance.now();
try {
  const figures = await main();
  if (INGEST_ONLY) Object.assign(figures.json, await compileSeedRun(figures.json.ingest_items_per_s));
  if (!ONLY) printTable(figures);
  if (ONLY === "memory") {
    printColumns([["figure", "value", "spread over rounds", "note"], ...memoryRows(figures.json)]);
    console.log("");
    printVerdicts(figures.json);
  }
  if (ONLY === "ratelimit" || ONLY === "forget" || ONLY === "media" || ONLY === "import") printVerdicts(figures.json);
  console.log(JSON.stringify(figures.json));
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await stopAll();
  tree.remove();
}

async function main() {
  const workload = new Workload({ run: randomBytes(4).toString("hex"), batchItems: BATCH_ITEMS });
  log(`building ${WARMUP_BATCHES} warm-up batches of ${BATCH_ITEMS} items`);
  const warmup = workload.bodies("warm", WARMUP_BATCHES);

  // Both servers run side by side; the full path, the minimal path and the storage limit are
  // measured in interleaved rounds, so a noisy neighbour on the machine weighs on all alike.
  const secrets = serviceSecrets();
  if (ONLY === "suggestions") {
    const { suggestions } = await suggestionRuns(secrets, 10);
    return { json: suggestionFigures(suggestions) };
  }
  if (ONLY === "memory") return { json: (await memoryRun(secrets)).figures };
  if (ONLY === "ratelimit") return { json: await rateLimitRun(secrets, workload) };
  if (ONLY === "forget") return { json: await forgetRun(secrets) };
  if (ONLY === "media") return { json: (await mediaRun(secrets)).figures };
  if (ONLY === "import") return { json: await importRun(secrets) };
  if (ONLY === "real") return { json: await realRun(secrets) };
  log("starting the service and the minimal path (wrangler dev)");
  const [service, bare] = await Promise.all([
    startWrangler({ label: "full", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" }),
    startWrangler({ label: "minimal", cwd: MINIMAL_DIR, config: "wrangler.toml", readyPath: "/noop" }),
  ]);
  let ingest;
  let rateLimits;
  let floor;
  let identify;
  const merges = [];
  const suggestions = [];
  let context;
  let observability = [];
  try {
    const demo = await seedDemo(service.origin, secrets.OPERATOR_TOKEN);
    const targets = {
      full: { url: `${demo.base_url}/v1/batch`, headers: { authorization: `Bearer ${demo.key}` } },
      minimal: { url: `${bare.origin}/v1/batch`, headers: {} },
    };
    for (const [name, target] of Object.entries(targets)) {
      log(`${name} path: warming up (${WARMUP_SECONDS}s)`);
      const warm = await load(target.url, target.headers, warmup.splice(0, warmup.length / 2), WARMUP_SECONDS);
      assertClean(`${name} path warm-up`, warm);
    }
    log(`floor: ${FLOOR_REQUESTS} sequential GET /v1/whoami`);
    floor = await sequential(`${demo.base_url}/v1/whoami`, targets.full.headers, FLOOR_REQUESTS);
    log(`floor: p50 ${floor.p50.toFixed(1)} ms, p99 ${floor.p99.toFixed(1)} ms`);
    ingest = await ingestRounds(targets, bare.origin, workload);
    // Early, for iterating on ingest: the whole table comes at the end.
    log(`ingest: ratio ${ingest.json.ingest_ratio} (rounds ${ingest.json.ingest_ratio_spread.join(" to ")})`);
    // Each phase's figures as soon as they are in: a run stopped before the table still tells them.
    log(`figures: ${JSON.stringify({ ...ingest.json, ...ingest.latency })}`);
    if (INGEST_ONLY) return { json: { ...ingest.json, ...ingest.latency } };
    rateLimits = await rateLimitOverhead(service.origin, secrets.OPERATOR_TOKEN, rateLimitSettings(workload));
    log(`figures: ${JSON.stringify(rateLimits)}`);
    log(
      `context: ${CONTEXT.profiles} profiles of ${CONTEXT.perProfile} events and one of ${CONTEXT.large}, read under a steady ingest`,
    );
    context = await contextFigures(service.origin, secrets.OPERATOR_TOKEN, {
      ...CONTEXT,
      rounds: ROUNDS,
      ingestRate: ingest.json.ingest_items_per_s,
      log,
    });
    log(`figures: ${JSON.stringify(context.figures)}`);
    log(`identify: ${IDENTITY.merges} identify items merging two profiles each`);
    identify = await identifyRate(service.origin, secrets.OPERATOR_TOKEN, { merges: IDENTITY.merges });
    for (const [i, events] of IDENTITY.mergeEvents.entries()) {
      const repeats = [];
      for (let k = 0; k < IDENTITY.mergeRepeats[i]; k++) {
        log(`merge of two profiles of ${events} events each (${k + 1} of ${IDENTITY.mergeRepeats[i]})`);
        repeats.push(await mergeLarge(service.origin, secrets.OPERATOR_TOKEN, events, Math.max(10, 2 * floor.p50)));
        const { ms, floor: quietFloor, waitedS } = repeats.at(-1);
        log(`merge: ${ms.toFixed(1)} ms, floor ${quietFloor.toFixed(1)} ms after ${waitedS.toFixed(1)} s`);
      }
      merges.push(repeats);
    }
  } finally {
    observability = [service, bare].filter((server) => server.observabilityWritten()).map((server) => server.label);
    await Promise.all([service.stop(), bare.stop()]);
  }
  Object.assign(ingest.json, await compileSeedRun(ingest.json.ingest_items_per_s));
  const jobs = await suggestionRuns(secrets, Math.max(10, 2 * floor.p50));
  suggestions.push(...jobs.suggestions);
  if (jobs.observabilityWritten) observability.push("suggestions");
  const memory = await memoryRun(secrets);
  if (memory.observabilityWritten) observability.push("memory");
  const forget = await forgetRun(secrets);
  const media = await mediaRun(secrets);
  if (media.observabilityWritten) observability.push("media");

  const imports = await importRun(secrets);
  const json = {
    ...figuresOf({ ingest, rateLimits, floor, identify, merges, suggestions, context, memory: memory.figures, forget }),
    ...media.figures,
    ...imports,
  };
  return { json, ingest, floor, context, merges, suggestions, observability };
}

/**
 * Issue 33's compile rate (compile-seed.mjs), `COMPILE_SEED_REPEATS` times, each on a service of
 * its own once the ingest rounds' service has stopped: nothing else runs on it (the rounds' space
 * would compile its backlog and run its suggestions job for minutes on the same thread, and so
 * would an earlier seed's space). A drain is one timing: as every single-shot figure, the median
 * of the repeats with their spread. Answers the figures, with `compile_ratio` against
 * `ingestRate`, the same run's `ingest_items_per_s`.
 */
async function compileSeedRun(ingestRate) {
  const seeds = [];
  for (let k = 0; k < COMPILE_SEED_REPEATS; k++) {
    log(
      `compile seed ${k + 1} of ${COMPILE_SEED_REPEATS}: ${COMPILE_SEED_BATCHES} batches of ${BATCH_ITEMS} items into a fresh space, on a service of its own`,
    );
    const vars = serviceSecrets();
    const service = await startWrangler({ label: "compile", cwd: tree.dir, vars, readyPath: "/v1/openapi.json" });
    try {
      const workload = new Workload({ run: randomBytes(4).toString("hex"), batchItems: BATCH_ITEMS, seed: 7 });
      const seed = await compileSeedRate(service.origin, vars.OPERATOR_TOKEN, {
        workload,
        batches: COMPILE_SEED_BATCHES,
        load,
        assertClean,
      });
      log(`compile seed: ${seed.events} events waiting after ${seed.written} written, compiled in ${seed.seconds.toFixed(1)} s`);
      seeds.push(seed);
    } finally {
      await service.stop();
    }
  }
  return {
    compile_seed_events_per_s: Math.round(median(seeds.map((seed) => seed.rate))),
    compile_seed_events_per_s_spread: spread(
      seeds.map((seed) => seed.rate),
      0,
    ),
    compile_seed_events: Math.round(median(seeds.map((seed) => seed.events))),
    compile_seed_s: round(median(seeds.map((seed) => seed.seconds)), 1),
    ...overRounds(
      "compile_ratio",
      seeds.map((seed) => seed.rate / ingestRate),
      3,
    ),
  };
}

/**
 * The suggestions job, `IDENTITY.suggestionRepeats` times, each on a service of its own: workerd
 * runs every object of a process on one thread, and the spaces measured before still compile for
 * minutes (the large merge's rebuild, the context space's ingest, the last job's 100,000
 * profiles), which in production run on threads of their own. `quietFloorMs`: the floor a space
 * must be back under before its job.
 */
async function suggestionRuns(secrets, quietFloorMs) {
  const suggestions = [];
  let observabilityWritten = false;
  for (let k = 0; k < IDENTITY.suggestionRepeats; k++) {
    log(
      `suggestions job over ${IDENTITY.suggestionProfiles} profiles (${k + 1} of ${IDENTITY.suggestionRepeats}), on a service of its own (it starts 30 s after the last write)`,
    );
    const jobService = await startWrangler({ label: "suggestions", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
    try {
      suggestions.push(
        await suggestionsJob(jobService.origin, secrets.OPERATOR_TOKEN, IDENTITY.suggestionProfiles, quietFloorMs),
      );
      observabilityWritten ||= jobService.observabilityWritten();
    } finally {
      await jobService.stop();
    }
    log(`suggestions job: ${suggestions.at(-1).ms} ms, longest slice ${suggestions.at(-1).maxSliceMs} ms`);
  }
  return { suggestions, observabilityWritten };
}

/**
 * The memory phase on a service of its own: the compile rate is the compiler's alone, not shared
 * with the backlogs of the spaces measured before (workerd runs a process's objects on one thread).
 */
async function memoryRun(secrets) {
  log(
    `memory: the labelled set of ${MEMORY.customers} customers, written ${MEMORY.repeats} times for the compile rate, on a service of its own`,
  );
  const service = await startWrangler({ label: "memory", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
  try {
    const figures = await memoryFigures(service, secrets.OPERATOR_TOKEN, { ...MEMORY, log });
    log(`figures: ${JSON.stringify(figures)}`);
    return { figures, observabilityWritten: service.observabilityWritten() };
  } finally {
    await service.stop();
  }
}

/** The media uploads on a service of their own: 100 MB requests beside other phases would time both. */
async function mediaRun(secrets) {
  log(`media: ${MEDIA_ROUNDS} uploads of 100 MB through the development store, on a service of its own`);
  const service = await startWrangler({ label: "media", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
  try {
    const figures = await uploadFigures(service.origin, secrets.OPERATOR_TOKEN, { rounds: MEDIA_ROUNDS, log });
    log(`figures: ${JSON.stringify(figures)}`);
    return { figures, observabilityWritten: service.observabilityWritten() };
  } finally {
    await service.stop();
  }
}

/**
 * The file imports (imports.mjs), each file on a service of its own: the NDJSON files by size
 * (the last one's rate against the median of a batch ingest measured before, between and after
 * the files, each on a service of its own: one reference moved the ratio from 0.48 to 0.72 between
 * full runs of one tree), then the CSV.
 */
async function importRun(secrets) {
  const figures = {};
  const peaks = [];
  const onItsOwn = async (label, work) => {
    const service = await startWrangler({ label, cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
    try {
      return await work(service);
    } finally {
      await service.stop();
    }
  };
  const reference = IMPORTS.reference;
  const referenceRates = [];
  const measureReference = async () => {
    log(
      `imports: the reference, ${reference.batches} batches of ${BATCH_ITEMS} events (${reference.clients} clients), on a service of its own`,
    );
    const rate = await onItsOwn("imports-reference", (service) =>
      referenceIngest(service.origin, secrets.OPERATOR_TOKEN, reference),
    );
    log(`imports: reference batch ingest ${Math.round(rate)} items/s`);
    referenceRates.push(rate);
  };
  await measureReference();
  let lastRun = null;
  for (const [index, megabytes] of IMPORTS.ndjsonMb.entries()) {
    const last = index === IMPORTS.ndjsonMb.length - 1;
    log(`imports: an NDJSON file of ${megabytes} MB, on a service of its own`);
    const compileLimitS = last ? IMPORTS.compileLimitS : null;
    const run = await onItsOwn("imports", (service) =>
      ndjsonImport(service, secrets.OPERATOR_TOKEN, { megabytes, compileLimitS, log }),
    );
    figures[`import_peak_rss_mb_${megabytes}mb`] = Math.round(run.peakRssMb);
    peaks.push(run.peakRssMb);
    await measureReference();
    if (last) lastRun = run;
  }
  if (lastRun) {
    const referenceRate = median(referenceRates);
    figures.import_items_per_s = Math.round(lastRun.itemsPerS);
    Object.assign(figures, overRounds("import_reference_items_per_s", referenceRates, 0));
    figures.import_ratio = round(lastRun.itemsPerS / referenceRate, 2);
    figures.import_compiled_s = lastRun.compiledS === null ? null : round(lastRun.compiledS, 1);
  }
  figures.import_rss_ratio = round((peaks.at(-1) ?? 0) / (peaks[0] ?? 1), 2);
  log(`imports: a CSV of ${IMPORTS.csvRows} identities, on a service of its own`);
  const csv = await onItsOwn("imports-csv", (service) =>
    csvImport(service, secrets.OPERATOR_TOKEN, { rows: IMPORTS.csvRows, log }),
  );
  figures.csv_rows_per_s = Math.round(csv.rowsPerS);
  log(`figures: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * The erasure phase (forget.mjs), `FORGET.repeats` times, each on a service of its own, reported as
 * the median with its spread: a p99 of the few dozen reads one erasure leaves time for is their
 * slowest, which the machine moves from run to run.
 */
/** `BENCH_ONLY=real`: each public data set given, on a service of its own. */
async function realRun(secrets) {
  const sets = [
    ["BENCH_FEBRL", febrlFigures],
    ["BENCH_LOCOMO", locomoFigures],
  ].filter(([name]) => process.env[name]);
  if (sets.length === 0) throw new Error("BENCH_ONLY=real needs BENCH_FEBRL=<csv> or BENCH_LOCOMO=<dir> (real-data.mjs)");
  const figures = {};
  for (const [name, measure] of sets) {
    log(`public data: ${name}=${process.env[name]}, on a service of its own`);
    const service = await startWrangler({ label: "real", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
    try {
      Object.assign(figures, await measure(service.origin, secrets.OPERATOR_TOKEN, process.env[name]));
    } finally {
      await service.stop();
    }
    log(`figures: ${JSON.stringify(figures)}`);
  }
  return figures;
}

async function forgetRun(secrets) {
  const runs = [];
  for (let k = 0; k < FORGET.repeats; k++) {
    log(`erasure ${k + 1} of ${FORGET.repeats}`);
    const service = await startWrangler({ label: "forget", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
    try {
      runs.push(await forgetFigures(service, secrets.OPERATOR_TOKEN, { ...FORGET, log }));
    } finally {
      await service.stop();
    }
    log(`figures: ${JSON.stringify(runs.at(-1))}`);
  }
  // A run whose erasure ended before a read has no ratio (null): the others make the median.
  const medianOf = (key, digits) => {
    const values = runs.map((run) => run[key]).filter((value) => value !== null);
    return values.length === 0 ? { [key]: null } : overRounds(key, values, digits);
  };
  return {
    ...runs[0],
    ...medianOf("forget_ms", 0),
    ...medianOf("forget_receipt_ms", 0),
    ...medianOf("forget_floor_p99_ms", 1),
    ...medianOf("forget_quiet_context_p99_ms", 1),
    ...medianOf("forget_other_context_p99_ms", 1),
    ...medianOf("forget_other_context_p99_ratio", 2),
    forget_context_samples: runs.reduce((sum, run) => sum + run.forget_context_samples, 0),
  };
}

/** The suggestion job's figures, and the labelled records' (measured after the first run). */
function suggestionFigures(suggestions) {
  return {
    ...overRounds(
      "suggestions_job_ms",
      suggestions.map((job) => job.ms),
      0,
    ),
    ...overRounds(
      "suggestions_max_slice_ms",
      suggestions.map((job) => job.maxSliceMs),
      2,
    ),
    suggestions_profiles: suggestions[0].profiles,
    suggestions_slices: Math.round(median(suggestions.map((job) => job.slices))),
    suggestions_quiet_wait_s: round(median(suggestions.map((job) => job.waitedS)), 1),
    ...suggestions[0].records,
  };
}

/** The rate limits' rounds: half a slice of the ingest rounds per space and round. */
function rateLimitSettings(workload) {
  const roundBatches = Math.ceil(ROUND_BATCHES / 2);
  log(
    `rate limits: ${ROUNDS} interleaved rounds of ${roundBatches} batches (${CLIENTS} clients) into a space with every limit configured, none reached, and into one without`,
  );
  return {
    workload,
    rounds: ROUNDS,
    roundBatches,
    warmupBatches: 20,
    sliceSeconds: SLICE_MAX_SECONDS,
    load,
    assertClean,
    log,
  };
}

/** `BENCH_ONLY=ratelimit`: the rate limits' rounds alone, on a service of their own. */
async function rateLimitRun(secrets, workload) {
  const service = await startWrangler({ label: "full", cwd: tree.dir, vars: secrets, readyPath: "/v1/openapi.json" });
  try {
    return await rateLimitOverhead(service.origin, secrets.OPERATOR_TOKEN, rateLimitSettings(workload));
  } finally {
    await service.stop();
  }
}

/** The JSON line: every figure, with `<key>_spread` beside those taken over rounds or repeats. */
function figuresOf({ ingest, rateLimits, floor, identify, merges, suggestions, context, memory, forget }) {
  const large = merges.at(-1);
  return {
    ...ingest.json,
    ...rateLimits,
    ...pooled("floor_p50_ms", floor.chunks, 50),
    ...pooled("floor_p99_ms", floor.chunks, 99),
    ...ingest.latency,
    identify_items_per_s: Math.round(identify.rate),
    ...overRounds(
      "merge_large_ms",
      large.map((merge) => merge.ms),
      1,
    ),
    merge_large_events: large[0].events,
    ...overRounds(
      "merge_5k_ms",
      merges[0].map((merge) => merge.ms),
      1,
    ),
    merge_floor_ms: round(median(large.map((merge) => merge.floor)), 1),
    merge_quiet_wait_s: round(median(large.map((merge) => merge.waitedS)), 1),
    ...suggestionFigures(suggestions),
    ...context.figures,
    ...memory,
    ...forget,
    seconds: round(ingest.seconds, 1),
    clients: CLIENTS,
    batch_items: BATCH_ITEMS,
    rounds: ROUNDS,
  };
}

/**
 * The full path, the minimal path and the storage limit in ROUNDS interleaved rounds: in each,
 * one slice of ROUND_BATCHES batches per path (CLIENTS clients) and one storage-limit drain,
 * in the order full, minimal, storage, reversed every other round. Each round's batches are
 * built before it (untimed), with keys no other batch uses.
 */
async function ingestRounds(targets, bareOrigin, workload) {
  const runs = { full: [], minimal: [] };
  const storage = [];
  log(
    `full path, minimal path and storage limit: ${ROUNDS} interleaved rounds of ${ROUND_BATCHES} batches per path (${CLIENTS} clients) and a drain of ${STORAGE_BATCHES} batches`,
  );
  for (let r = 0; r < ROUNDS; r++) {
    const bodies = { full: workload.bodies(`run${r}f`, ROUND_BATCHES), minimal: workload.bodies(`run${r}m`, ROUND_BATCHES) };
    const parts = [
      async () => {
        const run = await load(targets.full.url, targets.full.headers, bodies.full, SLICE_MAX_SECONDS);
        assertClean("full path", run);
        runs.full.push(run);
      },
      async () => {
        const run = await load(targets.minimal.url, targets.minimal.headers, bodies.minimal, SLICE_MAX_SECONDS);
        assertClean("minimal path", run);
        runs.minimal.push(run);
      },
      async () => {
        storage.push(await storageLimit(bareOrigin, workload, r));
      },
    ];
    for (const part of r % 2 === 0 ? parts : parts.reverse()) await part();
    log(
      `round ${r + 1} of ${ROUNDS}: full ${Math.round(runs.full[r].rate)} items/s, minimal ${Math.round(runs.minimal[r].rate)}, storage ${Math.round(storage[r].rate)}`,
    );
  }
  const full = merged(runs.full);
  const minimal = merged(runs.minimal);
  const latencies = (list) => list.map((run) => run.latencies);
  return {
    full,
    minimal,
    runs,
    storage,
    seconds: full.elapsed,
    json: {
      ingest_items_per_s: Math.round(full.rate),
      minimal_path_items_per_s: Math.round(minimal.rate),
      storage_limit_items_per_s: Math.round(median(storage.map((drain) => drain.rate))),
      storage_limit_items_per_s_spread: spread(
        storage.map((drain) => drain.rate),
        0,
      ),
      ...overRounds(
        "ingest_ratio",
        runs.full.map((run, r) => run.rate / runs.minimal[r].rate),
        3,
      ),
      ...overRounds(
        "storage_ratio",
        runs.full.map((run, r) => run.rate / storage[r].rate),
        3,
      ),
    },
    // After the floor in the JSON line, as before.
    latency: {
      ...pooled("batch_p50_ms", latencies(runs.full), 50),
      ...pooled("batch_p99_ms", latencies(runs.full), 99),
      ...ratioOverRounds("batch_p50_ratio", latencies(runs.full), latencies(runs.minimal), 50),
      ...ratioOverRounds("batch_p99_ratio", latencies(runs.full), latencies(runs.minimal), 99),
      ...pooled("minimal_batch_p50_ms", latencies(runs.minimal), 50),
      ...pooled("minimal_batch_p99_ms", latencies(runs.minimal), 99),
    },
  };
}

/**
 * `CLIENTS` clients, each posting the next unsent body as soon as its previous answer is in,
 * until every body is sent or `seconds` have passed (batches started before then are waited for
 * and counted).
 */
async function load(url, headers, bodies, seconds) {
  const sendHeaders = { ...headers, "content-type": "application/json" };
  const latencies = [];
  const failures = [];
  let items = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const body = bodies.shift();
      if (body === undefined) return;
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
  return summary({ latencies, items, elapsed, failures });
}

function summary({ latencies, items, elapsed, failures }) {
  return {
    latencies,
    batches: latencies.length,
    items,
    elapsed,
    rate: items / elapsed,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    failures,
  };
}

/** The rounds of one target as one run. */
function merged(runs) {
  return summary({
    latencies: runs.flatMap((run) => run.latencies),
    items: runs.reduce((sum, run) => sum + run.items, 0),
    elapsed: runs.reduce((sum, run) => sum + run.elapsed, 0),
    failures: runs.flatMap((run) => run.failures),
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
}

/**
 * One request at a time: latency of a request that does no work, after a short warm-up (right
 * after the paths' warm-ups, as always: the service still compiles what they wrote).
 * `chunks`: the samples in ROUNDS consecutive parts, for the spread.
 */
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
  const size = Math.ceil(count / ROUNDS);
  const chunks = Array.from({ length: ROUNDS }, (_, r) => latencies.slice(r * size, (r + 1) * size)).filter((c) => c.length);
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), chunks, count };
}

/**
 * The storage limit, one round of it: the minimal object's insert loop alone. It stages
 * STORAGE_BATCHES batches of rows in the object's memory (one call, untimed), then one timed call
 * runs only the insert loop over them, one transactionSync per batch as on the real path, plus
 * the commit that follows the call.
 *
 * How it is timed: from here, the call's wall time minus the median of 21 empty calls through
 * the same Worker and object just before. Not with the object's own clock: workerd only promises
 * that clocks advance across I/O (in production they stand still while code runs). Under
 * `wrangler dev` they do advance during CPU work (verified: the object's performance.now()
 * delta over the loop is printed beside and comes out at 70-80% of the wall figure), but that
 * delta stops before the commit, which runs after the call's code has returned.
 */
async function storageLimit(origin, workload, round) {
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
  const emptyMs = median(empty);
  const tag = `storage-${round}`;
  const body = JSON.stringify({ items: workload.items(tag) });
  const staged = await post(`/storage/stage?reps=${STORAGE_BATCHES}&tag=${tag}`, body);
  const t0 = performance.now();
  const timing = await post("/storage/drain");
  const wallMs = performance.now() - t0;
  if (timing.inserted !== staged.staged)
    throw new Error(`storage limit: staged ${staged.staged} rows, inserted ${timing.inserted}`);
  const loopMs = Math.max(wallMs - emptyMs, 0.001);
  return { rate: (timing.inserted / loopMs) * 1000, wallMs, loopMs, objectMs: timing.performanceMs, emptyMs };
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function log(message) {
  const at = ((performance.now() - started) / 1000).toFixed(0).padStart(5);
  console.error(`[bench ${at}s] ${message}`);
}

function count(n) {
  return Math.round(n).toLocaleString("en-US");
}

/** How many samples stand behind a percentile: a p99 of n rests on its n/100 largest. */
function behind(n, p = 99) {
  return `${count(n)} samples, p${p} on the ${count(Math.max(1, Math.floor((n * (100 - p)) / 100)))} largest`;
}

function printTable({ json, ingest, floor, context, merges, suggestions, observability }) {
  const { full, minimal, storage } = ingest;
  const ms = (n) => `${n.toFixed(1)} ms`;
  const fixed = (digits) => (n) => n.toFixed(digits);
  const items = (n) => `${count(n)} items/s`;
  const spreadOf = (key, format) => {
    const range = json[`${key}_spread`];
    return range ? `${format(range[0])} to ${format(range[1])}` : "";
  };
  const samples = context.samples;
  const perRound = Math.min(...samples.floor.map((taken) => taken.length));
  const total = (name) => samples[name].flat().length;
  const large = merges.at(-1);
  const rows = [
    ["figure", "value", "spread over rounds", "note"],
    [
      "ingest (full path)",
      items(json.ingest_items_per_s),
      "",
      `${full.batches} batches in ${full.elapsed.toFixed(1)} s, ${ROUNDS} rounds of ${ROUND_BATCHES}, 0 failed`,
    ],
    [
      "  batch latency p50 / p99",
      `${ms(json.batch_p50_ms)} / ${ms(json.batch_p99_ms)}`,
      `p99 ${spreadOf("batch_p99_ms", ms)}`,
      `${behind(full.batches)}; ${CLIENTS} clients, ${BATCH_ITEMS} items per batch`,
    ],
    [
      "minimal path",
      items(json.minimal_path_items_per_s),
      "",
      `${minimal.batches} batches in ${minimal.elapsed.toFixed(1)} s, 0 failed`,
    ],
    [
      "  batch latency p50 / p99",
      `${ms(json.minimal_batch_p50_ms)} / ${ms(json.minimal_batch_p99_ms)}`,
      `p99 ${spreadOf("minimal_batch_p99_ms", ms)}`,
      `${behind(minimal.batches)}; bare Worker + one SQLite Durable Object`,
    ],
    [
      "storage limit",
      items(json.storage_limit_items_per_s),
      spreadOf("storage_limit_items_per_s", count),
      `median of ${ROUNDS} drains of ${count(STORAGE_BATCHES * BATCH_ITEMS)} rows (call ${ms(median(storage.map((d) => d.wallMs)))} - empty call ${ms(median(storage.map((d) => d.emptyMs)))}; object's clock ${ms(median(storage.map((d) => d.objectMs)))})`,
    ],
    [
      "floor (GET /v1/whoami) p50 / p99",
      `${ms(json.floor_p50_ms)} / ${ms(json.floor_p99_ms)}`,
      `p99 ${spreadOf("floor_p99_ms", ms)}`,
      `${behind(floor.count)}, sequential, after the warm-ups; spread over ${ROUNDS} consecutive parts`,
    ],
    [
      "ingest ratio (full / minimal)",
      fixed(3)(json.ingest_ratio),
      spreadOf("ingest_ratio", fixed(3)),
      "events carry 1-3 handles, a fifth new",
    ],
    ["batch p50 ratio (full / minimal)", fixed(2)(json.batch_p50_ratio), spreadOf("batch_p50_ratio", fixed(2)), ""],
    [
      "batch p99 ratio (full / minimal)",
      fixed(2)(json.batch_p99_ratio),
      spreadOf("batch_p99_ratio", fixed(2)),
      `a round's p99 on ${behind(Math.min(...ingest.runs.full.map((run) => run.batches))).replace(/^.*?on /, "")}`,
    ],
    ["storage ratio (full / storage limit)", fixed(3)(json.storage_ratio), spreadOf("storage_ratio", fixed(3)), ""],
    [
      "rate limits' cost (limited / unlimited)",
      fixed(3)(json.rate_limit_overhead_ratio),
      spreadOf("rate_limit_overhead_ratio", fixed(3)),
      `${items(json.rate_limited_items_per_s)} against ${items(json.rate_unlimited_items_per_s)} (medians); every limit configured, none reached`,
    ],
    ["identify (merging two profiles each)", items(json.identify_items_per_s), "", "batches of 500, one client"],
    [
      "media upload (100 MB)",
      `${fixed(1)(json.upload_mb_per_s)} MB/s`,
      spreadOf("upload_mb_per_s", fixed(1)),
      `median of ${MEDIA_ROUNDS}, the development store streaming into local R2, on a service of its own`,
    ],
    [
      "erasure of a subject (request to receipt)",
      ms(json.forget_ms),
      spreadOf("forget_ms", ms),
      `${count(json.forget_events)} events, ${count(json.forget_media)} files; the object's own time ${ms(json.forget_receipt_ms)}`,
    ],
    [
      "  others' context p99 during it / floor p99",
      json.forget_context_samples > 0 ? fixed(2)(json.forget_other_context_p99_ratio) : "none",
      spreadOf("forget_other_context_p99_ratio", fixed(2)),
      `${json.forget_context_samples > 0 ? ms(json.forget_other_context_p99_ms) : "no read"} over ${json.forget_context_samples} reads in all; floor ${ms(json.forget_floor_p99_ms)}, quiet context ${ms(json.forget_quiet_context_p99_ms)}`,
    ],
    [
      "merge of two large profiles",
      ms(json.merge_large_ms),
      spreadOf("merge_large_ms", ms),
      `median of ${large.length}, ${json.merge_large_events} events each, a space each; floor ${ms(json.merge_floor_ms)} after ${json.merge_quiet_wait_s} s for the service to be quiet (medians)`,
    ],
    ["  of 5,000 events each", ms(json.merge_5k_ms), spreadOf("merge_5k_ms", ms), `median of ${merges[0].length}`],
    [
      "suggestions job",
      ms(json.suggestions_job_ms),
      spreadOf("suggestions_job_ms", ms),
      `median of ${suggestions.length} runs, a space each: ${json.suggestions_profiles} profiles, ${json.suggestions_slices} slices, after ${json.suggestions_quiet_wait_s} s for the service to be quiet`,
    ],
    [
      "  longest slice",
      ms(json.suggestions_max_slice_ms),
      spreadOf("suggestions_max_slice_ms", ms),
      "object's clock under wrangler dev; median of the runs' longest",
    ],
    [
      "context p50 / p99",
      `${ms(json.context_p50_ms)} / ${ms(json.context_p99_ms)}`,
      `p99 ${spreadOf("context_p99_ms", ms)}`,
      `${behind(total("context"))}; ${json.context_profiles} profiles, ${json.context_events} events`,
    ],
    [
      "  ratios to the floor p50 / p99",
      `${fixed(2)(json.context_p50_ratio)} / ${fixed(2)(json.context_p99_ratio)}`,
      `${spreadOf("context_p50_ratio", fixed(2))} / ${spreadOf("context_p99_ratio", fixed(2))}`,
      `${ROUNDS} interleaved rounds, at least ${perRound} samples per probe in each; a round's p99 on ${behind(perRound).replace(/^.*?on /, "")}`,
    ],
    [
      "  floor under the same ingest",
      `${ms(json.context_floor_p50_ms)} / ${ms(json.context_floor_p99_ms)}`,
      `p99 ${spreadOf("context_floor_p99_ms", ms)}`,
      `GET /v1/whoami, ${behind(total("floor"))}`,
    ],
    [
      "  large profile p99",
      ms(json.context_large_p99_ms),
      spreadOf("context_large_p99_ms", ms),
      `ratio to context p99 ${json.context_large_p99_ratio} (${spreadOf("context_large_p99_ratio", fixed(2))}); ${behind(total("large"))}`,
    ],
    [
      "  unchanged (known_etag) p99",
      ms(json.context_unchanged_p99_ms),
      spreadOf("context_unchanged_p99_ms", ms),
      `ratio to the floor p99 ${json.context_unchanged_p99_ratio} (${spreadOf("context_unchanged_p99_ratio", fixed(2))}); ${behind(total("unchanged"))}`,
    ],
    [
      "live on the first read",
      json.live_first_read.toFixed(3),
      "",
      `${context.trials.live} trials; visibility p99 ${ms(json.visibility_p99_ms)} (${spreadOf("visibility_p99_ms", ms)}; batch sent to read answered)`,
    ],
    [
      "recompile p99",
      ms(json.recompile_p99_ms),
      spreadOf("recompile_p99_ms", ms),
      `${behind(context.trials.recompile)}; system event answered to its fact in compiled memory`,
    ],
    [
      "feedback to context p99",
      ms(json.feedback_to_context_p99_ms),
      spreadOf("feedback_to_context_p99_ms", ms),
      `${behind(context.trials.feedback)}; correct_fact sent to the corrected value in context`,
    ],
    [
      "timeline page p99",
      `${ms(json.timeline_page_p99_ms)} / large ${ms(json.timeline_large_page_p99_ms)}`,
      `${spreadOf("timeline_page_p99_ms", ms)} / ${spreadOf("timeline_large_page_p99_ms", ms)}`,
      `ratios to the floor p99 ${json.timeline_page_p99_ratio} / ${json.timeline_large_page_p99_ratio}; ${behind(total("timeline"))} each`,
    ],
    [
      "search p99",
      ms(json.search_p99_ms),
      spreadOf("search_p99_ms", ms),
      `ratio to the floor p99 ${json.search_p99_ratio} (${spreadOf("search_p99_ratio", fixed(2))}); ${behind(total("search"))}`,
    ],
    [
      "MCP context p99",
      ms(json.mcp_context_p99_ms),
      spreadOf("mcp_context_p99_ms", ms),
      `over the HTTP context p99: ${json.mcp_context_ratio} (${spreadOf("mcp_context_ratio", fixed(2))}); ${behind(total("mcp"))}`,
    ],
    [
      "search recall@10",
      String(json.search_recall_at_10),
      "",
      `textbook BM25 ${json.search_recall_textbook_at_10}; ratio ${json.search_recall_ratio}; ${json.search_recall_questions} questions`,
    ],
    ["hot tier", `${json.hot_tier_mb} MB`, "", "at the end of the run"],
    ["seed compiled in", `${json.context_seed_compile_s} s`, "", "the context space's backlog after its seed, before the reads"],
    ...memoryRows(json),
  ];
  printColumns(rows);

  console.log("");
  printVerdicts(json);
  const store = observability.length ? `written by ${observability.join(", ")}` : "none written";
  const wanted = process.env.BENCH_LOCAL_OBSERVABILITY === "1" ? "on (BENCH_LOCAL_OBSERVABILITY=1)" : "off";
  console.log(
    `\nrun took ${((performance.now() - started) / 60_000).toFixed(1)} min${QUICK ? " (BENCH_QUICK=1)" : ""}; wrangler's local observability ${wanted}, trace store ${store}`,
  );
}

/** The memory phase's rows of the table (memory.mjs). */
function memoryRows(json) {
  const rangeOf = (key) => json[`${key}_spread`].map(count).join(" to ");
  return [
    [
      "episode ROUGE-1 recall",
      String(json.episode_rouge1_recall),
      "",
      `lead-3 ${json.lead3_rouge1_recall}, ratio ${json.episode_lead3_ratio}; mean over ${count(json.memory_sessions)} sessions, summaries of ${json.episode_summary_chars} characters on average`,
    ],
    [
      "highlight coverage",
      String(json.highlight_coverage),
      "",
      `of ${count(json.memory_statements)} labelled statements; ${json.highlights_per_episode} highlights per episode`,
    ],
    [
      "context bytes p99, 30 sessions",
      `${count(json.context_bytes_p99)} B`,
      "",
      `${json.memory_long_customers} customers of about 600 messages, one read each`,
    ],
    [
      "open item precision / recall",
      `${json.open_item_precision} / ${json.open_item_recall}`,
      "",
      `${json.memory_open_items} open questions in ${json.memory_customers} contexts; ${json.memory_unanswered_questions} unanswered (newest 20 per customer)`,
    ],
    [
      "compile",
      `${count(json.compile_events_per_s)} events/s`,
      rangeOf("compile_events_per_s"),
      `every session of the ${count(json.memory_events)} events compiled again (a late event each); median of ${MEMORY.repeats} spaces`,
    ],
    [
      "  per CPU second",
      `${count(json.compile_events_per_cpu_s)} events`,
      rangeOf("compile_events_per_cpu_s"),
      "the same events over the CPU time the service's processes used meanwhile (/proc)",
    ],
    [
      "  written and compiled",
      `${count(json.write_compile_events_per_s)} events/s`,
      rangeOf("write_compile_events_per_s"),
      `first write to last session compiled (the writes alone ${json.compile_write_s} s)`,
    ],
  ];
}

/** A verdict for every target whose figure the run has, with its spread. */
function printVerdicts(json) {
  const verdicts = [["target", "figure", "spread over rounds", "verdict"]];
  for (const [key, op, target, what] of TARGETS.filter(([key]) => key in json)) {
    const value = json[key];
    const range = json[`${key}_spread`];
    const meets = (v) => (op === "≤" ? v <= target : v >= target);
    let verdict = "no target named";
    if (op && value === null) verdict = "no value";
    else if (op) {
      verdict = meets(value) ? "met" : "missed";
      if (range) {
        const rounds = range.filter(meets).length;
        verdict += rounds === 2 ? ", whole spread met" : rounds === 0 ? ", whole spread missed" : ", spread crosses the target";
      }
    }
    verdicts.push([
      op ? `${key} ${op} ${target}` : key,
      String(value),
      range ? `${range[0]} to ${range[1]}` : "",
      `${verdict} (${what})`,
    ]);
  }
  printColumns(verdicts);
}

function printColumns(rows) {
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row) =>
    `${row[0].padEnd(widths[0])}  ${row[1].padStart(widths[1])}  ${row[2].padEnd(widths[2])}  ${row[3]}`.trimEnd();
  console.log(line(rows[0]));
  console.log(`${widths.map((w) => "-".repeat(w)).join("  ")}  ${"-".repeat(4)}`);
  for (const row of rows.slice(1)) console.log(line(row));
}
