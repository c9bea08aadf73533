// Erasure figures of `npm run bench` (issue 32), in a space of their own on a service of its own.
// The space holds OTHERS customers of PER_OTHER events each and one subject of SUBJECT_EVENTS
// events (in conversations of 50 messages, over the last 30 days) and SUBJECT_MEDIA files (issue
// 33: 20 photos of MEDIA_BYTES, uploaded through the development store, reserved under the
// subject, each pointed to by one of its events), compiled. Then:
//   - forget_floor_p99_ms: p99 of FLOOR sequential GET /v1/whoami (the empty authenticated
//     request), and forget_quiet_context_p99_ms: p99 of as many POST /v1/context of random other
//     customers, before the erasure;
//   - forget_ms: POST /v1/forget of the subject (a person with `security`) → its receipt read
//     back signed (GET /v1/privacy/receipts/{id} answers 200), polled between context reads;
//     forget_receipt_ms: `completed_at` − `started_at` of the receipt (the object's own time);
//   - forget_other_context_p99_ms: p99 of POST /v1/context of random other customers, read one
//     after the other while the erasure runs (a receipt poll after every second read: under load a
//     read takes 100 to 300 ms, and ten of them left the receipt unseen for seconds), and
//     forget_other_context_p99_ratio: that over forget_floor_p99_ms;
//   - forget_context_samples: how many reads that p99 is over; forget_events, forget_media: the
//     receipt's `counts.events` and `counts.media`.
import { createHash, randomBytes } from "node:crypto";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { pct, postJson, round } from "./figures.mjs";

const BATCH = 500;
const PAST = 30 * 24 * 3600_000;
const CONVERSATION = 50;
const POLL_EVERY = 2;
const MEDIA_BYTES = 200_000;

const phoneOf = (i) => `+4478${String(i).padStart(8, "0")}`;
const SUBJECT = { type: "email", value: "forget.subject@example.com" };

async function request(origin, method, path, { token, operator, body, idempotencyKey } = {}) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (operator) headers["x-service-operator-token"] = operator;
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  const response = await fetch(`${origin}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function said(key, handle, conversation, at, text) {
  return {
    type: "event",
    idempotency_key: key,
    channel: "whatsapp",
    conversation_id: conversation,
    handles: [handle],
    speaker: { role: "customer" },
    content: { type: "text", text },
    occurred_at: new Date(at).toISOString(),
  };
}

async function fill(base, key, items, clients = 4) {
  const batches = [];
  for (let i = 0; i < items.length; i += BATCH) batches.push(items.slice(i, i + BATCH));
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let items = batches.shift(); items; items = batches.shift()) {
        const answer = await postJson(`${base}/v1/batch`, key, { items });
        if (answer.accepted !== items.length) throw new Error(`forget seed: ${JSON.stringify(answer.errors?.slice(0, 3))}`);
      }
    }),
  );
}

/** Reserves a photo under the subject, uploads it through the development store; answers the event that points to it. */
async function subjectPhoto(base, key, n, at) {
  const bytes = randomBytes(MEDIA_BYTES);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const reserved = await request(base, "POST", "/v1/media/uploads", {
    token: key,
    body: { content_type: "image/jpeg", size_bytes: bytes.byteLength, sha256, subject: SUBJECT },
  });
  if (reserved.status !== 201) throw new Error(`forget seed: reservation answered ${reserved.status}`);
  const reservation = reserved.body;
  // fetch sets Content-Length from the body itself (it may not be set by hand).
  const { "Content-Length": _length, ...headers } = reservation.upload_headers;
  const response = await fetch(reservation.upload_url, { method: "PUT", headers, body: bytes });
  const answer = await response.text();
  if (response.status !== 200) throw new Error(`forget seed: upload answered ${response.status}: ${answer.slice(0, 300)}`);
  return {
    ...said(`s-media-${n}`, SUBJECT, "subject-photos", at, ""),
    content: { type: "image", media_ref: reservation.media_ref, media_sha256: sha256 },
  };
}

async function compiled(base, operatorToken, timeoutS = 900) {
  const started = performance.now();
  for (;;) {
    const stats = await request(base, "GET", "/v1/ops/memory", { operator: operatorToken });
    if (stats.status !== 200) throw new Error(`GET /v1/ops/memory answered ${stats.status}`);
    if (stats.body.compile_queue === 0) return;
    if (performance.now() - started > timeoutS * 1000) throw new Error(`forget seed: not compiled after ${timeoutS} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** `{others, perOther, subjectEvents, subjectMedia, floor}`: the space's size and the floor's sample count. */
export async function forgetFigures(
  service,
  operatorToken,
  { others, perOther, subjectEvents, subjectMedia, floor, log = () => {} },
) {
  const demo = await seedDemo(service.origin, operatorToken);
  const base = demo.base_url;
  const admin = await request(service.origin, "POST", "/control/v1/auth/login", { body: demo.admin });
  const person = { email: `security+${randomBytes(3).toString("hex")}@demo.test`, password: randomBytes(12).toString("hex") };
  const created = await request(service.origin, "POST", "/control/v1/people", {
    token: admin.body.token,
    body: { ...person, roles: ["security"] },
  });
  if (created.status !== 201) throw new Error(`POST /v1/people answered ${created.status}`);
  const security = (await request(service.origin, "POST", "/control/v1/auth/login", { body: person })).body.token;

  const now = Date.now();
  const items = [];
  for (let p = 0; p < others; p++) {
    for (let n = 0; n < perOther; n++) {
      items.push(
        said(
          `o-${p}-${n}`,
          { type: "phone_e164", value: phoneOf(p) },
          `o-${p}`,
          now - PAST + p * 60_000 + n * 1000,
          `order ${n} question`,
        ),
      );
    }
  }
  for (let n = 0; n < subjectEvents; n++) {
    const conversation = `subject-${Math.floor(n / CONVERSATION)}`;
    items.push(said(`s-${n}`, SUBJECT, conversation, now - PAST + n * 60_000, `subject message ${n}: where is parcel ${n}?`));
  }
  log(`forget: seeding ${others} customers of ${perOther} events and a subject of ${subjectEvents} and ${subjectMedia} files`);
  for (let n = 0; n < subjectMedia; n++) items.push(await subjectPhoto(base, demo.key, n, now - PAST + n * 60_000 + 30_000));
  await fill(base, demo.key, items);
  await compiled(base, operatorToken);

  const other = () => ({ handle: { type: "phone_e164", value: phoneOf(Math.floor(Math.random() * others)) } });
  const contextRead = () => timed(() => postJson(`${base}/v1/context`, demo.key, other()));
  const floorSamples = [];
  const quietSamples = [];
  for (let i = 0; i < floor; i++) {
    floorSamples.push((await timed(() => request(base, "GET", "/v1/whoami", { token: demo.key }))).ms);
    quietSamples.push((await contextRead()).ms);
  }

  log("forget: erasing the subject while other customers' contexts are read");
  const sent = performance.now();
  const answer = await request(base, "POST", "/v1/forget", {
    token: security,
    body: { handle: SUBJECT },
    idempotencyKey: crypto.randomUUID(),
  });
  if (answer.status !== 200 && answer.status !== 202) throw new Error(`POST /v1/forget answered ${answer.status}`);
  let receipt = answer.status === 200 ? answer.body : null;
  const during = [];
  let forgetMs = receipt ? performance.now() - sent : null;
  for (let i = 1; receipt === null; i++) {
    during.push((await contextRead()).ms);
    if (i % POLL_EVERY !== 0) continue;
    const read = await request(base, "GET", `/v1/privacy/receipts/${answer.body.receipt_id}`, { token: security });
    if (read.status === 200) {
      receipt = read.body;
      forgetMs = performance.now() - sent;
    } else if (read.status !== 202) throw new Error(`GET receipt answered ${read.status}`);
    if (performance.now() - sent > 600_000) throw new Error("forget: no receipt after 10 minutes");
  }
  const floorP99 = pct(floorSamples, 99);
  const duringP99 = during.length > 0 ? pct(during, 99) : null;
  return {
    forget_ms: round(forgetMs, 0),
    forget_receipt_ms: Date.parse(receipt.completed_at) - Date.parse(receipt.started_at),
    forget_events: receipt.counts.events,
    forget_media: receipt.counts.media,
    forget_floor_p99_ms: round(floorP99, 1),
    forget_quiet_context_p99_ms: round(pct(quietSamples, 99), 1),
    forget_other_context_p99_ms: duringP99 === null ? null : round(duringP99, 1),
    forget_other_context_p99_ratio: duringP99 === null ? null : round(duringP99 / floorP99, 2),
    forget_context_samples: during.length,
  };
}
