import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LinkSchema, ProfileSchema } from "../../src/contract/identity";
import { SearchPageSchema } from "../../src/contract/search";
import { mediaKey } from "../../src/space/media/keys";
import { base64url } from "../../src/space/privacy/base64url";
import {
  email,
  expectProblem,
  type Handle,
  identifyItem,
  link,
  linkResponse,
  lookup,
  notePersonalData,
  personToken,
  phone,
  query,
  restartSpaceObject,
  systemId,
} from "../support/identity";
import { reserve, upload } from "../support/media";
import { later, moveClock, runAlarms, stopStopwatch } from "../support/memory";
import { erasureOf, forget, forgetResponse, forgotten, receiptKey, receiptResponse, scanFor, verifies } from "../support/privacy";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * `POST /v1/forget` (docs/api/privacy.md): one subject among several is erased from everything
 * the space stores (the scan reads every table `sqlite_master` lists), every other subject's
 * answers stay as they were, a replayed batch brings nothing back, a batch during the erasure
 * loses to it, the erasure survives a restart, and the receipt verifies by WebCrypto with the
 * published key (and a tampered one does not).
 */

// Fictional numbers and example.com addresses; the erased subject's words are made up, so a hit is theirs.
const ERASED_PHONE = "+15555550140";
const ERASED_EMAIL = "zelda.erased@example.com";
const OTHER_PHONE = "+15555550141";
const THIRD_EMAIL = "omar.kept@example.com";
const ORG = "acct-0042";
notePersonalData(ERASED_PHONE, ERASED_EMAIL, OTHER_PHONE, THIRD_EMAIL);

const erasedSays = (n: number) => `my qxzvoltarine parcel number ${n} never came, please call me back`;
const ERASED_WORDS = ["zvoltarin", ERASED_PHONE, ERASED_EMAIL, "15555550140", "vexholmbury", "19710213"];

const at = (ms: number) => new Date(ms).toISOString();
const path = (space: Space, rest: string) => `/spaces/${space.name}${rest}`;

interface Reads {
  context: Record<string, unknown>;
  profile: unknown;
  timeline: unknown;
  profileTimeline: unknown;
  history: unknown[];
  search: unknown;
  profileSearch: unknown;
}

const withoutScores = (page: unknown) => {
  const parsed = SearchPageSchema.parse(page);
  return { ...parsed, results: parsed.results.map(({ score: _, ...rest }) => rest) };
};

/** Every read of one subject, as a reviewer sees it (scores aside: they are relative to the whole index). */
async function readsOf(space: Space, token: string, handle: { type: string; value: string }, word: string): Promise<Reads> {
  const context = await json<Record<string, unknown>>(
    await call("POST", path(space, "/v1/context"), { token, body: { handle } }),
    200,
  );
  const profileId = String(context.profile_id);
  const { as_of: _, ...stable } = context;
  const memory = context.memory as { episodes: { episode_id: string }[] };
  const history = [];
  for (const episode of memory.episodes) {
    const item = await json<Record<string, unknown>>(
      await call("GET", path(space, `/v1/history/items/${episode.episode_id}`), { token }),
      200,
    );
    const { as_of: _asOf, ...rest } = item;
    history.push(rest);
  }
  return {
    context: stable,
    profile: ProfileSchema.parse(await json(await call("GET", path(space, `/v1/profiles/${profileId}`), { token }), 200)),
    timeline: await json(await call("POST", path(space, "/v1/timeline"), { token, body: { handle } }), 200),
    profileTimeline: await json(await call("GET", path(space, `/v1/profiles/${profileId}/timeline`), { token }), 200),
    history,
    search: withoutScores(await json(await call("POST", path(space, "/v1/search"), { token, body: { query: word } }), 200)),
    profileSearch: withoutScores(
      await json(await call("GET", path(space, `/v1/profiles/${profileId}/search?q=${word}`), { token }), 200),
    ),
  };
}

async function accept(space: Space, items: Record<string, unknown>[]) {
  const answer = await json<{ accepted: number; errors: unknown[] }>(await batch(space, items), 200);
  expect(answer.errors).toEqual([]);
  return answer;
}

/** One message per conversation, `conversations` of them: each its own session (a step of the erasure each). */
function erasedHistory(t0: number, conversations: number): Record<string, unknown>[] {
  return Array.from({ length: conversations }, (_, n) =>
    message({
      handles: [phone(ERASED_PHONE)],
      conversation_id: `erased-${n}`,
      occurred_at: at(t0 + n * 1000),
      content: { type: "text", text: erasedSays(n) },
    }),
  );
}

/**
 * The space: the erased subject (a phone and an e-mail profile merged by `identify`, a promise,
 * a link to an organization, a CRM record that makes a suggestion with another profile, an event
 * that met another subject's handle), and two subjects that stay.
 */
async function populatedSpace() {
  const space = await createSpace();
  const t0 = (await moveClock(space, 0)) - 3_600_000;
  const review = await personToken(space, ["review"]);
  const security = await personToken(space, ["security"]);
  // Sessions enough that the erasure takes more than the request's slice (about 100 µs a session).
  const history = erasedHistory(t0, 80);
  await accept(space, [
    ...history,
    message({
      handles: [email(ERASED_EMAIL)],
      channel: "email",
      conversation_id: "erased-mail",
      occurred_at: at(t0 + 20_000),
      content: { type: "text", text: "qxzvoltarine: I prefer e-mail, my invoice total is wrong" },
    }),
    message({
      kind: "action",
      handles: [phone(ERASED_PHONE)],
      speaker: { role: "ai_agent" },
      conversation_id: "erased-0",
      occurred_at: at(t0 + 21_000),
      content: undefined,
      action: { operation: "promise", object_type: "order", object_id: "o-erased-1", due_at: at(t0 + 86_400_000) },
    }),
    message({
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      handles: [phone(ERASED_PHONE)],
      occurred_at: at(t0 + 22_000),
      // Traits only the subject has, besides those it shares with the third (the scan finds them wherever they are kept).
      attributes: { name: "Zelda Quornwright", postal_code: "28001", street: "7 Vexholmbury Lane", date_of_birth: "1971-02-13" },
    }),
    message({
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      handles: [email(THIRD_EMAIL)],
      occurred_at: at(t0 + 23_000),
      attributes: { name: "zelda quornwright", postal_code: "28 001" },
    }),
    message({
      handles: [phone(OTHER_PHONE)],
      conversation_id: "other-1",
      occurred_at: at(t0 + 24_000),
      content: { type: "text", text: "Where is my brightcopper order? It is late" },
    }),
    // Another subject's event that names the erased subject's handle too (it goes to the first known).
    message({
      handles: [phone(OTHER_PHONE), phone(ERASED_PHONE)],
      conversation_id: "other-1",
      occurred_at: at(t0 + 25_000),
      content: { type: "text", text: "brightcopper again, I called from my other phone" },
    }),
    message({
      handles: [email(THIRD_EMAIL)],
      channel: "email",
      conversation_id: "third-1",
      occurred_at: at(t0 + 26_000),
      content: { type: "text", text: "Please cancel the silverpine subscription" },
    }),
  ]);
  await accept(space, [identifyItem([phone(ERASED_PHONE), email(ERASED_EMAIL)], { occurred_at: at(t0 + 30_000) })]);
  await link(space, {
    person: { handle: phone(ERASED_PHONE) },
    organization: { handle: { type: "system_id", value: ORG } },
    kind: "account",
  });
  await link(space, {
    person: { handle: phone(OTHER_PHONE) },
    organization: { handle: { type: "system_id", value: ORG } },
    kind: "account",
  });
  // Close the sessions, run the suggestions job, compile (the compiler gives way to the job): until nothing waits.
  await later(space, 2 * 24 * 3_600_000);
  for (let round = 0; round < 5; round++) await later(space, 60_000);
  const suggestions = await json<{ data: unknown[] }>(
    await call("GET", path(space, "/v1/identity/suggestions"), { token: space.key }),
    200,
  );
  expect(suggestions.data.length).toBeGreaterThanOrEqual(1);
  return { space, review, security, t0, history };
}

describe("POST /v1/forget: erasure of one subject among several", () => {
  it("erases the subject everywhere, leaves the others byte for byte, survives a restart mid-erasure and replays, and signs a receipt", async () => {
    const { space, review, security, history } = await populatedSpace();
    const erasedMerges = ProfileSchema.parse(
      await json(
        await call("POST", path(space, "/v1/profiles/lookup"), { token: review, body: { handle: phone(ERASED_PHONE) } }),
        200,
      ),
    ).merges;
    expect(erasedMerges).toHaveLength(1);
    const erasedProfile = (
      await json<{ profile_id: string }>(
        await call("POST", path(space, "/v1/profiles/lookup"), { token: review, body: { handle: phone(ERASED_PHONE) } }),
        200,
      )
    ).profile_id;
    const episode =
      (
        await json<{ memory: { episodes: { episode_id: string }[] } }>(
          await call("POST", path(space, "/v1/context"), { token: review, body: { handle: phone(ERASED_PHONE) } }),
          200,
        )
      ).memory.episodes[0]?.episode_id ?? "";
    expect(episode).not.toBe("");
    const before = {
      other: await readsOf(space, review, phone(OTHER_PHONE), "brightcopper"),
      third: await readsOf(space, review, email(THIRD_EMAIL), "silverpine"),
    };
    expect(JSON.stringify(before.other.search)).toContain("brightcopper");
    // The scan sees the subject where it is before (text, JSON, FTS5's index blobs).
    expect(await scanFor(space, ERASED_WORDS)).toEqual(
      expect.arrayContaining([
        "items: zvoltarin",
        "handles: +15555550140",
        "search_index_data: zvoltarin",
        "search_stems_data: zvoltarin",
      ]),
    );

    // Media of the subject in R2 (one reserved under each of its handles, a merged profile's too),
    // and one of another subject, which stays.
    const mediaUnder = async (handle: { type: string; value: string }) => {
      const bytes = new TextEncoder().encode(`media of ${crypto.randomUUID()}`);
      const reservation = await reserve(space, bytes, { subject: handle });
      expect((await upload(reservation, bytes)).status).toBe(200);
      return mediaKey(space.name, reservation.media_ref);
    };
    const erasedMedia = [await mediaUnder(phone(ERASED_PHONE)), await mediaUnder(email(ERASED_EMAIL))];
    const keptMedia = await mediaUnder(phone(OTHER_PHONE));
    const mediaObjects = async () =>
      (await env.FILES.list({ prefix: `spaces/${space.name}/media/` })).objects.map((object) => object.key).sort();
    expect(await mediaObjects()).toEqual([...erasedMedia, keptMedia].sort());

    // An export of the subject's data, in R2.
    const exported = await json<{ export_id: string; state: string; download: { url: string } | null }>(
      await call("POST", path(space, "/v1/exports"), { token: security, body: { handle: phone(ERASED_PHONE) } }),
      201,
    );
    const exportFiles = async () =>
      (await env.FILES.list({ prefix: "spaces/" })).objects.filter((object) => object.key.endsWith(exported.export_id));
    expect(await exportFiles()).toHaveLength(1);

    // More sessions than a slice erases: the answer is 202, and the rest runs from the alarm.
    const key = crypto.randomUUID();
    const started = await forget(space, security, { handle: email(ERASED_EMAIL) }, key);
    expect(started.status).toBe(202);
    if (started.status !== 202) return;
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'forget.run'")).toEqual([{ key: started.receiptId }]);

    // From the request on, every read of the subject is 404 (and it is in no search).
    const reads: [string, string, unknown][] = [
      ["GET", `/v1/profiles/${erasedProfile}`, undefined],
      ["POST", "/v1/profiles/lookup", { handle: phone(ERASED_PHONE) }],
      ["POST", "/v1/context", { handle: email(ERASED_EMAIL) }],
      ["GET", `/v1/profiles/${erasedProfile}/context`, undefined],
      ["POST", "/v1/timeline", { handle: phone(ERASED_PHONE) }],
      ["GET", `/v1/profiles/${erasedProfile}/timeline`, undefined],
      ["POST", "/v1/search", { query: "qxzvoltarine", handle: phone(ERASED_PHONE) }],
      ["GET", `/v1/profiles/${erasedProfile}/search?q=qxzvoltarine`, undefined],
      ["GET", `/v1/history/items/${episode}`, undefined],
      ["POST", "/v1/history/open", { item_id: episode, handle: phone(ERASED_PHONE), verification: "V2" }],
    ];
    for (const [method, route, body] of reads) {
      await expectProblem(await call(method, path(space, route), { token: review, body }), 404, "not_found");
    }
    await expectProblem(
      await call("GET", path(space, `/v1/exports/${exported.export_id}`), { token: security }),
      404,
      "not_found",
    );
    const spaceSearch = SearchPageSchema.parse(
      await json(await call("POST", path(space, "/v1/search"), { token: review, body: { query: "qxzvoltarine parcel" } }), 200),
    );
    expect(spaceSearch.results).toEqual([]);
    const mcp = await call("POST", path(space, "/mcp"), {
      token: space.key,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_customer_context", arguments: { handle: phone(ERASED_PHONE) } },
      },
    });
    expect(await mcp.text()).toMatch(/"isError":true.*not_found|not_found.*"isError":true/s);

    // A batch about the subject during the erasure loses to it; a replay of an old one is a duplicate.
    const during = message({
      handles: [phone(ERASED_PHONE)],
      content: { type: "text", text: "qxzvoltarine during the erasure" },
    });
    expect(await json(await batch(space, [during]), 200)).toEqual({ accepted: 1, duplicates: 0, errors: [] });

    // The object restarts mid-erasure: the timer resumes it.
    const stood = await moveClock(space, 0);
    await restartSpaceObject(space);
    await moveClock(space, stood - Date.now());
    expect(await runAlarms(space)).toBeGreaterThanOrEqual(1);
    const done = await erasureOf(await receiptResponse(space, security, started.receiptId));
    expect(done.status).toBe(200);
    if (done.status !== 200) return;
    const { receipt } = done;
    expect(receipt.counts).toMatchObject({
      profiles: 2,
      handles: 2,
      events: history.length + 1 + 1 + 1 + 1 + 1, // messages, e-mail, action, CRM record, identify, the arrival during
      mentions: 1,
      sessions: history.length + 2, // one per conversation, and two more (the e-mail, the CRM record)
      links: 1,
      exports: 1,
      media: 2,
    });
    // The subject's media are gone from R2 (a scan of the space's media), the other subject's stay.
    expect(await mediaObjects()).toEqual([keptMedia]);
    // The export's file is gone from R2, and its link answers nothing.
    expect(await exportFiles()).toEqual([]);
    expect(
      (await call("GET", new URL(exported.download?.url ?? "").pathname + new URL(exported.download?.url ?? "").search)).status,
    ).toBe(404);
    expect(receipt.counts.search_rows).toBeGreaterThan(0);
    expect(receipt.counts.memory_items).toBeGreaterThan(0);
    expect(receipt.counts.suggestions).toBeGreaterThanOrEqual(1);
    // Its traits, their changes and the linkage job's copies and keys.
    expect(receipt.counts.identity_evidence).toBeGreaterThan(0);
    expect(JSON.stringify(receipt)).not.toMatch(/15555550140|zelda|example\.com|qxzvoltarine/i);
    // The same Idempotency-Key answers the same erasure, now done.
    const replayedRequest = await forget(space, security, { handle: email(ERASED_EMAIL) }, key);
    expect(replayedRequest).toEqual(done);

    // Nothing of the subject is left in any table.
    expect(
      await scanFor(space, [...ERASED_WORDS, ...history.map((item) => String((item.content as { text: string }).text))]),
    ).toEqual([]);
    // Its events' rows stay as tombstones, so a replayed batch is a duplicate and brings nothing back.
    expect(await json(await batch(space, [...history, during]), 200)).toEqual({
      accepted: 0,
      duplicates: history.length + 1,
      errors: [],
    });
    await later(space, 60_000);
    expect(await scanFor(space, ERASED_WORDS)).toEqual([]);

    // Every other subject reads as before.
    expect(await readsOf(space, review, phone(OTHER_PHONE), "brightcopper")).toEqual(before.other);
    expect(await readsOf(space, review, email(THIRD_EMAIL), "silverpine")).toEqual(before.third);

    // The receipt verifies with the published key, by WebCrypto; a tampered one does not.
    const published = await receiptKey(space, space.key);
    expect(published.kid).toBe(receipt.kid);
    expect(await verifies(receipt, published.jwk)).toBe(true);
    expect(await verifies({ ...receipt, counts: { ...receipt.counts, events: receipt.counts.events - 1 } }, published.jwk)).toBe(
      false,
    );
    expect(await verifies({ ...receipt, subject_hash: `${receipt.subject_hash.slice(1)}A` }, published.jwk)).toBe(false);
    expect(await verifies({ ...receipt, completed_at: at(Date.parse(receipt.completed_at) + 1) }, published.jwk)).toBe(false);

    // Its merge stays on record (ids only) and cannot be undone: there is nothing to split.
    await expectProblem(
      await call("POST", path(space, `/v1/identity/merges/${erasedMerges[0]?.merge_id}/undo`), {
        token: review,
        headers: { "idempotency-key": crypto.randomUUID() },
      }),
      404,
      "not_found",
    );
    expect(await query(space, "SELECT count(*) AS n FROM merges")).toEqual([{ n: 1 }]);

    // The handles are free again: a new event starts a new subject, with none of the old one.
    await accept(space, [message({ handles: [phone(ERASED_PHONE)], content: { type: "text", text: "hello, new here" } })]);
    const fresh = ProfileSchema.parse(
      await json(
        await call("POST", path(space, "/v1/profiles/lookup"), { token: review, body: { handle: phone(ERASED_PHONE) } }),
        200,
      ),
    );
    expect(fresh.profile_id).not.toBe(erasedProfile);
    expect(fresh.merged_profile_ids).toEqual([]);
  });
});

describe("POST /v1/forget: access, the key, the subject", () => {
  it("needs a person with security, an Idempotency-Key, and a subject the space holds", async () => {
    const space = await createSpace();
    await accept(space, [message({ handles: [phone("+15555550150")] })]);
    const body = { handle: phone("+15555550150") };
    await expectProblem(await forgetResponse(space, space.key, body), 403, "forbidden");
    await expectProblem(await forgetResponse(space, await personToken(space, ["review"]), body), 403, "forbidden");
    const security = await personToken(space, ["security"]);
    await expectProblem(await forgetResponse(space, security, body, null), 422, "invalid_input");
    await expectProblem(await forgetResponse(space, security, { handle: phone("+15555550151") }), 404, "not_found");
    await expectProblem(await forgetResponse(space, security, { profile_id: crypto.randomUUID() }), 404, "not_found");
    await expectProblem(await forgetResponse(space, security, {}), 422, "invalid_input");
    await expectProblem(
      await forgetResponse(space, security, { ...body, profile_id: crypto.randomUUID() }),
      422,
      "invalid_input",
    );
    const key = crypto.randomUUID();
    const first = await forgotten(space, security, body, key);
    await expectProblem(await forgetResponse(space, security, { handle: phone("+15555550152") }, key), 409, "conflict");
    // Erased: the subject is gone, so a new request for it is 404; the receipt stays readable.
    await expectProblem(await forgetResponse(space, security, body), 404, "not_found");
    expect(await erasureOf(await receiptResponse(space, security, first.receipt_id))).toEqual({ status: 200, receipt: first });
    await expectProblem(await receiptResponse(space, space.key, first.receipt_id), 403, "forbidden");
    await expectProblem(await receiptResponse(space, security, crypto.randomUUID()), 404, "not_found");
    // The audit log has the request, by receipt id only.
    const audit = await json<{ data: { action: string; outcome: string; targets: { type: string; id: string }[] }[] }>(
      await call("GET", path(space, "/v1/audit?action=forget"), { token: security }),
      200,
    );
    expect(audit.data.filter((entry) => entry.outcome === "ok").map((entry) => entry.targets)).toEqual([
      [{ type: "receipt", id: first.receipt_id }],
    ]);
    expect(JSON.stringify(audit)).not.toContain("15555550150");
  });

  it("erases a small subject in the request: 200 with the signed receipt, nothing left to run", async () => {
    const space = await createSpace();
    const subject = phone("+15555550153");
    await accept(space, [
      message({ handles: [subject], content: { type: "text", text: "my parcel never came" } }),
      message({ handles: [subject, email("small.subject@example.com")], content: { type: "text", text: "still waiting" } }),
    ]);
    await later(space, 60_000);
    const security = await personToken(space, ["security"]);
    // Sized by its estimates, not by how busy the machine is.
    await stopStopwatch(space);
    const erasure = await forget(space, security, { handle: subject });
    expect(erasure.status).toBe(200);
    if (erasure.status !== 200) return;
    expect(erasure.receipt.counts.events).toBe(2);
    expect(await verifies(erasure.receipt, (await receiptKey(space, security)).jwk)).toBe(true);
    expect(await query(space, "SELECT kind FROM timers WHERE kind IN ('forget.run', 'forget.sign')")).toEqual([]);
    expect(await erasureOf(await receiptResponse(space, security, erasure.receipt.receipt_id))).toEqual(erasure);
    expect(await scanFor(space, ["15555550153", "small.subject"])).toEqual([]);
  });

  it("deletes the kept answers that hold the subject, and no other caller's, nor its own, whatever its handle's value", async () => {
    const space = await createSpace();
    // A value found inside nearly every answer (ids, dates), as a substring.
    const subject = systemId("1");
    const [person, org] = [phone("+15555550156"), systemId("acct-77")];
    await accept(space, [message({ handles: [subject] }), message({ handles: [person] }), message({ handles: [org] })]);
    const linkKey = crypto.randomUUID();
    const body = { person: { handle: person }, organization: { handle: org }, kind: "account" };
    const linked = LinkSchema.parse(await json(await linkResponse(space, body, space.key, linkKey), 201));
    const theirs = LinkSchema.parse(
      await json(await linkResponse(space, { ...body, person: { handle: subject } }, space.key, crypto.randomUUID()), 201),
    );
    const security = await personToken(space, ["security"]);
    const forgetKey = crypto.randomUUID();
    // Run to its receipt (the first slice may not finish it on a busy machine).
    const receipt = await forgotten(space, security, { handle: subject }, forgetKey);
    expect(receipt.counts.kept_answers).toBe(1);
    // Another caller's replay answers its first link, not a second one.
    const replayed = LinkSchema.parse(await json(await linkResponse(space, body, space.key, linkKey), 201));
    expect(replayed.link_id).toBe(linked.link_id);
    expect(await query(space, "SELECT link_id FROM links")).toEqual([{ link_id: linked.link_id }]);
    expect(theirs.link_id).not.toBe(linked.link_id);
    // The erasure's own key answers the same erasure.
    expect(await forget(space, security, { handle: subject }, forgetKey)).toEqual({ status: 200, receipt });
  });

  it("erases the free text of items that end or hand over its conversations, and leaves what a shared conversation keeps for the others", async () => {
    const space = await createSpace();
    const [subject, other] = [phone("+15555550157"), phone("+15555550158")];
    const t0 = await moveClock(space, 0);
    const when = (s: number) => new Date(t0 - 600_000 + s * 1_000).toISOString();
    const says = (handle: Handle, s: number, extra: Record<string, unknown>) =>
      message({ handles: [handle], occurred_at: when(s), content: { type: "text", text: "hello there" }, ...extra });
    await accept(space, [
      says(subject, 1, { conversation_id: "c-own" }),
      says(subject, 2, { conversation_id: undefined, task_id: "t-own" }),
      says(subject, 3, { conversation_id: "c-shared" }),
      says(other, 4, { conversation_id: "c-shared-b", conversation_aliases: ["c-shared"] }),
      {
        type: "handoff",
        idempotency_key: "h-own",
        conversation_id: "c-own",
        to: { role: "human_agent" },
        reason: "Jane qxzhandoff 90817263",
        occurred_at: when(5),
      },
      {
        type: "conversation.ended",
        idempotency_key: "e-own",
        conversation_id: "c-own",
        reason: "qxzended",
        occurred_at: when(6),
      },
      { type: "task.ended", idempotency_key: "t-end", task_id: "t-own", occurred_at: when(7) },
      {
        type: "handoff",
        idempotency_key: "h-shared",
        conversation_id: "c-shared-b",
        to: { role: "human_agent" },
        reason: "qxzshared",
        occurred_at: when(8),
      },
      { type: "verify", idempotency_key: "v-shared", conversation_id: "c-shared", level: "V1", method: "otp" },
    ]);
    const feedback = await call("POST", path(space, "/v1/feedback"), {
      token: space.key,
      body: {
        items: [{ action: "conversation_outcome", idempotency_key: "o-shared", conversation_id: "c-shared", value: "resolved" }],
      },
    });
    expect(feedback.status).toBe(200);
    await later(space, 60_000);
    // The outcome is kept per customer's latest session of the conversation: the other's stays.
    const otherSessions = await query<{ session_id: string }>(
      space,
      "SELECT session_id FROM sessions WHERE profile_id = ?",
      (await lookup(space, other)).profile_id,
    );
    const kept = async () => ({
      aliases: await query(space, "SELECT alias, conversation_id FROM conversation_aliases ORDER BY alias"),
      levels: await query(space, "SELECT target_kind, target_id, level FROM verification_levels"),
      corrections: await query(space, "SELECT target_id FROM corrections"),
    });
    const before = await kept();
    expect(before.aliases.map((row) => row.alias)).toEqual(["c-shared", "c-shared-b"]);
    expect(before.levels).toHaveLength(1);
    expect(before.corrections).toHaveLength(2);
    await forgotten(space, await personToken(space, ["security"]), { handle: subject });
    expect(await kept()).toEqual({
      ...before,
      corrections: otherSessions.map((session) => ({ target_id: session.session_id })),
    });
    expect(await scanFor(space, ["qxzhandoff", "qxzended", "qxzshared", "90817263"])).toEqual([]);
    expect(
      await query(
        space,
        "SELECT idempotency_key, type FROM items WHERE idempotency_key IN ('h-own', 'e-own', 't-end', 'h-shared') ORDER BY idempotency_key",
      ),
    ).toEqual([
      { idempotency_key: "e-own", type: "erased" },
      { idempotency_key: "h-own", type: "erased" },
      { idempotency_key: "h-shared", type: "handoff" },
      { idempotency_key: "t-end", type: "erased" },
    ]);
  });

  it("erases by profile id, a merged-away id naming its survivor; a second request while one runs answers that erasure", async () => {
    const space = await createSpace();
    const [first, second] = [phone("+15555550154"), email("merged.away@example.com")];
    await accept(space, [message({ handles: [first] }), message({ handles: [second], channel: "email", conversation_id: "m" })]);
    const mergedAway = (
      await json<{ profile_id: string }>(
        await call("POST", path(space, "/v1/profiles/lookup"), { token: space.key, body: { handle: second } }),
        200,
      )
    ).profile_id;
    await accept(space, [identifyItem([first, second])]);
    // Sessions enough that the erasure runs past the request (about 100 µs a session).
    await accept(
      space,
      Array.from({ length: 80 }, (_, n) => message({ handles: [first], conversation_id: `c-${n}` })),
    );
    const security = await personToken(space, ["security"]);
    const started = await forget(space, security, { profile_id: mergedAway });
    expect(started.status).toBe(202);
    if (started.status !== 202) return;
    // Named again, by a handle or the id, with another key: the same erasure, still running.
    for (const body of [{ handle: first }, { profile_id: mergedAway }]) {
      const again = await forget(space, security, body);
      expect(again).toEqual({ status: 202, receiptId: started.receiptId });
    }
    await runAlarms(space);
    const done = await erasureOf(await receiptResponse(space, security, started.receiptId));
    expect(done.status).toBe(200);
    if (done.status !== 200) return;
    expect(done.receipt.counts).toMatchObject({ profiles: 2, handles: 2, events: 83 });
    await expectProblem(await forgetResponse(space, security, { profile_id: mergedAway }), 404, "not_found");
    expect(await scanFor(space, ["15555550154", "merged.away"])).toEqual([]);
  });

  it("names the subject by a keyed hash of its handles: the documented HMAC under the space's own key, not a plain digest", async () => {
    const space = await createSpace();
    const handles = [phone("+15555550155"), email("hashed.subject@example.com")];
    await accept(space, [message({ handles })]);
    const security = await personToken(space, ["security"]);
    const receipt = await forgotten(space, security, { handle: handles[0] });
    const [{ secret }] = (await query<{ secret: string }>(space, "SELECT secret FROM signing_keys WHERE name = 'subject'")) as [
      { secret: string },
    ];
    const text = ["email\n\nhashed.subject@example.com", "phone_e164\n\n+15555550155"].sort().join("\n\n");
    const bytes = new TextEncoder().encode(text);
    const key = await crypto.subtle.importKey(
      "raw",
      Uint8Array.from(secret.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const encode = (buffer: ArrayBuffer) => base64url(new Uint8Array(buffer));
    expect(receipt.subject_hash).toBe(encode(await crypto.subtle.sign("HMAC", key, bytes)));
    expect(receipt.subject_hash).not.toBe(encode(await crypto.subtle.digest("SHA-256", bytes)));
    // Another subject of the space: another hash.
    await accept(space, [message({ handles: [phone("+15555550156")] })]);
    const other = await forgotten(space, security, { handle: phone("+15555550156") });
    expect(other.subject_hash).not.toBe(receipt.subject_hash);
  });

  it("publishes the receipt key to any key and any person of the tenant; keys rotate and old receipts keep their kid", async () => {
    const space = await createSpace();
    const security = await personToken(space, ["security"]);
    await accept(space, [message({ handles: [phone("+15555550160")] }), message({ handles: [phone("+15555550161")] })]);
    const first = await forgotten(space, security, { handle: phone("+15555550160") });
    const analyst = await personToken(space, ["analysis"]);
    expect(await receiptKey(space, analyst)).toEqual(await receiptKey(space, space.key));
    // A key signs for 90 days: 89 days on it is still the one published...
    await moveClock(space, 89 * 86_400_000);
    expect((await receiptKey(space, space.key)).kid).toBe(first.kid);
    // ...and past them the next receipt is signed by a new key; the old one is still published by its kid.
    await moveClock(space, 2 * 86_400_000);
    const second = await forgotten(space, security, { handle: phone("+15555550161") });
    expect(second.kid).not.toBe(first.kid);
    expect((await receiptKey(space, space.key)).kid).toBe(second.kid);
    const old = await receiptKey(space, space.key, first.kid);
    expect(await verifies(first, old.jwk)).toBe(true);
    expect(await verifies(second, old.jwk)).toBe(false);
    // A kid is the key's RFC 7638 thumbprint; a retired key keeps its public half only.
    for (const { kid, jwk } of [old, await receiptKey(space, space.key)]) {
      const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(members));
      expect(kid).toBe(base64url(new Uint8Array(digest)));
    }
    expect(await query(space, "SELECT kid, private_key IS NOT NULL AS held FROM receipt_keys ORDER BY created_at")).toEqual([
      { kid: first.kid, held: 0 },
      { kid: second.kid, held: 1 },
    ]);
    await expectProblem(
      await call("GET", path(space, "/v1/privacy/receipt-key?kid=unknown"), { token: space.key }),
      404,
      "not_found",
    );
  });
});
