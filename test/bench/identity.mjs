// Identity figures of `npm run bench` (issue: identity), each in a space of its own on the
// running service, next to the floor (an authenticated request that does no work) of that space:
//   - identify_items_per_s: batches of `identify` items that each merge two existing profiles;
//   - merge_large_ms: one `identify` that merges two profiles of N events each (N = 5,000 and
//     50,000), answered once the service has caught up with their writes: it must not grow with N;
//   - suggestions_job_ms and suggestions_max_slice_ms: the offline job over P profiles
//     (BENCH_SUGGESTION_PROFILES, default 100,000) sharing names and postal codes in small groups;
//   - suggestion_precision and suggestion_recall: after the first job, the open suggestions of a
//     space of 5,000 labelled person records (test/bench/person-records.mjs), pairwise against
//     the labels, beside the textbook reference's recall over the same records
//     (test/bench/person-reference.mjs).
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { pairwise, personRecords } from "./person-records.mjs";
import { referenceLinkage } from "./person-reference.mjs";

const BATCH = 500;
const QUIET_MAX_S = 600;

async function post(url, key, body, headers = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text);
  if (answer.errors?.length)
    throw new Error(`POST ${url}: ${answer.errors.length} items refused: ${JSON.stringify(answer.errors[0])}`);
  return answer;
}

/** Sends batches with `clients` concurrent clients; answers when all are stored. */
async function fill(url, key, batches, clients = 4) {
  const queue = [...batches];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (queue.length > 0) await post(url, key, { items: queue.shift() });
    }),
  );
}

const at = () => new Date(Date.now() - 60_000).toISOString();

function event(key, handles, extra = {}) {
  return {
    type: "event",
    idempotency_key: key,
    kind: "message",
    channel: "app",
    conversation_id: `c-${key}`,
    handles,
    speaker: { role: "customer" },
    content: { type: "text", text: "hello, where is my order?" },
    occurred_at: at(),
    ...extra,
  };
}

const handle = (value) => ({ type: "system_id", scope: "bench", value });

function chunks(items) {
  const out = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

async function floorOf(base, key) {
  const times = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    await (await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).text();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Waits until the floor is back under `floorMs` (at most QUIET_MAX_S): workerd runs every object
 * on one thread, so until the compiler has caught up with the writes just made (and with the
 * spaces measured before), a request waits behind its rounds. The merge is timed on its own.
 */
async function quiet(base, key, floorMs) {
  const started = performance.now();
  let floor = await floorOf(base, key);
  while (floor > floorMs && performance.now() - started < QUIET_MAX_S * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    floor = await floorOf(base, key);
  }
  return { floor, waitedS: (performance.now() - started) / 1000 };
}

/** Profiles of one handle each, then batches of `identify` items that merge them two by two. */
export async function identifyRate(origin, operatorToken, { merges = 5_000 } = {}) {
  const demo = await seedDemo(origin, operatorToken);
  const url = `${demo.base_url}/v1/batch`;
  const profiles = Array.from({ length: 2 * merges }, (_, i) => event(`p-${i}`, [handle(`p-${i}`)]));
  await fill(url, demo.key, chunks(profiles));
  const identifies = Array.from({ length: merges }, (_, i) => ({
    type: "identify",
    idempotency_key: `id-${i}`,
    handles: [handle(`p-${2 * i}`), handle(`p-${2 * i + 1}`)],
    method: "crm",
  }));
  const t0 = performance.now();
  for (const batch of chunks(identifies)) await post(url, demo.key, { items: batch });
  const seconds = (performance.now() - t0) / 1000;
  return { rate: merges / seconds, merges, seconds };
}

/** Conversations of this many events make up a large profile. */
const CONVERSATION_EVENTS = 100;

/**
 * Two profiles of `events` events each, in conversations of `CONVERSATION_EVENTS` (a customer
 * with a long history, not one conversation per event, whose sessions the compiler would take
 * minutes to catch up with before the merge can be timed alone), then one `identify` of their
 * handles, timed.
 */
export async function mergeLarge(origin, operatorToken, events, quietFloorMs) {
  const demo = await seedDemo(origin, operatorToken);
  const url = `${demo.base_url}/v1/batch`;
  const items = [];
  for (const side of ["a", "b"]) {
    for (let i = 0; i < events; i++) {
      const conversation = `c-${side}-${Math.floor(i / CONVERSATION_EVENTS)}`;
      items.push(event(`${side}-${i}`, [handle(`big-${side}`)], { conversation_id: conversation }));
    }
  }
  await fill(url, demo.key, chunks(items));
  const { floor, waitedS } = await quiet(demo.base_url, demo.key, quietFloorMs);
  const t0 = performance.now();
  await post(url, demo.key, {
    items: [{ type: "identify", idempotency_key: "merge", handles: [handle("big-a"), handle("big-b")], method: "crm" }],
  });
  const ms = performance.now() - t0;
  const lookup = await fetch(`${demo.base_url}/v1/profiles/lookup`, {
    method: "POST",
    headers: { authorization: `Bearer ${demo.key}`, "content-type": "application/json" },
    body: JSON.stringify({ handle: handle("big-b") }),
  });
  const profile = await lookup.json();
  if (profile.identifiers?.length !== 2)
    throw new Error(`merge_large: the merged profile has ${profile.identifiers?.length} handles`);
  return { ms, floor, events, waitedS };
}

/**
 * `profiles` profiles from CRM updates: names shared by groups of three, a postal code by two of
 * them, so the job has real pairs to score; then the job's run, from the list's `job` field.
 */
export async function suggestionsJob(origin, operatorToken, profiles, quietFloorMs) {
  const demo = await seedDemo(origin, operatorToken);
  // Not behind what the spaces measured before still compile (the large merge's rebuild).
  const { waitedS } = await quiet(demo.base_url, demo.key, quietFloorMs);
  const url = `${demo.base_url}/v1/batch`;
  const items = Array.from({ length: profiles }, (_, i) =>
    event(`s-${i}`, [handle(`s-${i}`)], {
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      speaker: { role: "system" },
      attributes: { name: `Customer ${Math.floor(i / 3)}`, postal_code: `${Math.floor(i / 2) % 90_000}` },
    }),
  );
  const fillStarted = Date.now();
  await fill(url, demo.key, chunks(items));
  const fillEnded = Date.now();
  const started = performance.now();
  let job;
  let suggestions;
  for (;;) {
    const response = await fetch(`${demo.base_url}/v1/identity/suggestions?limit=1&status=open`, {
      headers: { authorization: `Bearer ${demo.key}` },
    });
    const page = await response.json();
    job = page.job;
    suggestions = page.data.length;
    if (job?.status === "idle" && job.last_run) break;
    if (performance.now() - started > 600_000) throw new Error(`suggestions job: not done after 10 minutes (${job?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const run = job.last_run;
  if (process.env.BENCH_VERBOSE)
    console.warn(
      `fill ${fillEnded - fillStarted} ms; run from ${Date.parse(run.started_at) - fillStarted} to ${Date.parse(run.finished_at) - fillStarted} ms after the fill began`,
    );
  const records = recordsMeasured ? undefined : await personRecordSuggestions(origin, operatorToken);
  recordsMeasured = true;
  return {
    ms: Date.parse(run.finished_at) - Date.parse(run.started_at),
    maxSliceMs: run.max_slice_ms,
    slices: run.slices,
    profiles,
    found: suggestions > 0,
    waitedS,
    records,
  };
}

let recordsMeasured = false;

/** Waits until the space's suggestions job has run and is idle; answers its page's `job`. */
async function jobIdle(base, key) {
  const started = performance.now();
  for (;;) {
    const page = await (
      await fetch(`${base}/v1/identity/suggestions?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    if (page.job?.status === "idle" && page.job.last_run) return page.job;
    if (performance.now() - started > 600_000)
      throw new Error(`suggestions job: not done after 10 minutes (${page.job?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Labelled person records (one profile each, by a handle of its own) written as a CRM's
 * `customer.updated` events; once the job has run, every open suggestion read back and scored
 * pairwise against the labels; the textbook reference scored over the same records.
 */
export async function personRecordSuggestions(origin, operatorToken, count = 5_000) {
  return { ...(await recordSuggestions(origin, operatorToken, personRecords({ count, seed: 30 }))), suggestion_records: count };
}

/**
 * Person records `{id, cluster, attributes}` (one profile each) written into a fresh space as
 * `customer.updated` events; once the job has run, its open suggestions and the textbook
 * reference's pairs, pairwise against the clusters.
 */
export async function recordSuggestions(origin, operatorToken, records) {
  const demo = await seedDemo(origin, operatorToken);
  const items = records.map((record) =>
    event(`person-${record.id}`, [{ type: "system_id", scope: "person", value: record.id }], {
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      speaker: { role: "system" },
      attributes: record.attributes,
    }),
  );
  await fill(`${demo.base_url}/v1/batch`, demo.key, chunks(items));
  await jobIdle(demo.base_url, demo.key);
  const found = [];
  for (let cursor = null; ; ) {
    const query = `status=open&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await (
      await fetch(`${demo.base_url}/v1/identity/suggestions?${query}`, { headers: { authorization: `Bearer ${demo.key}` } })
    ).json();
    for (const suggestion of page.data) found.push([suggestion.identifier_a?.value, suggestion.identifier_b?.value]);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  const service = pairwise(records, found);
  const reference = pairwise(records, referenceLinkage(records));
  return {
    suggestion_precision: round3(service.precision),
    suggestion_recall: round3(service.recall),
    suggestion_reference_precision: round3(reference.precision),
    suggestion_reference_recall: round3(reference.recall),
  };
}

const round3 = (value) => Math.round(value * 1000) / 1000;
