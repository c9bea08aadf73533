// Memory figures of `npm run bench` (issue 31), on the labelled conversation set of
// sessions-labelled.mjs, each write in a space of its own on the running service. The set is
// written through `POST /v1/batch` (batches of whole sessions, two clients) into a fresh space;
// every session is in the past, so each is closed as it is written (docs/api/memory.md). Waiting
// for memory is waiting until the space's compile queue is empty (`GET /v1/ops/memory`, polled
// every 100 ms: a poll costs the service about 5 ms of CPU under wrangler dev, so polling every
// 25 ms took a sixth of a core from the compiler it waited for). `repeats` times, after an untimed warm-up space (medians, with `_spread`):
//   - write_compile_events_per_s: the set's events over the time from its first write to its
//     last session compiled: writes and compile together, as a customer's events reach memory;
//     compile_write_s, the time the writes alone took;
//   - compile_events_per_s: then one late event per session (the customer's "thanks" a second
//     after its last turn, which joins the closed session: every session is compiled again,
//     whole); the set's events and these over the time from that write to the queue empty. The
//     compiler's own rate: that write is a few hundred items, so a compile that costs 20 % more
//     shows as a rate 20 % lower, where the writes' time dilutes it in the figure above;
//   - on the first of those spaces, once compiled and before its late events, per session its
//     episode (the history item of the session's `episode_id`, found through the customer's
//     timeline) and per customer its context. From them:
//       episode_rouge1_recall: ROUGE-1 recall (rouge.mjs) of the episode's `summary` against the
//         session's reference summary, the mean over sessions; lead3_rouge1_recall: the same of
//         the session's first three turns' text; episode_lead3_ratio: the first over the second;
//         episode_summary_chars: the summaries' mean length;
//       highlight_coverage: the share of labelled statements whose turn's `event_id` is among its
//         episode's `highlights[].event_id` (0 while episodes have no highlights);
//         highlights_per_episode: their mean count;
//       context_bytes_p99: p99 (nearest rank) of the byte length of `POST /v1/context` answers of
//         the customers with 30 sessions (about 600 messages each);
//       open_item_precision: of the contexts' open items of kind `question`, the share whose
//         question turn (found by `opened_at`, the time of the turn it was opened by) is labelled
//         unanswered; an item no customer question was opened by counts as wrong (null without
//         open items); open_item_recall: of each customer's newest 20 unanswered questions (a
//         context lists the newest 20 open items), the share among them.
import { randomBytes } from "node:crypto";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { median, overRounds, pct, postJson, round } from "./figures.mjs";
import { leadThree, rouge1Recall } from "./rouge.mjs";
import { labelledItems, labelledSet } from "./sessions-labelled.mjs";

/** Long enough before now that every session (about 250 days for 30 of them) is over. */
const PAST_MS = 400 * 86_400_000;
const OPEN_ITEMS_LISTED = 20;
const LONG_SESSIONS = 30;
const POLL_MS = 100;

async function compileQueue(base, operatorToken) {
  const response = await fetch(`${base}/v1/ops/memory`, { headers: { "x-service-operator-token": operatorToken } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v1/ops/memory answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text).compile_queue;
}

/** Posts `batches` with two clients; every item must be accepted. */
async function post({ base, key }, batches) {
  const left = [...batches];
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      for (let items = left.shift(); items; items = left.shift()) {
        const answer = await postJson(`${base}/v1/batch`, key, { items });
        if (answer.accepted !== items.length)
          throw new Error(
            `memory set: ${items.length - answer.accepted} items refused: ${JSON.stringify(answer.errors?.slice(0, 3))}`,
          );
      }
    }),
  );
}

/** Resolves once the space's compile queue is empty (`t0`: when the wait's writes began). */
export async function compiled({ base, operatorToken }, t0, timeoutS = 900) {
  while ((await compileQueue(base, operatorToken)) > 0) {
    if (performance.now() - t0 > timeoutS * 1000) throw new Error(`memory set: not compiled after ${timeoutS} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Writes `set` into a fresh space and waits until it is compiled. Answers the space, what was
 * written, and `{events, eventsPerS, writeS}` (from the first write to compiled).
 */
export async function writeCompiled(origin, operatorToken, set) {
  const demo = await seedDemo(origin, operatorToken);
  const space = { base: demo.base_url, key: demo.key, operatorToken };
  const written = labelledItems(set, { run: randomBytes(4).toString("hex"), start: Date.now() - PAST_MS });
  const events = written.batches.reduce((sum, batch) => sum + batch.length, 0);
  const t0 = performance.now();
  await post(space, written.batches);
  const writeS = (performance.now() - t0) / 1000;
  await compiled(space, t0);
  return { space, written, events, eventsPerS: events / ((performance.now() - t0) / 1000), writeS };
}

/**
 * One late event per session of a space `writeCompiled` answered (so every session is compiled
 * again, whole). Answers `{events, eventsPerS, eventsPerCpuS}`: the sessions' events, late ones
 * included, over the time from their write to compiled, and over the CPU seconds `cpu()` (the
 * service's processes, servers.mjs) counted meanwhile.
 */
export async function recompileRate({ space, written, events }, cpu) {
  const late = written.sessions.flatMap((sessions, c) =>
    sessions.map(({ channel, conversationId, times }) => ({
      type: "event",
      idempotency_key: `late-${conversationId}`,
      channel,
      conversation_id: conversationId,
      handles: [written.handles[c]],
      speaker: { role: "customer" },
      content: { type: "text", text: "Thanks again." },
      occurred_at: new Date(times.at(-1) + 1000).toISOString(),
    })),
  );
  const batches = [];
  for (let i = 0; i < late.length; i += 500) batches.push(late.slice(i, i + 500));
  const cpu0 = cpu();
  const t0 = performance.now();
  await post(space, batches);
  await compiled(space, t0);
  const seconds = (performance.now() - t0) / 1000;
  const all = events + late.length;
  return { events: all, eventsPerS: all / seconds, eventsPerCpuS: all / (cpu() - cpu0) };
}

/**
 * Both compile rates of one fresh space on `service` (servers.mjs): `writeCompiled`, then `read`
 * of what it answered (the figures, on a space as written), then `recompileRate`.
 */
export async function compileRates(service, operatorToken, set, read = async () => undefined) {
  const written = await writeCompiled(service.origin, operatorToken, set);
  const quality = await read(written);
  return { written, quality, recompile: await recompileRate(written, service.cpuSeconds) };
}

/** Every event of a customer on the timeline, by time: `{event_id, episode_id}`. */
export async function eventsByTime({ base, key }, handle) {
  const byTime = new Map();
  let cursor;
  do {
    const page = await postJson(`${base}/v1/timeline`, key, { handle, limit: 100, ...(cursor ? { cursor } : {}) });
    for (const event of page.data) byTime.set(Date.parse(event.occurred_at), event);
    cursor = page.next_cursor;
  } while (cursor);
  return byTime;
}

/** Reads every session's episode and every customer's context of a compiled space; the figures. */
export async function memoryQuality({ base, key }, set, written) {
  const rouge = { episode: [], lead3: [] };
  const summaryChars = [];
  const highlightCounts = [];
  let statements = 0;
  let covered = 0;
  const contextBytes = [];
  let openItems = 0;
  let rightItems = 0;
  let unanswered = 0;
  let found = 0;
  for (const [c, customer] of set.customers.entries()) {
    const handle = written.handles[c];
    const byTime = await eventsByTime({ base, key }, handle);
    /** Each turn of the customer by its time: which session, which turn. */
    const turnAt = new Map();
    for (const [s, session] of customer.sessions.entries()) {
      const { times } = written.sessions[c][s];
      for (const [i, at] of times.entries()) turnAt.set(at, { s, i });
      const events = times.map((at) => byTime.get(at));
      const episodeId = events[0]?.episode_id;
      if (events.some((event) => event?.episode_id !== episodeId))
        throw new Error(`customer ${c}, session ${s}: its turns are not all in one episode on the timeline`);
      const episode = await postJson(`${base}/v1/history/open`, key, { item_id: episodeId, handle });
      const highlighted = new Set((episode.highlights ?? []).map((highlight) => highlight.event_id));
      rouge.episode.push(rouge1Recall(episode.summary, session.reference));
      rouge.lead3.push(rouge1Recall(leadThree(session.turns), session.reference));
      summaryChars.push(episode.summary.length);
      highlightCounts.push(highlighted.size);
      statements += session.statements.length;
      covered += session.statements.filter((i) => highlighted.has(events[i].event_id)).length;
    }
    const response = await fetch(`${base}/v1/context`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ handle }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /v1/context answered ${response.status}: ${text.slice(0, 300)}`);
    const context = JSON.parse(text);
    if (context.compiled.pending !== 0) throw new Error(`customer ${c}: ${context.compiled.pending} events not compiled`);
    if (customer.sessions.length === LONG_SESSIONS) contextBytes.push(Buffer.byteLength(text));
    const label = ({ s, i }) => customer.sessions[s].questions.find((question) => question.turn === i)?.status;
    const opened = new Set();
    for (const item of context.memory.open_items.filter((open) => open.kind === "question")) {
      const at = Date.parse(item.opened_at);
      const turn = turnAt.get(at);
      openItems++;
      if (turn && label(turn) === "unanswered") rightItems++;
      opened.add(at);
    }
    const open = [...turnAt]
      .filter(([, turn]) => label(turn) === "unanswered")
      .map(([at]) => at)
      .sort((a, b) => b - a)
      .slice(0, OPEN_ITEMS_LISTED);
    unanswered += open.length;
    found += open.filter((at) => opened.has(at)).length;
  }
  const mean = (list) => list.reduce((sum, value) => sum + value, 0) / list.length;
  const episode = mean(rouge.episode);
  const lead3 = mean(rouge.lead3);
  return {
    episode_rouge1_recall: round(episode, 3),
    lead3_rouge1_recall: round(lead3, 3),
    episode_lead3_ratio: round(episode / lead3, 2),
    episode_summary_chars: Math.round(mean(summaryChars)),
    highlight_coverage: round(statements === 0 ? 0 : covered / statements, 3),
    highlights_per_episode: round(mean(highlightCounts), 2),
    context_bytes_p99: pct(contextBytes, 99),
    open_item_precision: openItems === 0 ? null : round(rightItems / openItems, 3),
    open_item_recall: unanswered === 0 ? null : round(found / unanswered, 3),
    memory_open_items: openItems,
    memory_statements: statements,
    memory_unanswered_questions: unanswered,
    memory_long_customers: contextBytes.length,
  };
}

/**
 * The memory phase: an untimed warm-up space, then `repeats` spaces with the set, the figures
 * read on the first. `customers`: the set's size (every fourth has 30 sessions).
 */
export async function memoryFigures(service, operatorToken, { customers, repeats, log = () => {} }) {
  const set = labelledSet({ seed: 31, customers });
  const sessions = set.customers.reduce((sum, customer) => sum + customer.sessions.length, 0);
  log("memory: warm-up space");
  await compileRates(service, operatorToken, labelledSet({ seed: 131, customers: 2 }));
  const runs = [];
  for (let r = 0; r < repeats; r++) {
    const read = async ({ space, written }) => {
      if (r > 0) return undefined;
      log("memory: reading every episode and context");
      return memoryQuality(space, set, written);
    };
    runs.push(await compileRates(service, operatorToken, set, read));
    const { written, recompile } = runs.at(-1);
    log(
      `memory: ${customers} customers, ${sessions} sessions, ${written.events} events written and compiled at ${Math.round(written.eventsPerS)} events/s (writes ${written.writeS.toFixed(1)} s), compiled again at ${Math.round(recompile.eventsPerS)} (${Math.round(recompile.eventsPerCpuS)} per CPU second) (${r + 1} of ${repeats})`,
    );
  }
  return {
    ...runs[0].quality,
    ...overRounds(
      "compile_events_per_s",
      runs.map((run) => run.recompile.eventsPerS),
      0,
    ),
    ...overRounds(
      "compile_events_per_cpu_s",
      runs.map((run) => run.recompile.eventsPerCpuS),
      0,
    ),
    ...overRounds(
      "write_compile_events_per_s",
      runs.map((run) => run.written.eventsPerS),
      0,
    ),
    compile_write_s: round(median(runs.map((run) => run.written.writeS)), 1),
    memory_customers: customers,
    memory_sessions: sessions,
    memory_events: runs[0].written.events,
  };
}
