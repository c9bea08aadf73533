import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { LinkSchema, ProfileSchema } from "../../src/contract/identity";
import type { SpaceObject } from "../../src/space/object";
import {
  email,
  expectProblem,
  identifyItem,
  linkResponse,
  notePersonalData,
  personToken,
  phone,
  query,
  restartSpaceObject,
  spaceStub,
  systemId,
} from "../support/identity";
import { reserveResponse } from "../support/media";
import { fullContext, later, moveClock, runAlarms } from "../support/memory";
import { erasureOf, forget, receiptResponse, scanFor } from "../support/privacy";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * What arrives for a subject while its erasure runs in slices (docs/api/privacy.md "A batch
 * during an erasure", "Feedback during an erasure"): the erasure wins. Every batch item that
 * names its handles (alone, beside a new handle, beside another customer's, in an `identify`)
 * is accepted and stored as a tombstone only, across a restart too; feedback on what it had
 * compiled is `not_found`, while feedback on another customer is applied. After the receipt
 * nothing of any of it is anywhere, a replay is a duplicate, and the handle starts a new subject.
 */

const SUBJECT = "+15555550190";
const NEW_EMAIL = "quill.during@example.com";
const MERGE_EMAIL = "quill.identify@example.com";
const OTHER = "+15555550191";
notePersonalData(SUBJECT, NEW_EMAIL, MERGE_EMAIL, OTHER);
const WORDS = ["marrowlyne", "15555550190", NEW_EMAIL, MERGE_EMAIL];

const MINUTE = 60_000;
const at = (ms: number) => new Date(ms).toISOString();
const path = (space: Space, rest: string) => `/spaces/${space.name}${rest}`;

async function accepted(space: Space, items: Record<string, unknown>[]) {
  return BatchAnswerSchema.parse(await json(await batch(space, items), 200));
}

function feedback(space: Space, items: unknown[]) {
  return call("POST", path(space, "/v1/feedback"), { token: space.key, body: { items } });
}

/** The subject (40 conversations: more than a request's slice erases), and another customer; compiled. */
async function populated() {
  const space = await createSpace();
  const t0 = (await moveClock(space, 0)) - 3 * 3_600_000;
  const items: Record<string, unknown>[] = [];
  for (let n = 0; n < 40; n++) {
    for (let turn = 0; turn < 3; turn++) {
      items.push(
        message({
          handles: [phone(SUBJECT)],
          conversation_id: `subject-${n}`,
          occurred_at: at(t0 + n * MINUTE + turn * 1000),
          content: { type: "text", text: `My tier is gold. Where is my marrowlyne parcel ${n}?` },
        }),
      );
    }
  }
  // An order the subject owns: an item naming it alone is the subject's.
  items.push(
    message({
      handles: [phone(SUBJECT)],
      conversation_id: "subject-0",
      occurred_at: at(t0 + 5000),
      object: { object_type: "order", object_id: "o-marrow-1" },
      content: { type: "text", text: "About my marrowlyne order." },
    }),
  );
  items.push(
    message({
      handles: [phone(OTHER)],
      conversation_id: "other-1",
      occurred_at: at(t0 + 50 * MINUTE),
      content: { type: "text", text: "My tier is silver. Where is my refund?" },
    }),
  );
  expect((await accepted(space, items)).errors).toEqual([]);
  await later(space, 2 * 24 * 3_600_000);
  for (let round = 0; round < 3; round++) await later(space, MINUTE);
  return { space, security: await personToken(space, ["security"]), review: await personToken(space, ["review"]) };
}

describe("POST /v1/forget: what arrives for the subject during a sliced erasure", () => {
  it("stores batch items naming it as tombstones, refuses feedback on its memory, and brings nothing back", async () => {
    const { space, security, review } = await populated();
    const subject = await fullContext(space, { handle: phone(SUBJECT) });
    const other = await fullContext(space, { handle: phone(OTHER) });
    const subjectFact = subject.memory.facts[0]?.fact_id;
    const subjectQuestion = subject.memory.open_items[0]?.open_item_id;
    const otherFact = other.memory.facts[0]?.fact_id;
    expect([subjectFact, subjectQuestion, otherFact].every((id) => typeof id === "string")).toBe(true);

    const subjectProfile = subject.profile_id;
    const started = await forget(space, security, { handle: phone(SUBJECT) });
    expect(started.status).toBe(202);
    if (started.status !== 202) return;

    // Batches during the erasure: each item naming the subject (by a handle, its profile id or
    // an object it owned) is accepted and stored as its tombstone.
    const during = [
      message({ handles: [phone(SUBJECT)], content: { type: "text", text: "marrowlyne again, still waiting" } }),
      message({ handles: [phone(SUBJECT), email(NEW_EMAIL)], content: { type: "text", text: "marrowlyne from my new mail" } }),
      message({ handles: [phone(OTHER), phone(SUBJECT)], conversation_id: "other-1", content: { type: "text", text: "hi" } }),
      identifyItem([phone(SUBJECT), email(MERGE_EMAIL)]),
      message({
        handles: undefined,
        subject: { profile_id: subjectProfile },
        content: { type: "text", text: "marrowlyne by id" },
      }),
      message({
        handles: undefined,
        object: { object_type: "order", object_id: "o-marrow-1" },
        content: { type: "text", text: "marrowlyne order shipped" },
      }),
    ];
    expect(await accepted(space, during)).toEqual({ accepted: 6, duplicates: 0, errors: [] });
    const keys = JSON.stringify(during.map((item) => item.idempotency_key));
    expect(
      await query(
        space,
        "SELECT type, body, profile_id FROM items WHERE idempotency_key IN (SELECT value FROM json_each(?))",
        keys,
      ),
    ).toEqual(during.map(() => ({ type: "erased", body: "{}", profile_id: null })));
    expect(await query(space, "SELECT count(*) AS n FROM handles WHERE value IN (?, ?)", NEW_EMAIL, MERGE_EMAIL)).toEqual([
      { n: 0 },
    ]);

    // Feedback on what the subject had compiled names nothing any more; on another customer it is applied.
    const answer = BatchAnswerSchema.parse(
      await json(
        await feedback(space, [
          { action: "retract_fact", idempotency_key: `fb-${crypto.randomUUID()}`, fact_id: subjectFact },
          { action: "resolve_open_item", idempotency_key: `fb-${crypto.randomUUID()}`, open_item_id: subjectQuestion },
          { action: "retract_fact", idempotency_key: `fb-${crypto.randomUUID()}`, fact_id: otherFact },
        ]),
        207,
      ),
    );
    expect(answer.accepted).toBe(1);
    expect(answer.errors.map((error) => [error.index, error.code])).toEqual([
      [0, "not_found"],
      [1, "not_found"],
    ]);
    await expectProblem(
      await call("POST", path(space, "/v1/profiles/lookup"), { token: review, body: { handle: phone(SUBJECT) } }),
      404,
      "not_found",
    );
    // Routes that would make a profile for an unknown handle do not make one for the subject.
    await expectProblem(
      await reserveResponse(space, {
        content_type: "audio/ogg",
        size_bytes: 10,
        sha256: "a".repeat(64),
        subject: phone(SUBJECT),
      }),
      404,
      "not_found",
    );
    await expectProblem(
      await call("POST", path(space, "/v1/identity/links"), {
        token: space.key,
        headers: { "idempotency-key": crypto.randomUUID() },
        body: {
          person: { handle: phone(SUBJECT) },
          organization: { handle: { type: "account", value: "acct-during" } },
          kind: "account",
        },
      }),
      404,
      "not_found",
    );

    // A restart mid-erasure, a resend of the batch (duplicates), then the slices to the end.
    const stood = await moveClock(space, 0);
    await restartSpaceObject(space);
    await moveClock(space, stood - Date.now());
    expect(await accepted(space, during)).toEqual({ accepted: 0, duplicates: during.length, errors: [] });
    await runAlarms(space);
    const done = await erasureOf(await receiptResponse(space, security, started.receiptId));
    expect(done.status).toBe(200);
    if (done.status !== 200) return;
    expect(done.receipt.counts.events).toBe(40 * 3 + 1 + during.length);

    // Nothing of the subject, before or during, is left; the other customer's feedback holds.
    expect(await scanFor(space, WORDS)).toEqual([]);
    expect((await fullContext(space, { handle: phone(OTHER) })).memory.facts.map((fact) => fact.fact_id)).not.toContain(
      otherFact,
    );
    expect(await accepted(space, during)).toEqual({ accepted: 0, duplicates: during.length, errors: [] });

    // The handle is free: a new event starts a new subject with nothing of the old one.
    await accepted(space, [message({ handles: [phone(SUBJECT)], content: { type: "text", text: "hello, first time here" } })]);
    await later(space, 1_000);
    const fresh = await fullContext(space, { handle: phone(SUBJECT) });
    expect(fresh.profile_id).not.toBe(subject.profile_id);
    expect(JSON.stringify(fresh)).not.toMatch(/marrowlyne|gold/);
    const profile = ProfileSchema.parse(
      await json(await call("GET", path(space, `/v1/profiles/${fresh.profile_id}`), { token: review }), 200),
    );
    expect(profile.identifiers.map((identifier) => identifier.value)).toEqual([expect.stringContaining("0190")]);
    const reserved = await reserveResponse(space, {
      content_type: "audio/ogg",
      size_bytes: 10,
      sha256: "a".repeat(64),
      subject: phone(SUBJECT),
    });
    expect(reserved.status).toBe(201);
  });
});

describe("POST /v1/forget: kept answers", () => {
  it("lets go of kept Idempotency-Key answers naming the subject with the cut, before any slice", async () => {
    const { space, security } = await populated();
    const body = { person: { handle: phone(SUBJECT) }, organization: { handle: systemId("acct-kept") }, kind: "account" };
    const link = LinkSchema.parse(await json(await linkResponse(space, body, space.key, "link-kept"), 201));
    // Still erasing: a 202, and no slice has run yet.
    expect((await forget(space, security, { handle: phone(SUBJECT) })).status).toBe(202);
    expect(await query(space, "SELECT count(*) AS n FROM idempotency_records WHERE instr(answer, ?) > 0", link.link_id)).toEqual([
      { n: 0 },
    ]);
    // The resend is a fresh request: it answers nothing the erased subject had.
    const resent = await linkResponse(space, body, space.key, "link-kept");
    const text = await resent.text();
    expect(text).not.toContain(link.link_id);
    expect(text).not.toContain(link.person_id);
  });
});

describe("POST /v1/forget: a batch of the subject's arriving at the same time", () => {
  it("whichever chunk lands first, nothing of the batch is readable or stored after the receipt, and its replay is duplicates", async () => {
    const { space, security } = await populated();
    // A read just before: the batch is then stored in chunks, with requests let in between them.
    await fullContext(space, { handle: phone(OTHER) });
    const items = Array.from({ length: 350 }, (_, n) =>
      message({
        handles: [phone(SUBJECT)],
        conversation_id: `concurrent-${n % 7}`,
        content: { type: "text", text: `marrowlyne concurrent ${n}` },
      }),
    );
    const [answer, started] = await Promise.all([
      batch(space, items).then(async (response) => BatchAnswerSchema.parse(await json(response, 200))),
      forget(space, security, { handle: phone(SUBJECT) }),
    ]);
    // Every item is stored (some as the subject's events erased later, some as tombstones at once).
    expect(answer).toEqual({ accepted: items.length, duplicates: 0, errors: [] });
    await runAlarms(space);
    const receiptId = started.status === 200 ? started.receipt.receipt_id : started.receiptId;
    const done = await erasureOf(await receiptResponse(space, security, receiptId));
    expect(done.status).toBe(200);
    expect(await scanFor(space, ["marrowlyne", "15555550190"])).toEqual([]);
    const keys = JSON.stringify(items.map((item) => item.idempotency_key));
    expect(
      await query(
        space,
        "SELECT count(*) AS n FROM items WHERE idempotency_key IN (SELECT value FROM json_each(?)) AND type <> 'erased'",
        keys,
      ),
    ).toEqual([{ n: 0 }]);
    expect(await accepted(space, items)).toEqual({ accepted: 0, duplicates: items.length, errors: [] });
  });
});

describe("POST /v1/forget: a batch of the subject's arriving while its receipt is signed", () => {
  it("counts it in the signed receipt (the counts are read after the signer's R2 deletes and checked at the commit)", async () => {
    const space = await createSpace();
    const subject = phone("+15555550192");
    await accepted(space, [message({ handles: [subject], content: { type: "text", text: "first words" } })]);
    const security = await personToken(space, ["security"]);
    const exported = await json<{ export_id: string }>(
      await call("POST", path(space, "/v1/exports"), { token: security, body: { handle: subject } }),
      201,
    );
    // While the signer deletes the export's file from R2, a batch naming the subject arrives.
    let arrived: Promise<unknown> | null = null;
    const deleting = await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
      const bucket = (instance as unknown as { env: { FILES: R2Bucket } }).env.FILES;
      const original = bucket.delete.bind(bucket);
      return vi.spyOn(bucket, "delete").mockImplementation(async (keys) => {
        const named = (Array.isArray(keys) ? keys : [keys]).some((key) => key.endsWith(exported.export_id));
        if (named && arrived === null) {
          arrived = accepted(space, [message({ handles: [subject], content: { type: "text", text: "late words" } })]);
          await arrived;
        }
        return original(keys);
      });
    });
    try {
      const erasure = await forget(space, security, { handle: subject });
      // Under load the answer may come (202) before the signer deletes the file: the alarms go on with it.
      await runAlarms(space);
      await later(space, 11_000);
      expect(arrived).not.toBeNull();
      const done = erasure.status === 200 ? erasure : await erasureOf(await receiptResponse(space, security, erasure.receiptId));
      if (done.status !== 200) throw new Error("the erasure did not finish");
      const [row] = await query<{ counts: string }>(space, "SELECT counts FROM erasures");
      expect(done.receipt.counts.events).toBe(2);
      expect(JSON.parse(row?.counts ?? "{}").events).toBe(2);
    } finally {
      deleting.mockRestore();
    }
    expect(await scanFor(space, ["late words", "15555550192"])).toEqual([]);
  });
});
