// Context figures of `npm run bench` (issue: memory and context), in a space of their own on the
// running service. The space is seeded with PROFILES profiles of EVENTS_PER_PROFILE events each
// and one profile of LARGE_EVENTS events; then, while a steady ingest runs in the same space at
// a quarter of the rate measured earlier in the run:
//   - context_p50_ms / context_p99_ms: sequential POST /v1/context for random profiles, next to
//     the floor (GET /v1/whoami) measured the same way at the same time (their ratios);
//   - context_large_p99_ms: the same for the large profile;
//   - context_unchanged_p99_ms: reads with `known_etag` current;
//   - live_first_read and visibility_p99_ms: a message batch answered, then one read: is it in
//     `live` (the fraction of trials), and how long from sending the batch to that read's answer;
//   - recompile_p99_ms: a system event answered → its fact in compiled memory (polled);
//   - feedback_to_context_p99_ms: a `correct_fact` sent → the corrected value in context (polled);
//   - hot_tier_mb: what the hot tier holds at the end (GET {base}/v1/ops/memory);
//   - timeline, search and recall figures: see timeline.mjs and search.mjs.
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { percentile, postJson, sortedCopy } from "./figures.mjs";
import { measureMcp } from "./mcp.mjs";
import { measureRecall, measureSearch } from "./search.mjs";
import { measureTimeline } from "./timeline.mjs";

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

export async function contextFigures(origin, operatorToken, { profiles, perProfile, large, ingestRate, reads }) {
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
  const background = backgroundIngest(url, demo.key, ingestRate / 4);
  try {
    const floor = [];
    const reads50 = [];
    for (let i = 0; i < reads; i++) {
      floor.push(
        (await timed(async () => (await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${demo.key}` } })).text()))
          .ms,
      );
      reads50.push((await timed(() => context(base, demo.key, { handle: handleOf(Math.floor(Math.random() * profiles)) }))).ms);
    }
    const largeReads = [];
    for (let i = 0; i < Math.ceil(reads / 2); i++) {
      largeReads.push((await timed(() => context(base, demo.key, { handle: handleOf(profiles) }))).ms);
    }
    const { etag } = await context(base, demo.key, { handle: handleOf(1) });
    const unchanged = [];
    for (let i = 0; i < Math.ceil(reads / 2); i++) {
      const { ms, value } = await timed(() => context(base, demo.key, { handle: handleOf(1), known_etag: etag }));
      if (value.unchanged) unchanged.push(ms);
    }

    let live = 0;
    const visibility = [];
    const trials = 500;
    for (let t = 0; t < trials; t++) {
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
      visibility.push(performance.now() - t0);
    }

    const recompile = [];
    for (let t = 0; t < 30; t++) {
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
      recompile.push(performance.now() - t0);
    }
    const feedbackToContext = [];
    for (let t = 0; t < 100; t++) {
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
      feedbackToContext.push(performance.now() - t0);
    }
    // Navigating memory (issue: navigation), on the same seeded space under the same ingest.
    const floorP99 = percentile(sortedCopy(floor), 99);
    const handles = Array.from({ length: 200 }, () => handleOf(Math.floor(Math.random() * profiles)));
    const navigation = {
      ...(await measureTimeline({ url: base, key: demo.key, handles, largeHandle: handleOf(profiles), floorP99 })),
      ...(await measureSearch({ url: base, key: demo.key, handles, floorP99 })),
      ...(await measureRecall({ url: base, key: demo.key })),
      // Agents (issue: MCP): get_customer_context over the HTTP context p99 of this space.
      ...(await measureMcp({ base, key: demo.key, handles, httpP99: percentile(sortedCopy(reads50), 99) })),
    };
    const stats = await memoryStats(base, operatorToken);
    const f = sortedCopy(floor);
    const c = sortedCopy(reads50);
    return {
      floor_p50: percentile(f, 50),
      floor_p99: percentile(f, 99),
      p50: percentile(c, 50),
      p99: percentile(c, 99),
      largeP99: percentile(sortedCopy(largeReads), 99),
      unchangedP99: percentile(sortedCopy(unchanged), 99),
      unchangedShare: unchanged.length / Math.ceil(reads / 2),
      liveFirstRead: live / trials,
      visibilityP99: percentile(sortedCopy(visibility), 99),
      recompileP99: percentile(sortedCopy(recompile), 99),
      feedbackToContextP99: percentile(sortedCopy(feedbackToContext), 99),
      navigation,
      hotTierMb: stats.hot_tier_bytes / (1024 * 1024),
      backgroundItems: await background.stop(),
      seedCompileS,
      profiles: profiles + 1,
      events: profiles * perProfile + large,
    };
  } catch (error) {
    await background.stop().catch(() => {});
    throw error;
  }
}
