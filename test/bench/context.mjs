// Context figures of `npm run bench` (issue: memory and context), in a space of their own on the
// running service. The space is seeded with PROFILES profiles of EVENTS_PER_PROFILE events each
// and one profile of LARGE_EVENTS events; once the seed is compiled, while a steady ingest runs in
// the same space at a quarter of the rate measured earlier in the run:
//   - interleaved rounds (figures.mjs): in each round, `reads` samples of each of eight sequential
//     probes, one request of each in turn: the floor (GET /v1/whoami), POST /v1/context for a
//     random profile, for the large profile, with `known_etag` current, a timeline page of a
//     random and of the large profile (timeline.mjs), a search (search.mjs) and an MCP
//     get_customer_context (mcp.mjs). A percentile in ms is taken over every round's samples
//     (`rounds × reads` of them); a ratio is the median over the rounds of target / reference of
//     the same round, with `<key>_spread` = [min, max] of the rounds' ratios:
//       context_p50_ms / context_p99_ms and context_p50_ratio / context_p99_ratio (to the floor),
//       context_large_p99_ms and context_large_p99_ratio (to context_p99_ms),
//       context_unchanged_p99_ms and context_unchanged_p99_ratio (to the floor p99),
//       timeline_page_p99_ms, timeline_large_page_p99_ms and their ratios to the floor p99,
//       search_p99_ms and search_p99_ratio (to the floor p99),
//       mcp_context_p99_ms and mcp_context_ratio (to context_p99_ms);
//   - live_first_read and visibility_p99_ms: a message batch answered, then one read: is it in
//     `live` (the fraction of trials), and how long from sending the batch to that read's answer;
//   - recompile_p99_ms: a system event answered → its fact in compiled memory (polled);
//   - feedback_to_context_p99_ms: a `correct_fact` sent → the corrected value in context (polled);
//     these three over all their trials, split in the same number of rounds for `<key>_spread`
//     (the rounds' p99s);
//   - search recall (search.mjs) and hot_tier_mb: what the hot tier holds at the end
//     (GET {base}/v1/ops/memory).
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { interleavedRounds, pct, pooled, postJson, ratioOverRounds, round } from "./figures.mjs";
import { mcpProbe } from "./mcp.mjs";
import { measureRecall, searchProbe } from "./search.mjs";
import { timelineProbe } from "./timeline.mjs";

const BATCH = 500;
const CHANNELS = ["whatsapp", "app", "email", "voice"];
const PAST = 30 * 24 * 3600_000;

const phoneOf = (i) => `+4477${String(i).padStart(8, "0")}`;
const handleOf = (i) => ({ type: "phone_e164", value: phoneOf(i) });

const send = postJson;

function seedEvent(key, profile, n, at) {
  const channel = CHANNELS[n % CHANNELS.length];
  const system = n % 10 === 9;
  return {
    type: "event",
    idempotency_key: key,
    kind: system ? "system_event" : "message",
    channel,
    conversation_id: `${channel}-${profile}-${Math.floor(n / 5)}`,
    handles: [handleOf(profile)],
    speaker: { role: system ? "system" : n % 2 ? "ai_agent" : "customer" },
    ...(system
      ? { canonical_type: "customer.updated", attributes: { tier: ["silver", "gold"][n % 2], city: "Madrid" } }
      : { content: { type: "text", text: `message ${n}: please check my order status, thanks.` } }),
    occurred_at: new Date(at).toISOString(),
  };
}

async function fill(url, key, items, clients = 4) {
  const batches = [];
  for (let i = 0; i < items.length; i += BATCH) batches.push(items.slice(i, i + BATCH));
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (batches.length > 0) await send(url, key, { items: batches.shift() });
    }),
  );
}

/** The seeded space: `profiles` profiles of `perProfile` events over the last 30 days, and one of `large`. */
async function seed(url, key, { profiles, perProfile, large }) {
  const now = Date.now();
  const items = [];
  const flush = async () => {
    await fill(url, key, items.splice(0));
  };
  for (let p = 0; p < profiles; p++) {
    for (let n = 0; n < perProfile; n++) items.push(seedEvent(`s-${p}-${n}`, p, n, now - PAST + ((p * perProfile + n) % PAST)));
    if (items.length >= 20 * BATCH) await flush();
  }
  for (let n = 0; n < large; n++) {
    items.push(seedEvent(`l-${n}`, profiles, n, now - PAST + n * 10_000));
    if (items.length >= 20 * BATCH) await flush();
  }
  await flush();
}

async function memoryStats(base, operatorToken) {
  const response = await fetch(`${base}/v1/ops/memory`, { headers: { "x-service-operator-token": operatorToken } });
  if (response.status !== 200) throw new Error(`GET /v1/ops/memory answered ${response.status}`);
  return response.json();
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** `POST /v1/context` for a handle; the parsed answer. */
async function context(base, key, body) {
  const response = await fetch(`${base}/v1/context`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /v1/context answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** A steady ingest in the background: `rate` items/s in batches of `BATCH`, new customers' messages. */
function backgroundIngest(url, key, rate) {
  let stopped = false;
  let sent = 0;
  const interval = (BATCH / rate) * 1000;
  const done = (async () => {
    let next = performance.now();
    for (let b = 0; !stopped; b++) {
      const items = Array.from({ length: BATCH }, (_, i) => ({
        type: "event",
        idempotency_key: `bg-${b}-${i}`,
        channel: "app",
        conversation_id: `bg-${b % 50}-${i % 20}`,
        handles: [{ type: "system_id", scope: "bench", value: `bg-${(b * BATCH + i) % 5000}` }],
        speaker: { role: "customer" },
        content: { type: "text", text: "a steady stream of other customers' messages" },
        occurred_at: new Date().toISOString(),
      }));
      await send(url, key, { items });
      sent += BATCH;
      next += interval;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return sent;
    },
  };
}

/**
 * Trials split into `rounds` rounds: `trial(t)` answers one sample (ms). A round ends early once
 * it has taken `maxRoundSeconds`. Answers one array of samples per round.
 */
async function trialRounds(rounds, trials, maxRoundSeconds, trial) {
  const out = [];
  let t = 0;
  for (let r = 0; r < rounds; r++) {
    const samples = [];
    const deadline = performance.now() + maxRoundSeconds * 1000;
    for (let i = 0; i < Math.round(trials / rounds) && performance.now() < deadline; i++) samples.push(await trial(t++));
    out.push(samples);
  }
  return out;
}

/**
 * `reads`: samples per probe in each of `rounds` interleaved rounds; `liveTrials`,
 * `recompileTrials`, `feedbackTrials`: trials in all, over `rounds` rounds. `maxSeconds`: at most
 * that long for a round of each kind (`reads`, `live`, `recompile`, `feedback`), so that a machine
 * too busy for the run's time takes fewer samples rather than an hour.
 */
export async function contextFigures(
  origin,
  operatorToken,
  {
    profiles,
    perProfile,
    large,
    ingestRate,
    rounds,
    reads,
    liveTrials,
    recompileTrials,
    feedbackTrials,
    maxSeconds,
    log = () => {},
  },
) {
  const demo = await seedDemo(origin, operatorToken);
  const base = demo.base_url;
  const url = `${base}/v1/batch`;
  await seed(url, demo.key, { profiles, perProfile, large });
  // The measurements start from a compiled space: the seed's backlog is drained first (timed).
  const drainStarted = performance.now();
  for (;;) {
    const stats = await memoryStats(base, operatorToken);
    if (stats.compile_queue === 0) break;
    if (performance.now() - drainStarted > 900_000)
      throw new Error(`seed: ${stats.compile_queue} sessions still uncompiled after 15 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const seedCompileS = (performance.now() - drainStarted) / 1000;
  log(`context: seed compiled in ${seedCompileS.toFixed(1)} s`);
  const background = backgroundIngest(url, demo.key, ingestRate / 4);
  try {
    const whoami = { headers: { authorization: `Bearer ${demo.key}` } };
    const read = (body) => timed(() => context(base, demo.key, body));
    const { etag: firstEtag } = await context(base, demo.key, { handle: handleOf(1) });
    let etag = firstEtag;
    const handles = Array.from({ length: 200 }, () => handleOf(Math.floor(Math.random() * profiles)));
    // Every read latency and its reference, one request of each in turn (figures.mjs).
    const probes = {
      floor: async () => (await timed(async () => (await fetch(`${base}/v1/whoami`, whoami)).text())).ms,
      context: async () => (await read({ handle: handleOf(Math.floor(Math.random() * profiles)) })).ms,
      large: async () => (await read({ handle: handleOf(profiles) })).ms,
      // A read whose etag went stale is no sample: the next one asks with the new etag.
      unchanged: async () => {
        const { ms, value } = await read({ handle: handleOf(1), known_etag: etag });
        if (value.unchanged) return ms;
        etag = value.etag;
        return undefined;
      },
      timeline: timelineProbe({
        url: base,
        key: demo.key,
        pick: () => handles[Math.floor(Math.random() * handles.length)],
        depth: 3,
      }),
      timelineLarge: timelineProbe({ url: base, key: demo.key, pick: () => handleOf(profiles), depth: 20 }),
      search: searchProbe({ url: base, key: demo.key, handles }),
      mcp: mcpProbe({ base, key: demo.key, handles }),
    };
    log(`context: ${Object.keys(probes).length} probes interleaved, ${rounds} rounds of ${reads} samples each`);
    const samples = await interleavedRounds({
      probes,
      rounds,
      perRound: reads,
      warmup: 20,
      maxRoundSeconds: maxSeconds.reads,
      onRound: (r, taken) =>
        log(
          `context: read round ${r + 1} of ${rounds}: ${taken.floor.length} samples each; p50 ${Object.entries(taken)
            .map(([name, list]) => `${name} ${pct(list, 50).toFixed(1)}`)
            .join(", ")} ms`,
        ),
    });

    let live = 0;
    const visibility = await trialRounds(rounds, liveTrials, maxSeconds.live, async (t) => {
      const profile = Math.floor(Math.random() * profiles);
      const text = `live trial ${t} ${Math.random().toString(36).slice(2)}`;
      const t0 = performance.now();
      await send(url, demo.key, {
        items: [
          {
            type: "event",
            idempotency_key: `live-${t}`,
            channel: CHANNELS[t % CHANNELS.length],
            conversation_id: `live-${profile}`,
            handles: [handleOf(profile)],
            speaker: { role: "customer" },
            content: { type: "text", text },
            occurred_at: new Date().toISOString(),
          },
        ],
      });
      const answer = await context(base, demo.key, { handle: handleOf(profile) });
      if (answer.live.some((item) => item.text === text)) live++;
      return performance.now() - t0;
    });
    log(`context: ${visibility.flat().length} live trials done`);

    const recompile = await trialRounds(rounds, recompileTrials, maxSeconds.recompile, async (t) => {
      const profile = Math.floor(Math.random() * profiles);
      const value = `v${t}-${Math.random().toString(36).slice(2, 8)}`;
      const t0 = performance.now();
      await send(url, demo.key, {
        items: [
          {
            type: "event",
            idempotency_key: `recompile-${t}`,
            kind: "system_event",
            canonical_type: "customer.updated",
            channel: "crm",
            handles: [handleOf(profile)],
            speaker: { role: "system" },
            attributes: { bench_marker: value },
            occurred_at: new Date().toISOString(),
          },
        ],
      });
      for (;;) {
        const answer = await context(base, demo.key, { handle: handleOf(profile) });
        if (answer.memory.facts.some((fact) => fact.key === "bench_marker" && fact.value === value)) break;
        if (performance.now() - t0 > 30_000) throw new Error("recompile: a system event was not compiled within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return performance.now() - t0;
    });
    log(`context: ${recompile.flat().length} recompile trials done`);
    const feedbackToContext = await trialRounds(rounds, feedbackTrials, maxSeconds.feedback, async (t) => {
      const handle = handleOf(Math.floor(Math.random() * profiles));
      const tier = (await context(base, demo.key, { handle })).memory.facts.find((fact) => fact.key === "tier");
      if (!tier) throw new Error("feedback: a seeded profile has no tier fact");
      const value = `corrected-${t}`;
      const t0 = performance.now();
      await send(`${base}/v1/feedback`, demo.key, {
        items: [{ action: "correct_fact", idempotency_key: `feedback-${t}`, fact_id: tier.fact_id, value }],
      });
      for (;;) {
        const answer = await context(base, demo.key, { handle });
        if (answer.memory.facts.some((fact) => fact.key === "tier" && fact.value === value)) break;
        if (performance.now() - t0 > 30_000) throw new Error("feedback: a correction did not reach the context within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return performance.now() - t0;
    });
    log(`context: ${feedbackToContext.flat().length} feedback trials done`);
    // Retrieval quality (issue: navigation), on the same seeded space under the same ingest.
    const recall = await measureRecall({ url: base, key: demo.key });
    const stats = await memoryStats(base, operatorToken);
    const { floor, context: reads50, large: largeReads, unchanged, timeline, timelineLarge, search, mcp } = samples;
    return {
      samples,
      trials: { live: visibility.flat().length, recompile: recompile.flat().length, feedback: feedbackToContext.flat().length },
      figures: {
        ...pooled("context_p50_ms", reads50, 50),
        ...pooled("context_p99_ms", reads50, 99),
        ...ratioOverRounds("context_p50_ratio", reads50, floor, 50),
        ...ratioOverRounds("context_p99_ratio", reads50, floor, 99),
        ...pooled("context_floor_p50_ms", floor, 50),
        ...pooled("context_floor_p99_ms", floor, 99),
        ...pooled("context_large_p99_ms", largeReads, 99),
        ...ratioOverRounds("context_large_p99_ratio", largeReads, reads50, 99),
        ...pooled("context_unchanged_p99_ms", unchanged, 99),
        ...ratioOverRounds("context_unchanged_p99_ratio", unchanged, floor, 99),
        live_first_read: round(live / visibility.flat().length, 3),
        ...pooled("visibility_p99_ms", visibility, 99),
        ...pooled("recompile_p99_ms", recompile, 99),
        ...pooled("feedback_to_context_p99_ms", feedbackToContext, 99),
        ...pooled("timeline_page_p99_ms", timeline, 99),
        ...pooled("timeline_large_page_p99_ms", timelineLarge, 99),
        ...ratioOverRounds("timeline_page_p99_ratio", timeline, floor, 99),
        ...ratioOverRounds("timeline_large_page_p99_ratio", timelineLarge, floor, 99),
        ...pooled("search_p99_ms", search, 99),
        ...ratioOverRounds("search_p99_ratio", search, floor, 99),
        ...recall,
        ...pooled("mcp_context_p99_ms", mcp, 99),
        ...ratioOverRounds("mcp_context_ratio", mcp, reads50, 99),
        hot_tier_mb: round(stats.hot_tier_bytes / (1024 * 1024), 2),
        context_seed_compile_s: round(seedCompileS),
        context_profiles: profiles + 1,
        context_events: profiles * perProfile + large,
      },
      backgroundItems: await background.stop(),
    };
  } catch (error) {
    await background.stop().catch(() => {});
    throw error;
  }
}
