import { describe, expect, it } from "vitest";
import { expectProblem, phone, query } from "../support/identity";
import { fullContext, later, moveClock, runAlarms } from "../support/memory";
import { scanFor } from "../support/privacy";
import { search } from "../support/search";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * Retention (`retention_days`, docs/api/privacy.md "Retention"): a daily run erases the content
 * of events older than the cutoff and what was derived only from them, by the code forget uses;
 * their tombstones stay, newer events and what they derived stay.
 */
const DAY = 86_400_000;
const CUSTOMER = phone("+15555550170");
const at = (ms: number) => new Date(ms).toISOString();

function setRetention(space: Space, values: Record<string, unknown>) {
  return call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } });
}

describe("retention_days: old events' content erased daily", () => {
  it("erases events older than the cutoff once the clock passes it, keeps tombstones and newer events", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const said = (conversation: string, when: number, text: string) =>
      message({ handles: [CUSTOMER], conversation_id: conversation, occurred_at: at(when), content: { type: "text", text } });
    const old = [
      said("old-1", t0 - 20 * DAY, "My amberquill lamp arrived broken."),
      said("old-1", t0 - 20 * DAY + 60_000, "I prefer e-mail, amberquill please"),
      // Free text in an item that ends a session is content too.
      {
        type: "conversation.ended",
        idempotency_key: "end-old",
        conversation_id: "old-1",
        reason: "amberquill sorted",
        occurred_at: at(t0 - 20 * DAY + 120_000),
      },
    ];
    const answer = await json(
      await batch(space, [
        ...old,
        said("new-1", t0 - DAY, "The tealstone lamp works, thanks."),
        {
          type: "conversation.ended",
          idempotency_key: "end-new",
          conversation_id: "new-1",
          reason: "tealstone sorted",
          occurred_at: at(t0 - DAY + 60_000),
        },
        // One e-mail session (a 72-hour window) across the cutoff the later run has (about t0 - 12 days).
        { ...said("mail-1", t0 - 13 * DAY, "My brassfern invoice is wrong."), channel: "email" },
        { ...said("mail-1", t0 - 11 * DAY, "The copperwick refund arrived."), channel: "email" },
      ]),
      200,
    );
    expect(answer).toEqual({ accepted: 7, duplicates: 0, errors: [] });
    const [mailSession] = await query<{ n: number }>(
      space,
      "SELECT count(DISTINCT session_id) AS n FROM items WHERE conversation_id = 'mail-1'",
    );
    expect(mailSession?.n).toBe(1);
    await later(space, 2 * DAY);
    for (let round = 0; round < 3; round++) await later(space, 60_000);
    const before = await fullContext(space, { handle: CUSTOMER });
    expect(before.memory.facts.map((fact) => fact.value)).toContain("e-mail");
    expect((await search(space, { query: "amberquill" })).results.length).toBeGreaterThan(0);
    // A row indexed before migration 0037 held the words of the turns before it.
    await query(
      space,
      `UPDATE search_stems SET near = 'brassfern invoic wrong'
       WHERE rowid IN (SELECT rowid FROM search_index WHERE search_index MATCH 'copperwick')`,
    );
    expect(await scanFor(space, ["brassfern"])).not.toEqual([]);

    // 30 days: the run starts at once and finds nothing that old yet.
    await json(await setRetention(space, { retention_days: 30 }), 200);
    await runAlarms(space);
    expect((await search(space, { query: "amberquill" })).results.length).toBeGreaterThan(0);
    expect(await query(space, "SELECT count(*) AS n FROM items WHERE type = 'erased'")).toEqual([{ n: 0 }]);

    // 16 days on, the old conversation is past the cutoff: the next daily run erases it.
    await later(space, 16 * DAY);
    for (let round = 0; round < 3; round++) await later(space, 60_000);
    expect((await search(space, { query: "amberquill" })).results).toEqual([]);
    expect(await scanFor(space, ["amberquil", "arrived broken"])).toEqual([]);
    const after = await fullContext(space, { handle: CUSTOMER });
    expect(after.memory.facts.map((fact) => fact.value)).not.toContain("e-mail");
    expect(after.memory.episodes.map((episode) => episode.conversation_id).sort()).toEqual(["mail-1", "new-1"]);
    expect((await search(space, { query: "tealstone" })).results.length).toBeGreaterThan(0);
    // The session across the cutoff keeps its newer event and is compiled again from it alone.
    expect(await scanFor(space, ["brassfern"])).toEqual([]);
    const mail = await search(space, { query: "copperwick" });
    expect(mail.results.map((result) => result.kind)).toContain("message");
    // The tombstones stay: a resent batch of the old events is a duplicate.
    expect(await query(space, "SELECT count(*) AS n FROM items WHERE type = 'erased'")).toEqual([{ n: 4 }]);
    expect(await json(await batch(space, old), 200)).toEqual({ accepted: 0, duplicates: 3, errors: [] });
    expect(await scanFor(space, ["amberquil"])).toEqual([]);
    expect(
      await query(space, "SELECT json_extract(body, '$.reason') AS reason FROM items WHERE type = 'conversation.ended'"),
    ).toEqual([{ reason: "tealstone sorted" }]);
    expect(await query(space, "SELECT job FROM job_runs WHERE job = 'retention'")).toEqual([{ job: "retention" }]);
  });

  it("is validated: whole days from 1 to 36,500", async () => {
    const space = await createSpace();
    for (const retention_days of [0, 1.5, 36_501, "30"]) {
      await expectProblem(await setRetention(space, { retention_days }), 422, "invalid_input");
    }
    await json(await setRetention(space, { retention_days: 1 }), 200);
  });
});
