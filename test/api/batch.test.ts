import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PresentedCredential } from "../../src/auth/credential";
import { keyDigest, parseSourceKey } from "../../src/auth/source-key";
import type { Clock } from "../../src/clock";
import { edgeSecrets } from "../../src/edge/secrets";
import type { SpaceObject } from "../../src/space/object";
import { CHUNK_ITEMS, OTHERS_WINDOW_MS } from "../../src/space/request-pacing";
import { imported, importStatus, lines, NDJSON } from "../support/imports";
import { batch, call, createKey, createSpace, json, message, type Space } from "../support/seed";

interface Answer {
  accepted: number;
  duplicates: number;
  errors: { index: number; code: string; detail: string }[];
}

interface StoredItem {
  idempotency_key: string;
  type: string;
  occurred_at: number;
  claimed_occurred_at: number | null;
  clock_corrected: number;
  test: number;
  seq: number;
}

function stub(space: Space) {
  return env.SPACE.get(env.SPACE.idFromName(space.name));
}

async function storedItems(space: Space): Promise<StoredItem[]> {
  return runInDurableObject(
    stub(space),
    (_instance: SpaceObject, state) =>
      state.storage.sql
        .exec<Record<string, SqlStorageValue>>("SELECT * FROM items ORDER BY seq")
        .toArray() as unknown as StoredItem[],
  );
}

describe("POST /v1/batch: every item type is stored", () => {
  it("accepts one valid item of each of the seven types and stores them raw", async () => {
    const space = await createSpace();
    const at = new Date(Date.now() - 1000).toISOString();
    const items = [
      message(),
      message({
        kind: "system_event",
        canonical_type: "order.shipped",
        content: undefined,
        object: { object_type: "order", object_id: "o-1" },
      }),
      message({ kind: "action", action: { operation: "create", object_type: "order", object_id: "o-2" } }),
      {
        type: "identify",
        idempotency_key: "id-1",
        handles: [
          { type: "phone_e164", value: "+15555550100" },
          { type: "email", value: "ana@example.com" },
        ],
        method: "agent",
      },
      { type: "verify", idempotency_key: "v-1", conversation_id: "conv-1", level: "V2", method: "otp" },
      { type: "conversation.ended", idempotency_key: "ce-1", conversation_id: "conv-1", occurred_at: at },
      { type: "task.ended", idempotency_key: "te-1", task_id: "task-1", occurred_at: at },
      {
        type: "handoff",
        idempotency_key: "h-1",
        conversation_id: "conv-1",
        to: { role: "human_agent", queue: "billing" },
        occurred_at: at,
      },
      { type: "heartbeat", idempotency_key: "hb-1", day: at.slice(0, 10), sent: 42 },
    ];
    const answer = await json<Answer>(await batch(space, items), 200);
    expect(answer).toEqual({ accepted: items.length, duplicates: 0, errors: [] });
    const stored = await storedItems(space);
    expect(stored.map((row) => row.type).sort()).toEqual(
      ["event", "event", "event", "identify", "verify", "conversation.ended", "task.ended", "handoff", "heartbeat"].sort(),
    );
  });
});

describe("POST /v1/batch: item errors (207)", () => {
  it("rejects each bad item alone with its index and code, and stores the rest", async () => {
    const space = await createSpace({ scopes: ["track"] });
    const items = [
      message(),
      message({ content: { type: "text" } }), // message without text, transcript or media
      { ...message(), surprise: true }, // unknown field
      message({ kind: "system_event", content: undefined }), // system_event without canonical_type
      message({ action: { operation: "create", object_type: "order", object_id: "1" } }), // action block on a message
      message({ handles: undefined }), // no handle, subject or object
      { type: "nonsense", idempotency_key: "x" },
      "not an object",
      message({ kind: "action", action: { operation: "create", object_type: "order", object_id: "1" } }), // needs act
      {
        type: "identify",
        idempotency_key: "i",
        handles: [
          { type: "email", value: "a@b.c" },
          { type: "email", value: "c@d.e" },
        ],
        method: "agent",
      },
      message({ content: { type: "text", text: "x".repeat(1_000_001) } }),
      message({ occurred_at: "yesterday" }),
    ];
    const response = await batch(space, items);
    const answer = await json<Answer>(response, 207);
    expect(answer.accepted).toBe(1);
    expect(answer.duplicates).toBe(0);
    expect(answer.errors.map((error) => [error.index, error.code])).toEqual([
      [1, "invalid_input"],
      [2, "invalid_input"],
      [3, "invalid_input"],
      [4, "invalid_input"],
      [5, "invalid_input"],
      [6, "invalid_input"],
      [7, "invalid_input"],
      [8, "scope_missing"],
      [9, "scope_missing"],
      [10, "too_large"],
      [11, "invalid_input"],
    ]);
    expect(answer.errors[0]?.detail).toContain("message_needs_text_transcript_or_media");
    expect(answer.errors[1]?.detail).toContain("unknown_field");
    expect(answer.errors[1]?.detail).not.toContain("surprise");
    expect(await storedItems(space)).toHaveLength(1);
  });

  it("refuses an action outside the source's act with operation_not_allowed", async () => {
    const space = await createSpace();
    const answer = await json<Answer>(
      await batch(space, [
        message({ kind: "action", action: { operation: "delete", object_type: "order", object_id: "1" } }),
        message({ kind: "action", action: { operation: "create", object_type: "invoice", object_id: "1" } }),
        message({ kind: "action", action: { operation: "create", object_type: "order", object_id: "1" } }),
      ]),
      207,
    );
    expect(answer.accepted).toBe(1);
    expect(answer.errors.map((error) => error.code)).toEqual(["operation_not_allowed", "operation_not_allowed"]);
  });

  it("refuses a verify above the source's ceiling with verification_not_allowed", async () => {
    const space = await createSpace(); // an agent: ceiling V2
    const verify = (level: string) => ({
      type: "verify",
      idempotency_key: crypto.randomUUID(),
      task_id: "t",
      level,
      method: "otp",
    });
    const answer = await json<Answer>(await batch(space, [verify("V2"), verify("V3"), verify("V4"), verify("no_customer")]), 207);
    expect(answer.accepted).toBe(2);
    expect(answer.errors).toEqual([
      expect.objectContaining({ index: 1, code: "verification_not_allowed" }),
      expect.objectContaining({ index: 2, code: "verification_not_allowed" }),
    ]);
  });

  it("lets a human desk verify up to V4", async () => {
    const space = await createSpace({ source: { kind: "human_desk" } });
    const answer = await json<Answer>(
      await batch(space, [{ type: "verify", idempotency_key: "v4", conversation_id: "c", level: "V4", method: "document" }]),
      200,
    );
    expect(answer.accepted).toBe(1);
  });
});

describe("POST /v1/batch: the envelope (422 for the whole batch)", () => {
  const cases: [string, (space: Space) => Promise<Response>][] = [
    ["no items", (space) => batch(space, [])],
    [
      "501 items",
      (space) =>
        batch(
          space,
          Array.from({ length: 501 }, () => message()),
        ),
    ],
    ["items not an array", (space) => call("POST", `/spaces/${space.name}/v1/batch`, { token: space.key, body: { items: {} } })],
    [
      "an unknown envelope field",
      (space) => call("POST", `/spaces/${space.name}/v1/batch`, { token: space.key, body: { items: [message()], extra: 1 } }),
    ],
    [
      "malformed JSON",
      (space) =>
        call("POST", `/spaces/${space.name}/v1/batch`, {
          token: space.key,
          rawBody: '{"items": [',
          headers: { "content-type": "application/json" },
        }),
    ],
    [
      "an empty body",
      (space) =>
        call("POST", `/spaces/${space.name}/v1/batch`, {
          token: space.key,
          rawBody: "",
          headers: { "content-type": "application/json" },
        }),
    ],
    [
      "a wrong Content-Type",
      (space) =>
        call("POST", `/spaces/${space.name}/v1/batch`, {
          token: space.key,
          rawBody: JSON.stringify({ items: [message()] }),
          headers: { "content-type": "text/plain" },
        }),
    ],
    [
      "a body over 2.5 MB",
      (space) =>
        batch(
          space,
          Array.from({ length: 3 }, () => message({ content: { type: "text", text: "y".repeat(900_000) } })),
        ),
    ],
  ];
  for (const [name, send] of cases) {
    it(`refuses ${name}`, async () => {
      const space = await createSpace();
      const response = await send(space);
      expect(response.status).toBe(422);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await json(response);
      expect(problem.code).toBe("invalid_input");
      expect(problem.request_id).toBe(response.headers.get("request-id"));
      expect(await storedItems(space)).toHaveLength(0);
    });
  }

  it("accepts exactly 500 items", async () => {
    const space = await createSpace();
    const answer = await json<Answer>(
      await batch(
        space,
        Array.from({ length: 500 }, () => message()),
      ),
      200,
    );
    expect(answer.accepted).toBe(500);
  });
});

describe("POST /v1/batch: dedup by idempotency_key", () => {
  it("counts a key seen earlier in the same batch or before as a duplicate, never stores it twice", async () => {
    const space = await createSpace();
    const first = message();
    const again = { ...first, content: { type: "text", text: "different text, same key" } };
    expect(await json<Answer>(await batch(space, [first, again]), 200)).toEqual({ accepted: 1, duplicates: 1, errors: [] });
    expect(await json<Answer>(await batch(space, [first, message()]), 200)).toEqual({ accepted: 1, duplicates: 1, errors: [] });
    const stored = await storedItems(space);
    expect(stored.filter((row) => row.idempotency_key === first.idempotency_key)).toHaveLength(1);
    expect(stored).toHaveLength(2);
  });

  it("judges an item on its own when the first item with its key was refused at store time: not a duplicate", async () => {
    const space = await createSpace();
    const valid = message();
    // Valid in shape, refused when stored: the profile it names does not exist.
    const refused = { ...valid, subject: { profile_id: crypto.randomUUID() } };
    const answer = await json<Answer>(await batch(space, [refused, valid]), 207);
    expect(answer).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(answer.errors.map((error) => error.index)).toEqual([0]);
    const stored = await storedItems(space);
    expect(stored.map((row) => row.idempotency_key)).toEqual([valid.idempotency_key]);
    // Stored now: the same key again is a duplicate, in a batch after it and within one.
    expect(await json<Answer>(await batch(space, [valid, refused]), 200)).toEqual({ accepted: 0, duplicates: 2, errors: [] });
  });

  it("never dedups by content: two identical messages with two keys are two items", async () => {
    const space = await createSpace();
    const answer = await json<Answer>(
      await batch(space, [message({ idempotency_key: "k1" }), message({ idempotency_key: "k2" })]),
      200,
    );
    expect(answer.accepted).toBe(2);
  });

  it("stores each key once when the same batch is resent concurrently, and the answers add up", async () => {
    const space = await createSpace();
    // A request first, so that batches are cut in chunks (three each), which the six requests interleave.
    expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: space.key })).status).toBe(200);
    const items = Array.from({ length: 250 }, () => message());
    const answers = await Promise.all(Array.from({ length: 6 }, () => batch(space, items).then((r) => json<Answer>(r, 200))));
    expect(answers.reduce((sum, answer) => sum + answer.accepted, 0)).toBe(250);
    expect(answers.reduce((sum, answer) => sum + answer.duplicates, 0)).toBe(5 * 250);
    expect(await storedItems(space)).toHaveLength(250);
  });

  /** The credential the edge would hand the space's object for the space's key. */
  async function keyCredential(space: Space): Promise<PresentedCredential> {
    const key = parseSourceKey(space.key, env.KEY_PREFIX);
    if (!key) throw new Error("the space's key does not parse");
    const { pepper } = await edgeSecrets(env);
    const { keyId, mode, region } = key;
    return { kind: "key", keyId, digest: await keyDigest(pepper, key.secret), mode, space: key.space, region };
  }

  /**
   * A batch of five chunks, then a whoami, sent to the space's object at once (its calls arrive
   * in order, so the batch starts first): the order they were answered in.
   */
  async function batchThenWhoami(space: Space): Promise<string[]> {
    const credential = await keyCredential(space);
    const items = Array.from({ length: 5 * CHUNK_ITEMS }, () => message());
    const order: string[] = [];
    const [stored, whoami] = await Promise.all([
      stub(space)
        .ingestBatch(credential, { status: "ok", text: JSON.stringify({ items }) })
        .then((outcome) => {
          order.push("batch");
          return outcome;
        }),
      stub(space)
        .whoami(credential)
        .then((outcome) => {
          order.push("whoami");
          return outcome;
        }),
    ]);
    expect(whoami.ok).toBe(true);
    expect(stored.ok && stored.value.accepted).toBe(5 * CHUNK_ITEMS);
    return order;
  }

  it("while other requests come, lets them in between the chunks of a large batch: answered before it", async () => {
    const space = await createSpace();
    expect((await stub(space).whoami(await keyCredential(space))).ok).toBe(true);
    expect(await batchThenWhoami(space)).toEqual(["whoami", "batch"]);
  });

  it("stores a batch whole while only batches come (each chunk would cost a commit)", async () => {
    const space = await createSpace();
    expect(await batchThenWhoami(space)).toEqual(["batch", "whoami"]);
  });

  it("stores a batch whole right after an import's status is read: watching an import never cuts the writes in chunks", async () => {
    const space = await createSpace();
    const importId = await imported(space, lines([message()]), NDJSON);
    // Sending the file is a request like any other: past its window, only the status poll is recent.
    await new Promise((resolve) => setTimeout(resolve, OTHERS_WINDOW_MS + 100));
    expect((await importStatus(space, importId)).status).toBe("queued");
    expect(await batchThenWhoami(space)).toEqual(["batch", "whoami"]);
  });

  it("keeps a stored batch across a real restart of the object: the resend is all duplicates", async () => {
    const space = await createSpace();
    const items = Array.from({ length: 50 }, () => message());
    expect((await json<Answer>(await batch(space, items), 200)).accepted).toBe(50);

    // Abort the object for real: its memory is gone, only what was committed remains.
    const marker: Clock = { now: () => Date.now() };
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.clock = marker;
    });
    await runInDurableObject(stub(space), (_instance, state) => state.abort("restart for the test")).catch(() => undefined);
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      expect(instance.clock).not.toBe(marker);
    });

    const resent = await json<Answer>(await batch(space, items), 200);
    expect(resent).toEqual({ accepted: 0, duplicates: 50, errors: [] });
    expect(await storedItems(space)).toHaveLength(50);
  });
});

describe("POST /v1/batch: time and order", () => {
  it("stores items in occurred_at order, not arrival order", async () => {
    const space = await createSpace();
    const base = Date.now() - 3_600_000;
    const times = [30, 10, 20].map((minutes) => new Date(base + minutes * 60_000).toISOString());
    const items = times.map((occurred_at) => message({ occurred_at }));
    await json(await batch(space, items), 200);
    const stored = await storedItems(space);
    expect(stored.map((row) => row.occurred_at)).toEqual([...times].sort().map((time) => Date.parse(time)));
  });

  it("corrects a time beyond the clock tolerance or before 2000 to the arrival time, flagged, claimed time kept", async () => {
    const space = await createSpace();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const ancient = "1999-12-31T23:59:59Z";
    const nearFuture = new Date(Date.now() + 60_000).toISOString(); // within the default 300 s
    const before = Date.now();
    await json(
      await batch(space, [
        message({ idempotency_key: "future", occurred_at: future }),
        message({ idempotency_key: "ancient", occurred_at: ancient }),
        message({ idempotency_key: "near", occurred_at: nearFuture }),
      ]),
      200,
    );
    const byKey = new Map((await storedItems(space)).map((row) => [row.idempotency_key, row]));
    for (const key of ["future", "ancient"]) {
      const row = byKey.get(key);
      expect(row?.clock_corrected).toBe(1);
      expect(row?.occurred_at).toBeGreaterThanOrEqual(before);
      expect(row?.occurred_at).toBeLessThanOrEqual(Date.now());
    }
    expect(byKey.get("future")?.claimed_occurred_at).toBe(Date.parse(future));
    expect(byKey.get("ancient")?.claimed_occurred_at).toBe(Date.parse(ancient));
    expect(byKey.get("near")).toMatchObject({ clock_corrected: 0, occurred_at: Date.parse(nearFuture) });
  });

  it("flags items written with a test key", async () => {
    const space = await createSpace();
    const testKey = await createKey(space.tenant.token, space.sourceId, ["track"], "test");
    await json(await batch(space, [message({ idempotency_key: "live" })]), 200);
    await json(await batch(space, [message({ idempotency_key: "test" })], testKey.key), 200);
    const byKey = new Map((await storedItems(space)).map((row) => [row.idempotency_key, row.test]));
    expect(byKey.get("live")).toBe(0);
    expect(byKey.get("test")).toBe(1);
  });
});
