import { createExecutionContext, createMessageBatch, env, getQueueResult, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ImportCreatedSchema } from "../../src/contract/imports";
import type { Env } from "../../src/env";
import { consume } from "../../src/queues/consumer";
import { importMessage } from "../../src/queues/messages";
import { CHUNK_RECORDS } from "../../src/space/imports/chunks";
import { importKey } from "../../src/space/imports/keys";
import { receiveFile } from "../../src/space/imports/records";
import { TOO_SLOW } from "../../src/space/imports/requests";
import {
  MAX_RESENDS,
  RECEIVE_WINDOW_MS,
  SEND_RETRY_MS,
  STALL_MS,
  STALLED,
  watchEnded,
  watchImport,
} from "../../src/space/imports/watch";
import type { SpaceObject } from "../../src/space/object";
import { expectProblem, lookup, lookupResponse, personToken, query, spaceStub } from "../support/identity";
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
import { reserve, upload } from "../support/media";
import { later, runAlarms } from "../support/memory";
import { erasureOf, forget, forgotten, receiptResponse, scanFor } from "../support/privacy";
import { batch, call, createKey, createSpace, json, message, OPERATOR_TOKEN, type Space } from "../support/seed";

async function itemCount(space: Space): Promise<number> {
  return (await query<{ n: number }>(space, "SELECT count(*) AS n FROM items"))[0]?.n ?? 0;
}

describe("POST /v1/ingest/files: NDJSON backfills history", () => {
  it("answers 202 with an import_id, queued, then stores every line as a batch item, and the file leaves R2", async () => {
    const space = await createSpace();
    const response = await sendFile(space, lines([message(), message(), message()]), NDJSON);
    const { import_id } = ImportCreatedSchema.parse(await json(response, 202));
    const queued = await importStatus(space, import_id);
    expect(queued).toMatchObject({ status: "queued", records: 0, accepted: 0, completed_at: null, reason: null });
    expect(await storedFiles(space)).toEqual([importKey(space.name, import_id)]);
    const status = await finished(space, import_id);
    expect(status).toMatchObject({ status: "completed", records: 3, accepted: 3, duplicates: 0, rejected: 0, errors: [] });
    expect(status.completed_at).not.toBeNull();
    expect(await itemCount(space)).toBe(3);
    expect(await storedFiles(space)).toEqual([]);
  });

  it("rejects bad lines by line number as a batch rejects items, skips blank lines, and stores the good ones", async () => {
    const space = await createSpace({ scopes: ["track"] });
    const body = [
      JSON.stringify(message()),
      "{not json",
      "",
      JSON.stringify({ type: "event" }),
      JSON.stringify({
        type: "identify",
        idempotency_key: "i-1",
        method: "crm",
        handles: [
          { type: "email", value: "a@example.com" },
          { type: "crm_id", value: "1" },
        ],
      }),
      JSON.stringify(message()),
      "   ",
    ].join("\r\n");
    const status = await finished(space, await imported(space, body, NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 5, accepted: 2, rejected: 3 });
    expect(status.errors.map((error) => [error.row, error.code])).toEqual([
      [2, "invalid_input"],
      [4, "invalid_input"],
      [5, "scope_missing"],
    ]);
    expect(status.errors[0]?.detail).toBe("line: not_json");
  });

  it("counts a line whose idempotency_key is stored already as a duplicate, as a batch does", async () => {
    const space = await createSpace();
    const first = message();
    expect(await json(await batch(space, [first]), 200)).toMatchObject({ accepted: 1 });
    const status = await finished(space, await imported(space, lines([first, first, message()]), NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 3, accepted: 1, duplicates: 2 });
    expect(await itemCount(space)).toBe(2);
  });

  it("stores a line whose key came only with an earlier line refused at store time: not a duplicate", async () => {
    const space = await createSpace();
    const valid = message();
    const refused = { ...valid, subject: { profile_id: crypto.randomUUID() } };
    const status = await finished(space, await imported(space, lines([refused, valid, valid]), NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 3, accepted: 1, duplicates: 1, rejected: 1 });
    expect(status.errors.map((error) => [error.row, error.code])).toEqual([[1, "not_found"]]);
    expect(await itemCount(space)).toBe(1);
  });

  it("keeps the first 100 row errors of many, by row, and counts them all", async () => {
    const space = await createSpace();
    const body = Array.from({ length: 150 }, (_, index) => (index % 3 === 0 ? JSON.stringify(message()) : "nope")).join("\n");
    const status = await finished(space, await imported(space, body, NDJSON));
    expect(status).toMatchObject({ records: 150, accepted: 50, rejected: 100 });
    const more = await finished(space, await imported(space, `${body}\n${"x\n".repeat(60)}`, NDJSON));
    expect(more).toMatchObject({ records: 210, accepted: 0, duplicates: 50, rejected: 160 });
    expect(more.errors).toHaveLength(100);
    expect(more.errors.map((error) => error.row)).toEqual(
      Array.from({ length: 150 }, (_, index) => index + 1)
        .filter((row) => (row - 1) % 3 !== 0)
        .concat(Array.from({ length: 60 }, (_, index) => 151 + index))
        .slice(0, 100),
    );
  });
});

describe("POST /v1/ingest/files: CSV seeds identity", () => {
  it("makes each record an identify item (system_import) that links its handles, with every header form", async () => {
    const space = await createSpace();
    const csv = [
      "\ufeffemail,phone_e164,phone_e164_2,crm_id,crm_id_scope,subject_kind,occurred_at,idempotency_key",
      'ada@example.com,+15555550110,"+1 555 555 0111",C-1,eu,person,2026-01-02T03:04:05Z,row-1',
      '"Bob@Example.com",+15555550120,,"C,2",eu,,,',
    ].join("\r\n");
    const status = await finished(space, await imported(space, csv, CSV));
    expect(status).toMatchObject({ status: "completed", records: 2, accepted: 2, rejected: 0 });
    const ada = await lookup(space, { type: "phone_e164", value: "+15555550111" });
    const types = ada.identifiers.map((identifier) => identifier.type).sort();
    expect(types).toEqual(["crm_id", "email", "phone_e164", "phone_e164"]);
    const bob = await lookup(space, { type: "crm_id", value: "C,2", scope: "eu" });
    expect(bob.profile_id).toBe((await lookup(space, { type: "email", value: "bob@example.com" })).profile_id);
    const stored = await query<{ body: string }>(space, "SELECT body FROM items ORDER BY seq");
    expect(stored.map((row) => JSON.parse(row.body).method)).toEqual(["system_import", "system_import"]);
    expect(JSON.parse(stored[0]?.body ?? "{}").idempotency_key).toBe("row-1");
  });

  it("stores nothing twice when the same file is imported again (keys derived from the file and the record)", async () => {
    const space = await createSpace();
    const csv = "email,crm_id\na@example.com,1\nb@example.com,2\na@example.com,1\n";
    const first = await finished(space, await imported(space, csv, CSV));
    expect(first).toMatchObject({ records: 3, accepted: 2, duplicates: 1 });
    const again = await finished(space, await imported(space, csv, CSV));
    expect(again).toMatchObject({ status: "completed", records: 3, accepted: 0, duplicates: 3 });
    expect(await itemCount(space)).toBe(2);
  });

  it("rejects records by row, never naming a value: a bad phone, one handle only, the wrong width, a stray quote", async () => {
    const space = await createSpace();
    const csv =
      'phone_e164,email\n+15555550130,c@example.com\nnot-a-phone,d@example.com\n+15555550131,\n+1555,e@x.com,extra\nx"y,f@example.com\n';
    const status = await finished(space, await imported(space, csv, CSV));
    expect(status).toMatchObject({ records: 5, accepted: 1, rejected: 4 });
    expect(status.errors.map((error) => [error.row, error.code])).toEqual([
      [2, "invalid_input"],
      [3, "invalid_input"],
      [4, "invalid_input"],
      [5, "invalid_input"],
    ]);
    expect(JSON.stringify(status)).not.toMatch(/not-a-phone|example\.com|1555|x"y/);
  });

  it("applies the key's scopes: a key without identify has every record rejected scope_missing", async () => {
    const space = await createSpace({ scopes: ["track"] });
    const status = await finished(space, await imported(space, "email,crm_id\na@example.com,1\n", CSV));
    expect(status).toMatchObject({ status: "completed", accepted: 0, rejected: 1, errors: [{ row: 1, code: "scope_missing" }] });
  });

  it("ends failed with a reason when the file is not what it claims: no handle column, binary, broken UTF-8", async () => {
    const space = await createSpace();
    const cases: [BodyInit, string, RegExp][] = [
      ["idempotency_key,occurred_at\nk,2026-01-01T00:00:00Z\n", CSV, /^header: no handle column$/],
      [new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0x00, 0x01]), CSV, /^binary/],
      [
        new Uint8Array([...new TextEncoder().encode(`${JSON.stringify(message())}\n`), 0xff, 0xfe, 0x0a]),
        NDJSON,
        /^not_utf8: record 2/,
      ],
    ];
    for (const [body, type, reason] of cases) {
      const status = await finished(space, await imported(space, body, type));
      expect(status.status).toBe("failed");
      expect(status.reason).toMatch(reason);
    }
    expect(await storedFiles(space)).toEqual([]);
  });
});

describe("POST /v1/ingest/files: the request", () => {
  it("takes an empty file: an empty NDJSON completes with no record, an empty CSV fails for want of a header", async () => {
    const space = await createSpace();
    expect(await finished(space, await imported(space, "", NDJSON))).toMatchObject({ status: "completed", records: 0 });
    expect(await finished(space, await imported(space, "", CSV))).toMatchObject({
      status: "failed",
      reason: "header: the file is empty",
    });
  });

  it("refuses another Content-Type, a missing one, and a key without track, storing nothing", async () => {
    const space = await createSpace();
    await expectProblem(await sendFile(space, "{}", "application/json"), 422, "invalid_input");
    await expectProblem(await sendFile(space, "a,b", "text/csv; charset=latin1"), 422, "invalid_input");
    const reader = await createKey(space.tenant.token, space.sourceId, ["context"]);
    await expectProblem(await sendFile(space, "email\n", CSV, reader.key), 403, "scope_missing");
    await expectProblem(await sendFile(space, "email\n", CSV, "cms_live_local_bogus"), 401, "unauthenticated");
    // A person has no source for the items to belong to.
    const integration = await personToken(space, ["integration"]);
    await expectProblem(await sendFile(space, "email\n", CSV, integration), 403, "forbidden");
    // A body of unknown length (no Content-Length): R2 stores a stream of known length only.
    const unknownLength = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("email\n"));
        controller.close();
      },
    });
    await expectProblem(await sendFile(space, unknownLength, CSV), 422, "invalid_input");
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT * FROM imports")).toEqual([]);
  });

  it("is a write of events for the quotas: refused 429 once the day's events are used, storing nothing", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 2, period: "day" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    expect(await finished(space, await imported(space, lines([message(), message()]), NDJSON))).toMatchObject({ accepted: 2 });
    await expectProblem(await sendFile(space, lines([message()]), NDJSON), 429, "rate_limited");
    expect(await storedFiles(space)).toEqual([]);
  });

  it("is admitted against the day's events once, then stored whole: a file of 10 lines under a share of 2", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 2, period: "day" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    const ten = Array.from({ length: 10 }, () => message());
    const status = await finished(space, await imported(space, lines(ten), NDJSON));
    expect(status).toMatchObject({ status: "completed", records: 10, accepted: 10, rejected: 0, reason: null });
    expect(await itemCount(space)).toBe(10);
    // Its events counted against the day: the next write of events is refused.
    await expectProblem(await batch(space, [message()]), 429, "rate_limited");
  });

  it("refuses a body over 512 MB by its Content-Length before reading it, storing nothing", async () => {
    const space = await createSpace();
    const declared = new FixedLengthStream(512_000_001);
    const response = await sendFile(space, declared.readable, NDJSON);
    const problem = await expectProblem(response, 422, "invalid_input");
    expect(problem.detail).toBe("body: larger than 512 MB");
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT * FROM imports")).toEqual([]);
  });

  it("imports a file uploaded through a media reservation (?media_ref=, empty body), of the same media type", async () => {
    const space = await createSpace();
    const bytes = new TextEncoder().encode(lines([message(), message()]));
    const reservation = await reserve(space, bytes, { content_type: NDJSON });
    expect((await upload(reservation, bytes)).status).toBe(200);
    const created = await sendFile(space, "", NDJSON, space.key, `?media_ref=${reservation.media_ref}`);
    const { import_id } = ImportCreatedSchema.parse(await json(created, 202));
    expect(await finished(space, import_id)).toMatchObject({ status: "completed", records: 2, accepted: 2 });
    // Another media type than the upload's, an upload not made yet, an unknown upload, a body beside the reference.
    const other = await expectProblem(
      await sendFile(space, "", CSV, space.key, `?media_ref=${reservation.media_ref}`),
      422,
      "invalid_input",
    );
    expect(other.detail).toBe("query.media_ref: reserved_with_another_content_type");
    const waiting = await reserve(space, new TextEncoder().encode(lines([message()])), { content_type: NDJSON });
    const early = await expectProblem(
      await sendFile(space, "", NDJSON, space.key, `?media_ref=${waiting.media_ref}`),
      422,
      "invalid_input",
    );
    expect(early.detail).toBe("query.media_ref: not_uploaded");
    await expectProblem(await sendFile(space, "", NDJSON, space.key, "?media_ref=nope"), 404, "not_found");
    await expectProblem(
      await sendFile(space, "x", NDJSON, space.key, `?media_ref=${reservation.media_ref}`),
      422,
      "invalid_input",
    );
    // A streamed body (chunked, no Content-Length) beside the reference is a body too, even an empty one.
    for (const chunks of [[lines([message()])], []]) {
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      });
      const refused = await expectProblem(
        await sendFile(space, streamed, NDJSON, space.key, `?media_ref=${reservation.media_ref}`),
        422,
        "invalid_input",
      );
      expect(refused.detail).toBe("body: must be empty with query.media_ref");
    }
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([{ import_id }]);
  });
});

describe("GET /v1/ingest/files/{import_id}", () => {
  it("is 404 for an unknown import, and readable by a person with integration", async () => {
    const space = await createSpace();
    await expectProblem(await call("GET", `/spaces/${space.name}/v1/ingest/files/nope`, { token: space.key }), 404, "not_found");
    const importId = await imported(space, lines([message()]), NDJSON);
    const integration = await personToken(space, ["integration"]);
    expect((await importStatus(space, importId, integration)).import_id).toBe(importId);
  });
});

describe("The import's reader: resumable", () => {
  it("goes on from the last committed chunk after dying midway, redelivered, and stores no row twice", async () => {
    const space = await createSpace();
    const items = Array.from({ length: 1_300 }, (_, index) => message({ conversation_id: `c-${index % 40}` }));
    const body = lines(items);
    const importId = await imported(space, body, NDJSON);
    const broken = await deliver(space, importId, breakingAfter(Math.floor(body.length * 0.6)));
    expect(broken).toEqual({ acked: false, retried: true });
    const midway = await importStatus(space, importId);
    expect(midway.status).toBe("running");
    expect(midway.records).toBeGreaterThanOrEqual(500);
    expect(midway.records).toBeLessThan(1_300);
    expect(midway.accepted).toBe(midway.records);
    // The redelivery, twice over (a second one is harmless).
    expect(await deliver(space, importId, env.FILES, 2)).toEqual({ acked: true, retried: false });
    expect(await deliver(space, importId, env.FILES, 3)).toEqual({ acked: true, retried: false });
    // The queue's own delivery may be reading too (a minute after the first message): then one of
    // the two readers stops at the chunk the other stored, and the import ends with the other.
    const done = await finished(space, importId);
    expect(done).toMatchObject({ status: "completed", records: 1_300, accepted: 1_300, duplicates: 0, rejected: 0 });
    expect(await itemCount(space)).toBe(1_300);
  });

  it("resumes a CSV past its header, deriving the same keys", async () => {
    const space = await createSpace();
    const rows = Array.from({ length: 1_100 }, (_, index) => `p${index}@example.com,+1555555${String(index).padStart(4, "0")}`);
    const csv = `email,phone_e164\n${rows.join("\n")}\n`;
    const importId = await imported(space, csv, CSV);
    expect(await deliver(space, importId, breakingAfter(Math.floor(csv.length * 0.7)))).toMatchObject({ retried: true });
    const midway = await importStatus(space, importId);
    expect(midway.records).toBeGreaterThanOrEqual(500);
    expect(await finished(space, importId)).toMatchObject({
      status: "completed",
      records: 1_100,
      accepted: 1_100,
      duplicates: 0,
    });
    expect(await itemCount(space)).toBe(1_100);
  });

  it("fails the import when the key that sent it is revoked before it is read, and its file leaves R2", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    await revoke(space);
    await deliver(space, importId);
    const status = (await query<{ status: string; reason: string }>(space, "SELECT status, reason FROM imports"))[0];
    expect(status?.status).toBe("failed");
    expect(status?.reason).toMatch(/^key_revoked/);
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'import.watch'")).toEqual([]);
  });

  it("fails the import when its key is revoked while the file is read, and its file leaves R2", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message(), message()]), NDJSON);
    // The reader has taken the import (startImport) when it opens the file: the key goes then.
    const revoking: Pick<R2Bucket, "get"> = {
      async get(key: string, options?: R2GetOptions) {
        await revoke(space);
        return env.FILES.get(key, options);
      },
    } as Pick<R2Bucket, "get">;
    await deliver(space, importId, revoking);
    const [status] = await query<{ status: string; reason: string; accepted: number }>(
      space,
      "SELECT status, reason, accepted FROM imports",
    );
    expect(status).toMatchObject({ status: "failed", accepted: 0, reason: expect.stringMatching(/^key_revoked/) });
    expect(await storedFiles(space)).toEqual([]);
    expect(await itemCount(space)).toBe(0);
  });

  it("deletes an ended import's own file by its watch when the delete at its end did not happen", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    expect(await finished(space, importId)).toMatchObject({ status: "completed" });
    // As if the object had restarted between the end's commit and the delete: the file is there, the watch due in minutes.
    await env.FILES.put(importKey(space.name, importId), "left behind");
    await runInDurableObject(spaceStub(space), async (instance: SpaceObject, state) => {
      watchEnded(state.storage.sql, importId, instance.clock.now());
      await state.storage.setAlarm(Date.now());
    });
    await later(space, 6 * 60_000);
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'import.watch'")).toEqual([]);
  });
});

async function revoke(space: Space): Promise<void> {
  await json(
    await call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
      token: space.tenant.token,
      headers: { "idempotency-key": crypto.randomUUID() },
    }),
  );
}

describe("The import consumer's run", () => {
  it("reads a batch of messages within one budget: a message reached with none left is not read, but sent again", async () => {
    const space = await createSpace();
    const first = await imported(space, lines([message(), message()]), NDJSON);
    const second = await imported(space, lines([message(), message(), message()]), NDJSON);
    // The run's clock: reading the first file takes the whole budget.
    let now = 0;
    const slow: Pick<R2Bucket, "get"> = {
      async get(key: string, options?: R2GetOptions) {
        now += 1_000;
        return env.FILES.get(key, options);
      },
    } as Pick<R2Bucket, "get">;
    const sent: unknown[] = [];
    const imports = { send: async (body: unknown) => void sent.push(body) };
    const messages = [first, second].map((importId) => ({
      id: crypto.randomUUID(),
      timestamp: new Date(),
      attempts: 1,
      body: importMessage(space.name, importId),
    }));
    const run = createMessageBatch("imports", messages);
    await consume(
      run,
      { ...(env as Env), IMPORTS: imports as unknown as Queue },
      { files: slow, budgetMs: 1_000, clock: () => now },
    );
    const result = await getQueueResult(run, createExecutionContext());
    expect(result.explicitAcks).toHaveLength(2);
    expect(result.retryMessages).toEqual([]);
    expect(await importStatus(space, first)).toMatchObject({ status: "completed", records: 2, accepted: 2 });
    expect(await importStatus(space, second)).toMatchObject({ status: "queued", records: 0 });
    expect(sent).toEqual([importMessage(space.name, second)]);
    // The message sent again reads it, storing nothing twice.
    expect(await finished(space, second)).toMatchObject({ status: "completed", records: 3, accepted: 3, duplicates: 0 });
    expect(await itemCount(space)).toBe(5);
  });

  it("completes an import whose reading ran out of budget right after its last chunk was stored: nothing is left to read", async () => {
    const space = await createSpace();
    const files: [string, string][] = [
      [lines(Array.from({ length: CHUNK_RECORDS }, () => message())), NDJSON],
      [
        `email,crm_id\n${Array.from({ length: CHUNK_RECORDS }, (_, index) => `end${index}@example.com,E-${index}`).join("\n")}\n`,
        CSV,
      ],
    ];
    for (const [body, type] of files) {
      const importId = await imported(space, body, type);
      // The run's clock: opening the file takes the whole budget, so the reading stops after its first chunk, the whole file.
      let now = 0;
      const slow = {
        async get(key: string, options?: R2GetOptions) {
          now += 1_000;
          return env.FILES.get(key, options);
        },
      } as Pick<R2Bucket, "get">;
      const sent: unknown[] = [];
      const imports = { send: async (sending: unknown) => void sent.push(sending) };
      const run = createMessageBatch("imports", [
        { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: importMessage(space.name, importId) },
      ]);
      await consume(
        run,
        { ...(env as Env), IMPORTS: imports as unknown as Queue },
        { files: slow, budgetMs: 1_000, clock: () => now },
      );
      expect(sent).toEqual([importMessage(space.name, importId)]);
      expect(await importStatus(space, importId)).toMatchObject({ status: "running", records: CHUNK_RECORDS });
      // The message sent again: the offset is the file's end, and R2 has no range that starts there.
      expect(await deliver(space, importId)).toEqual({ acked: true, retried: false });
      expect(await importStatus(space, importId)).toMatchObject({
        status: "completed",
        records: CHUNK_RECORDS,
        accepted: CHUNK_RECORDS,
        reason: null,
      });
    }
    expect(await storedFiles(space)).toEqual([]);
  });
});

describe("Forget reaches imports", () => {
  it("erases the import rows naming the subject and counts them on the receipt", async () => {
    const space = await createSpace();
    const csv = "email,crm_id\nzelda@example.com,Z-1\nother@example.com,O-1\n";
    expect(await finished(space, await imported(space, csv, CSV))).toMatchObject({ accepted: 2 });
    const subject = await lookup(space, { type: "email", value: "zelda@example.com" });
    const security = await personToken(space, ["security"]);
    const receipt = await forgotten(space, security, { handle: { type: "email", value: "zelda@example.com" } });
    expect(receipt.counts.import_rows).toBe(1);
    expect(await query(space, "SELECT * FROM import_rows WHERE profile_id = ?", subject.profile_id)).toEqual([]);
    expect(await query(space, "SELECT row FROM import_rows")).toEqual([{ row: 2 }]);
  });

  it("holds the receipt while an import sent before the request is open: its records of the subject go in as tombstones", async () => {
    const space = await createSpace();
    const zelda = { type: "email", value: "zelda@example.com" };
    await batch(space, [message({ handles: [zelda], content: { type: "text", text: "first words" } })]);
    const said = (text: string, handle = zelda) => message({ handles: [handle], content: { type: "text", text } });
    const before = await imported(
      space,
      lines([
        said("zelda's backfilled words"),
        said("someone else's words", { type: "email", value: "other@example.com" }),
        said("more of zelda's"),
      ]),
      NDJSON,
    );
    const security = await personToken(space, ["security"]);
    const erasure = await forget(space, security, { handle: zelda });
    expect(erasure.status).toBe(202);
    const receiptId = erasure.status === 202 ? erasure.receiptId : "";
    await runAlarms(space);
    // The data is erased; the import sent before the request is not read yet, so no receipt.
    expect((await erasureOf(await receiptResponse(space, security, receiptId))).status).toBe(202);
    // An import sent after the request does not hold the receipt: it is a later write.
    const after = await imported(space, lines([said("after the request", { type: "email", value: "late@example.com" })]), NDJSON);
    expect(await finished(space, before)).toMatchObject({ status: "completed", accepted: 3 });
    await later(space, 10_000);
    const done = await erasureOf(await receiptResponse(space, security, receiptId));
    expect(done.status).toBe(200);
    expect((await importStatus(space, after)).status).toBe("queued");
    // The batch's event and the import's two records, the last two as tombstones.
    expect(done.status === 200 && done.receipt.counts.events).toBe(3);
    expect(await scanFor(space, ["zelda@example.com", "backfilled", "more of zelda"])).toEqual([]);
    expect((await lookupResponse(space, zelda)).status).toBe(404);
  });
});

/**
 * Records the messages the space object sends to the `imports` queue while `run` runs (its own
 * binding swapped for a recorder); the first `failing` sends throw, as a queue that is down.
 */
async function sentWhile(space: Space, run: () => Promise<void>, failing = 0): Promise<unknown[]> {
  const sent: unknown[] = [];
  let tries = 0;
  const swap = (to: (bindings: { IMPORTS: unknown }) => unknown) =>
    runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
      const bindings = (instance as unknown as { env: { IMPORTS: unknown } }).env;
      const before = bindings.IMPORTS;
      bindings.IMPORTS = to(bindings);
      return before;
    });
  const real = await swap(() => ({
    send: async (body: unknown) => {
      if (++tries <= failing) throw new Error("queue unavailable");
      sent.push(body);
    },
  }));
  try {
    await run();
  } finally {
    await swap(() => real);
  }
  return sent;
}

describe("An import nobody reads (docs/api/imports.md)", () => {
  it("sends a lost message again after 20 minutes without progress, and stops watching once the import ends", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message(), message()]), NDJSON);
    const resent = await sentWhile(space, () => later(space, STALL_MS + 1_000));
    expect(resent).toEqual([importMessage(space.name, importId)]);
    expect((await importStatus(space, importId)).status).toBe("queued");
    expect(await finished(space, importId)).toMatchObject({ status: "completed", accepted: 2 });
    expect(await sentWhile(space, () => later(space, 2 * STALL_MS))).toEqual([]);
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'import.watch'")).toEqual([]);
  });

  it("answers 202 when the message's send fails, and sends it again within a minute, not after 20", async () => {
    const space = await createSpace();
    let importId = "";
    const sent = await sentWhile(
      space,
      async () => {
        importId = await imported(space, lines([message(), message()]), NDJSON);
        await later(space, SEND_RETRY_MS + 1_000);
      },
      1,
    );
    expect(sent).toEqual([importMessage(space.name, importId)]);
    expect(await finished(space, importId)).toMatchObject({ status: "completed", accepted: 2 });
  });

  it("counts a resend that fails as one, and fails the import `stalled` while the queue stays down", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    const sent = await sentWhile(
      space,
      async () => {
        for (let look = 0; look <= MAX_RESENDS; look++) await later(space, STALL_MS + 1_000);
      },
      MAX_RESENDS,
    );
    expect(sent).toEqual([]);
    expect(await importStatus(space, importId)).toMatchObject({ status: "failed", reason: STALLED });
  });

  it("fails the import `stalled` after its resends, and its file leaves R2", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    const resent = await sentWhile(space, async () => {
      for (let look = 0; look <= MAX_RESENDS; look++) await later(space, STALL_MS + 1_000);
    });
    expect(resent).toHaveLength(MAX_RESENDS);
    expect(await importStatus(space, importId)).toMatchObject({ status: "failed", reason: STALLED, accepted: 0 });
    expect(await storedFiles(space)).toEqual([]);
  });

  it("refuses a file that arrives after its import was dropped (over 6 hours), and deletes what R2 stored of it", async () => {
    const space = await createSpace();
    const body = new TextEncoder().encode(lines([message(), message()]));
    const sized = new FixedLengthStream(body.length);
    const writer = sized.writable.getWriter();
    const answering = sendFile(space, sized.readable, NDJSON);
    await writer.write(body.subarray(0, 10));
    // The import is receiving, its file on its way to R2.
    for (let wait = 0; (await query(space, "SELECT 1 FROM imports WHERE status = 'receiving'")).length === 0; wait++) {
      if (wait > 500) throw new Error("the import never started receiving");
      await scheduler.wait(10);
    }
    await later(space, RECEIVE_WINDOW_MS + 60_000);
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([]);
    await writer.write(body.subarray(10));
    await writer.close();
    const refused = await expectProblem(await answering, 422, "invalid_input");
    expect(refused.detail).toBe(TOO_SLOW);
    expect(refused.detail).toBe("body: not_received_within_6_hours");
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([]);
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'import.watch'")).toEqual([]);
  });

  it("drops an import whose file never arrived whole, with what of it reached R2", async () => {
    const space = await createSpace();
    // As `POST /v1/ingest/files` leaves an import whose body stopped arriving: receiving, watched.
    const importId = await runInDurableObject(spaceStub(space), async (instance: SpaceObject, state) => {
      const row = receiveFile(state.storage.sql, space.name, "ndjson", "key", instance.clock.now());
      watchImport(state.storage.sql, row.import_id, "receiving", instance.clock.now());
      await state.storage.setAlarm(Date.now());
      return row.import_id;
    });
    await env.FILES.put(importKey(space.name, importId), "half a line");
    await later(space, RECEIVE_WINDOW_MS - 60_000);
    expect(await storedFiles(space)).toHaveLength(1);
    await later(space, 120_000);
    expect(await storedFiles(space)).toEqual([]);
    expect(await query(space, "SELECT import_id FROM imports")).toEqual([]);
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/ingest/files/${importId}`, { token: space.key }),
      404,
      "not_found",
    );
  });
});
