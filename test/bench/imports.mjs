// The file imports' figures of `npm run bench` (issue 33, docs/api/imports.md), each import on a
// service of its own (`run.mjs` `importRun`), so that one file's state does not weigh on the next:
//   - import_items_per_s: an NDJSON file of the workload's realistic events (workload.mjs), from
//     the 202 to `completed`, read by the `imports` queue's consumer under wrangler dev; beside it
//     import_reference_items_per_s, a short batch ingest into another space of the same service
//     (4 clients, 500-item batches, the workload's events): the rate the import is held against;
//   - import_peak_rss_mb_<size>: the largest resident memory of the service's workerd processes,
//     sampled every 100 ms while the import runs (it must not grow with the file);
//   - import_compiled_s: from `completed` to an empty compile queue (every imported profile compiled);
//   - csv_rows_per_s: a CSV of identities (an e-mail, a phone, a CRM id; a tenth of the rows
//     sharing a handle with an earlier row, so that identity merges), from the 202 to `completed`.
import { readdirSync, readFileSync } from "node:fs";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { Workload } from "./workload.mjs";

const MB = 1_000_000;

async function request(url, { method = "GET", headers = {}, body } = {}) {
  const response = await fetch(url, { method, headers, body }).catch((error) => {
    throw new Error(`${method} ${url} failed: ${error.cause ?? error}`);
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** NDJSON of the workload's events, `bytes` long at least (whole lines), as one Buffer. */
function ndjsonFile(run, bytes) {
  const workload = new Workload({ run, batchItems: 500, seed: 7 });
  const parts = [];
  let size = 0;
  let items = 0;
  while (size < bytes) {
    const lines = `${workload
      .items("import")
      .map((item) => JSON.stringify(item))
      .join("\n")}\n`;
    parts.push(Buffer.from(lines));
    size += parts.at(-1).byteLength;
    items += 500;
  }
  return { body: Buffer.concat(parts), items };
}

/** `rows` CSV records of identities; every tenth shares its phone with the record ten before it. */
function csvFile(run, rows) {
  const lines = ["email,phone_e164,system_id,system_id_scope"];
  for (let row = 0; row < rows; row++) {
    const phoneOf = row % 10 === 9 ? row - 9 : row;
    lines.push(`${run}.c${row}@example.com,+4477${String(10_000_000 + phoneOf).slice(-8)},crm-${run}-${row},crm`);
  }
  return Buffer.from(`${lines.join("\r\n")}\r\n`);
}

/** Resident memory (MB) of the group's workerd processes, from Linux's /proc. */
function workerdRssMb(server) {
  let kb = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== server.pgid || !stat.includes("(workerd)")) continue;
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/**
 * Sends a file and waits for its import to end; answers its status, seconds from the 202 to the
 * end, and the peak RSS while the file was sent (to the 202) and while it was read.
 */
async function importFile(server, demo, body, contentType, log) {
  const headers = { authorization: `Bearer ${demo.key}`, "content-type": contentType };
  const peaks = { sending: workerdRssMb(server), reading: 0 };
  let phase = "sending";
  const sampler = setInterval(() => {
    peaks[phase] = Math.max(peaks[phase], workerdRssMb(server));
  }, 100);
  try {
    const { import_id: importId } = await request(`${demo.base_url}/v1/ingest/files`, { method: "POST", headers, body });
    phase = "reading";
    const started = performance.now();
    let status;
    let shown = 0;
    for (;;) {
      status = await request(`${demo.base_url}/v1/ingest/files/${importId}`, {
        headers: { authorization: headers.authorization },
      });
      if (status.status === "completed" || status.status === "failed") break;
      if (performance.now() - shown > 10_000) {
        shown = performance.now();
        log(`imports: ${status.status}, ${status.records} records read`);
      }
      // As a client drawing a progress bar would: each poll is a request the space lets in between slices.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const seconds = (performance.now() - started) / 1000;
    if (status.status !== "completed") throw new Error(`the import ended ${status.status}: ${status.reason}`);
    return { status, seconds, peakRssMb: Math.max(peaks.sending, peaks.reading), peaks };
  } finally {
    clearInterval(sampler);
  }
}

/** Seconds until the space's compile queue is empty (`GET /v1/ops/memory`); null when it is not within `limitS`. */
async function compiledAfter(demo, operatorToken, limitS, log) {
  const started = performance.now();
  let shown = started;
  for (;;) {
    const stats = await request(`${demo.base_url}/v1/ops/memory`, { headers: { "x-service-operator-token": operatorToken } });
    const seconds = (performance.now() - started) / 1000;
    if (stats.compile_queue === 0) return seconds;
    if (seconds > limitS) return null;
    if (performance.now() - shown > 30_000) {
      shown = performance.now();
      log(`imports: ${stats.compile_queue} sessions wait for the compiler`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A short batch ingest of the workload's events (on a service of its own): the rate an import is held against. */
export async function referenceIngest(origin, operatorToken, { batches, clients }) {
  const demo = await seedDemo(origin, operatorToken);
  const workload = new Workload({ run: `ref${Date.now().toString(36)}`, batchItems: 500, seed: 3 });
  const bodies = workload.bodies("reference", batches + clients);
  const url = `${demo.base_url}/v1/batch`;
  const headers = { authorization: `Bearer ${demo.key}`, "content-type": "application/json" };
  // A warm-up batch per client, then the measured ones.
  const send = async (queue) => {
    let items = 0;
    for (let body = queue.shift(); body; body = queue.shift()) {
      const answer = await request(url, { method: "POST", headers, body });
      items += answer.accepted;
    }
    return items;
  };
  await Promise.all(Array.from({ length: clients }, () => send([bodies.shift()])));
  const started = performance.now();
  const counts = await Promise.all(Array.from({ length: clients }, () => send(bodies)));
  const seconds = (performance.now() - started) / 1000;
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

/**
 * One NDJSON import of `megabytes` on `server` (a fresh service): its rate, its peak RSS, and
 * (`compileLimitS`) the seconds until everything it brought is compiled.
 */
export async function ndjsonImport(server, operatorToken, { megabytes, compileLimitS, log }) {
  const run = `imp${Date.now().toString(36)}`;
  const file = ndjsonFile(run, megabytes * MB);
  log(`imports: ${(file.body.byteLength / MB).toFixed(1)} MB of NDJSON, ${file.items} events`);
  const demo = await seedDemo(server.origin, operatorToken);
  const baseline = workerdRssMb(server);
  const { status, seconds, peakRssMb, peaks } = await importFile(server, demo, file.body, "application/x-ndjson", log);
  if (status.accepted !== file.items) throw new Error(`the import accepted ${status.accepted} of ${file.items}`);
  log(
    `imports: ${file.items} events in ${seconds.toFixed(1)} s (${Math.round(file.items / seconds)}/s); workerd's RSS ${baseline.toFixed(0)} MB before, at most ${peaks.sending.toFixed(0)} MB while the file was sent and ${peaks.reading.toFixed(0)} MB while it was read`,
  );
  const compiledS = compileLimitS ? await compiledAfter(demo, operatorToken, compileLimitS, log) : null;
  if (compileLimitS)
    log(`imports: compiled ${compiledS === null ? `not within ${compileLimitS}` : compiledS.toFixed(1)} s after`);
  return { itemsPerS: file.items / seconds, peakRssMb, baselineRssMb: baseline, compiledS };
}

/** A CSV of `rows` identities on `server`. */
export async function csvImport(server, operatorToken, { rows, log }) {
  const run = `csv${Date.now().toString(36)}`;
  const demo = await seedDemo(server.origin, operatorToken);
  const body = csvFile(run, rows);
  log(`imports: a CSV of ${rows} identities, ${(body.byteLength / MB).toFixed(1)} MB`);
  const { status, seconds } = await importFile(server, demo, body, "text/csv", log);
  if (status.accepted !== rows)
    throw new Error(`the CSV import accepted ${status.accepted} of ${rows}: ${JSON.stringify(status.errors.slice(0, 3))}`);
  log(`imports: ${rows} CSV rows in ${seconds.toFixed(1)} s (${Math.round(rows / seconds)}/s)`);
  return { rowsPerS: rows / seconds };
}
