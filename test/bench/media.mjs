// `upload_mb_per_s` of `npm run bench` (issue 33): a 100 MB file through the development store,
// the route `npm run dev` gives as `upload_url` (production uploads go to R2's presigned URL and
// never through the Worker). Each round reserves the file, PUTs it with exactly the reservation's
// headers (the Worker streams it into local R2 with R2's SHA-256 check) and points an event to
// it; the figure is the median of the rounds' MB/s (decimal MB, as the 500 MB limit), the time
// being the PUT's, from its first byte sent to its answer.
import { createHash, randomBytes } from "node:crypto";
import { seedDemo } from "../../scripts/seed-demo.mjs";
import { overRounds } from "./figures.mjs";

export const UPLOAD_BYTES = 100_000_000;

async function post(url, key, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export async function uploadFigures(origin, operatorToken, { rounds, log }) {
  const demo = await seedDemo(origin, operatorToken);
  const rates = [];
  for (let r = 0; r < rounds; r++) {
    const bytes = randomBytes(UPLOAD_BYTES);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const reservation = await post(`${demo.base_url}/v1/media/uploads`, demo.key, {
      content_type: "video/mp4",
      size_bytes: bytes.byteLength,
      sha256,
    });
    // fetch sets Content-Length from the body itself, as a browser does (it may not be set by hand).
    const { "Content-Length": length, ...headers } = reservation.upload_headers;
    if (Number(length) !== bytes.byteLength) throw new Error(`reserved ${length} bytes, sending ${bytes.byteLength}`);
    const started = performance.now();
    const response = await fetch(reservation.upload_url, { method: "PUT", headers, body: bytes });
    const answer = await response.text();
    const seconds = (performance.now() - started) / 1000;
    if (response.status !== 200) throw new Error(`upload answered ${response.status}: ${answer.slice(0, 300)}`);
    const stored = await post(`${demo.base_url}/v1/batch`, demo.key, {
      items: [
        {
          type: "event",
          idempotency_key: `bench-media-${reservation.media_ref}`,
          channel: "app",
          conversation_id: "bench-media",
          handles: [{ type: "email", value: "bench.media@example.test" }],
          content: { type: "video", media_ref: reservation.media_ref, media_sha256: sha256 },
          occurred_at: new Date().toISOString(),
        },
      ],
    });
    if (stored.accepted !== 1) throw new Error(`the event pointing to the upload was refused: ${JSON.stringify(stored)}`);
    rates.push(UPLOAD_BYTES / 1e6 / seconds);
    log(`media, round ${r + 1} of ${rounds}: 100 MB in ${seconds.toFixed(2)} s, ${rates.at(-1).toFixed(1)} MB/s`);
  }
  return overRounds("upload_mb_per_s", rates, 1);
}
