import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_DELIVERIES } from "../../src/queues/consumer";
import { MAX_RECORD_BYTES } from "../../src/space/imports/file-records";
import { importKey } from "../../src/space/imports/keys";
import { expectProblem, personToken, query } from "../support/identity";
import {
  breakingAfter,
  CSV,
  deliver,
  finished,
  imported,
  importStatus,
  lines,
  NDJSON,
  sendFile,
  storedFiles,
} from "../support/imports";
import { reserve, storedObject, upload } from "../support/media";
import { later, moveClock, runAlarms } from "../support/memory";
import { erasureOf, forget, receiptResponse } from "../support/privacy";
import { call, createKey, createSpace, json, message, type Space } from "../support/seed";

/** Promises of docs/api/imports.md about files cut off, missing or unreadable, keys that lapse, and what a row error may say. */

const watches = (space: Space) => query(space, "SELECT key FROM timers WHERE kind = 'import.watch'");

/** Waits until the space holds an import whose file is still arriving, and answers its id. */
async function receivingImport(space: Space): Promise<string> {
  for (let wait = 0; ; wait++) {
    const [row] = await query<{ import_id: string }>(space, "SELECT import_id FROM imports WHERE status = 'receiving'");
    if (row) return row.import_id;
    if (wait > 500) throw new Error("the import never started receiving");
    await scheduler.wait(10);
  }
}

describe("POST /v1/ingest/files: a body cut short", () => {
  it("is 422 body: not_read_whole when the stream breaks before its Content-Length, leaving no object and no import", async () => {
    const space = await createSpace();
    const sized = new FixedLengthStream(1_000);
    const writer = sized.writable.getWriter();
    const answering = sendFile(space, sized.readable, NDJSON);
    await writer.write(new TextEncoder().encode(lines([message()]).slice(0, 40)));
    const importId = await receivingImport(space);
    await writer.abort(new Error("connection reset"));
    const refused = await expectProblem(await answering, 422, "invalid_input");
    expect(refused.detail).toBe("body: not_read_whole");
    expect(await env.FILES.head(importKey(space.name, importId))).toBeNull();
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([]);
    expect(await watches(space)).toEqual([]);
  });

  it("is 422 body: not_read_whole when the stream ends before its Content-Length: 1000, leaving no object and no import", async () => {
    const space = await createSpace();
    const short = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(lines([message()])));
        controller.close();
      },
    });
    const response = await call("POST", `/spaces/${space.name}/v1/ingest/files`, {
      token: space.key,
      rawBody: short,
      headers: { "content-type": NDJSON, "content-length": "1000" },
    });
    const refused = await expectProblem(response, 422, "invalid_input");
    expect(refused.detail).toBe("body: not_read_whole");
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([]);
    expect(await watches(space)).toEqual([]);
  });
});

describe("GET /v1/ingest/files/{import_id} while the file is still arriving", () => {
  it("is 404 until the file is whole in R2, then the import is queued", async () => {
    const space = await createSpace();
    const body = new TextEncoder().encode(lines([message(), message()]));
    const sized = new FixedLengthStream(body.length);
    const writer = sized.writable.getWriter();
    const answering = sendFile(space, sized.readable, NDJSON);
    await writer.write(body.subarray(0, 10));
    const importId = await receivingImport(space);
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/ingest/files/${importId}`, { token: space.key }),
      404,
      "not_found",
    );
    await writer.write(body.subarray(10));
    await writer.close();
    expect(await json<{ import_id: string }>(await answering, 202)).toEqual({ import_id: importId });
    expect(await importStatus(space, importId)).toMatchObject({ status: "queued", records: 0 });
  });
});

describe("An import's file unreadable or gone", () => {
  it("retries a reading that fails, and at the last delivery ends the import failed gave_up, deleting its own file", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message(), message()]), NDJSON);
    const broken: Pick<R2Bucket, "get"> = {
      async get() {
        throw new Error("R2 is unavailable");
      },
    } as Pick<R2Bucket, "get">;
    expect(await deliver(space, importId, broken, MAX_DELIVERIES - 1)).toEqual({ acked: false, retried: true });
    expect(await importStatus(space, importId)).toMatchObject({ status: "running", reason: null });
    expect(await storedFiles(space)).toEqual([importKey(space.name, importId)]);
    expect(await deliver(space, importId, broken, MAX_DELIVERIES)).toEqual({ acked: true, retried: false });
    const status = await importStatus(space, importId);
    expect(status).toMatchObject({ status: "failed", records: 0, accepted: 0 });
    expect(status.reason).toMatch(/^gave_up/);
    expect(status.completed_at).not.toBeNull();
    expect(await storedFiles(space)).toEqual([]);
    expect(await watches(space)).toEqual([]);
    // Redelivering the message of an ended import does nothing.
    expect(await deliver(space, importId)).toEqual({ acked: true, retried: false });
    expect(await importStatus(space, importId)).toMatchObject({ status: "failed", reason: status.reason });
  });

  it("ends the import failed file_missing when its object left R2 before it was read", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    await env.FILES.delete(importKey(space.name, importId));
    expect(await deliver(space, importId)).toEqual({ acked: true, retried: false });
    const status = await importStatus(space, importId);
    expect(status).toMatchObject({ status: "failed", records: 0 });
    expect(status.reason).toMatch(/^file_missing/);
    expect(await watches(space)).toEqual([]);
  });

  it("ends a CSV read halfway failed file_missing when its object left R2 before the reading resumes, keeping the records stored", async () => {
    const space = await createSpace();
    const rows = Array.from({ length: 1_100 }, (_, index) => `m${index}@example.com,+1555556${String(index).padStart(4, "0")}`);
    const csv = `email,phone_e164\n${rows.join("\n")}\n`;
    const importId = await imported(space, csv, CSV);
    expect(await deliver(space, importId, breakingAfter(Math.floor(csv.length * 0.7)))).toMatchObject({ retried: true });
    const midway = await importStatus(space, importId);
    expect(midway.status).toBe("running");
    expect(midway.records).toBeGreaterThanOrEqual(500);
    expect(midway.records).toBeLessThan(1_100);
    await env.FILES.delete(importKey(space.name, importId));
    expect(await deliver(space, importId, env.FILES, 2)).toEqual({ acked: true, retried: false });
    const status = await importStatus(space, importId);
    expect(status).toMatchObject({ status: "failed", records: midway.records, accepted: midway.records });
    expect(status.reason).toMatch(/^file_missing/);
  });

  it("ends a media_ref import failed file_missing when a forget erased the upload it reads", async () => {
    const space = await createSpace();
    const subject = { type: "email", value: "mia@example.com" };
    const bytes = new TextEncoder().encode(lines([message(), message()]));
    const reservation = await reserve(space, bytes, { content_type: NDJSON, subject });
    expect((await upload(reservation, bytes)).status).toBe(200);
    const created = await sendFile(space, "", NDJSON, space.key, `?media_ref=${reservation.media_ref}`);
    const { import_id: importId } = await json<{ import_id: string }>(created, 202);
    const security = await personToken(space, ["security"]);
    const erasure = await forget(space, security, { handle: subject });
    await runAlarms(space);
    // The import was sent before the request and has not ended: it holds the receipt.
    expect(erasure.status).toBe(202);
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    expect(await deliver(space, importId)).toEqual({ acked: true, retried: false });
    const status = await importStatus(space, importId);
    expect(status).toMatchObject({ status: "failed", records: 0, accepted: 0 });
    expect(status.reason).toMatch(/^file_missing/);
    // The import ended: the erasure's receipt is no longer held by it.
    const receiptId = erasure.status === 202 ? erasure.receiptId : "";
    expect((await erasureOf(await receiptResponse(space, security, receiptId))).status).toBe(202);
    await later(space, 10_000);
    expect((await erasureOf(await receiptResponse(space, security, receiptId))).status).toBe(200);
  });
});

describe("An import whose key expires", () => {
  it("stops failed key_revoked when the key expires while its file is read, storing nothing after, and its file leaves R2", async () => {
    const space = await createSpace();
    const expiresAt = Date.now() + 60 * 60_000;
    const key = await json<{ key: string }>(
      await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
        body: { scopes: ["track"], expires_at: new Date(expiresAt).toISOString() },
      }),
      201,
    );
    const answer = await json<{ import_id: string }>(await sendFile(space, lines([message(), message()]), NDJSON, key.key), 202);
    // The reader has taken the import (startImport) when it opens the file: the space's time passes the key's expiry then.
    const expiring: Pick<R2Bucket, "get"> = {
      async get(name: string, options?: R2GetOptions) {
        await moveClock(space, 2 * 60 * 60_000);
        return env.FILES.get(name, options);
      },
    } as Pick<R2Bucket, "get">;
    expect(await deliver(space, answer.import_id, expiring)).toEqual({ acked: true, retried: false });
    const status = await importStatus(space, answer.import_id);
    expect(status).toMatchObject({ status: "failed", records: 0, accepted: 0 });
    expect(status.reason).toMatch(/^key_revoked/);
    expect(await query(space, "SELECT count(*) AS n FROM items")).toEqual([{ n: 0 }]);
    expect(await storedFiles(space)).toEqual([]);
  });
});

describe("Records the reader cannot hold, and scopes a record needs", () => {
  it("rejects an NDJSON line over 2.5 MB too_large by its line number, without reading it as an item, and reads on", async () => {
    const space = await createSpace();
    const huge = JSON.stringify(message({ content: { type: "text", text: "x".repeat(MAX_RECORD_BYTES) } }));
    const body = `${JSON.stringify(message())}\n${huge}\n${JSON.stringify(message())}\n${huge}`;
    const status = await finished(space, await imported(space, body, NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 4, accepted: 2, rejected: 2 });
    const tooLarge = { code: "too_large", detail: `record is larger than ${MAX_RECORD_BYTES} bytes` };
    expect(status.errors).toEqual([
      { row: 2, ...tooLarge },
      { row: 4, ...tooLarge },
    ]);
  });

  it("rejects an action line from a key without act scope_missing, naming none of its values; with act it is stored", async () => {
    const space = await createSpace({ scopes: ["track"] });
    const action = message({
      kind: "action",
      action: { operation: "create", object_type: "order", object_id: "ORD-SECRET-4711" },
      handles: [{ type: "email", value: "rowena@example.com" }],
      content: { type: "text", text: "Parcel for Rowena Quill" },
    });
    const file = lines([message(), action]);
    const status = await finished(space, await imported(space, file, NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 2, accepted: 1, rejected: 1 });
    expect(status.errors.map((error) => [error.row, error.code])).toEqual([[2, "scope_missing"]]);
    expect(JSON.stringify(status)).not.toMatch(/ORD-SECRET-4711|rowena|Rowena Quill|msg-/i);
    // The line was refused for the scope alone: a key with act stores it (and the first line is a duplicate).
    const acting = await createKey(space.tenant.token, space.sourceId, ["track", "act"]);
    const again = await json<{ import_id: string }>(await sendFile(space, file, NDJSON, acting.key), 202);
    expect(await finished(space, again.import_id)).toMatchObject({ records: 2, accepted: 1, duplicates: 1, rejected: 0 });
  });
});

describe("POST /v1/ingest/files?media_ref=: the upload is the space's, and stays its", () => {
  it("is 404 for another space's upload, making no import", async () => {
    const owner = await createSpace();
    const other = await createSpace();
    const bytes = new TextEncoder().encode(lines([message()]));
    const reservation = await reserve(owner, bytes, { content_type: NDJSON });
    expect((await upload(reservation, bytes)).status).toBe(200);
    await expectProblem(await sendFile(other, "", NDJSON, other.key, `?media_ref=${reservation.media_ref}`), 404, "not_found");
    expect(await query(other, "SELECT import_id FROM imports")).toEqual([]);
    expect(await storedObject(owner, reservation.media_ref)).not.toBeNull();
  });

  it("leaves the upload in R2 after the import from it completed: the import does not own it", async () => {
    const space = await createSpace();
    const bytes = new TextEncoder().encode(lines([message(), message()]));
    const reservation = await reserve(space, bytes, { content_type: NDJSON });
    expect((await upload(reservation, bytes)).status).toBe(200);
    const created = await sendFile(space, "", NDJSON, space.key, `?media_ref=${reservation.media_ref}`);
    const { import_id: importId } = await json<{ import_id: string }>(created, 202);
    expect(await finished(space, importId)).toMatchObject({ status: "completed", accepted: 2 });
    // The end's delete and the watch's (five minutes on) both leave it.
    await moveClock(space, 10 * 60_000);
    await runAlarms(space);
    expect((await storedObject(space, reservation.media_ref))?.size).toBe(bytes.length);
    expect(await watches(space)).toEqual([]);
  });
});
