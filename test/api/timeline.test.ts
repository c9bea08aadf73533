import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { type TimelinePage, TimelinePageSchema } from "../../src/contract/history";
import { expectProblem, identifyItem, lookup, phone, query, systemId } from "../support/identity";
import { say } from "../support/memory";
import { runs } from "../support/property-runs";
import { batch, call, createKey, createSpace, json, type Space } from "../support/seed";

/**
 * The timeline through the API: a profile's events across merges, newest first, paged with an
 * opaque keyset cursor that neither skips nor repeats an event when older events are replayed
 * between pages; filters by channel and time; a read creates nothing.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

interface Replay {
  offset: number;
  channel: string;
  conversation: number;
}

async function accept(space: Space, items: unknown[], key = space.key): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items, key), 200));
  expect(answer.errors).toEqual([]);
}

const timelineResponse = (space: Space, body: Record<string, unknown>, token = space.key) =>
  call("POST", `/spaces/${space.name}/v1/timeline`, { token, body });

async function timeline(space: Space, body: Record<string, unknown>, token = space.key): Promise<TimelinePage> {
  return TimelinePageSchema.parse(await json(await timelineResponse(space, body, token), 200));
}

const profileTimelineResponse = (space: Space, id: string, params: Record<string, string> = {}, token = space.key) => {
  const search = new URLSearchParams(params).toString();
  return call("GET", `/spaces/${space.name}/v1/profiles/${encodeURIComponent(id)}/timeline${search ? `?${search}` : ""}`, {
    token,
  });
};

/** Every page from the first, by handle, with `between` run before each next page. */
async function allPages(
  space: Space,
  body: Record<string, unknown>,
  between: (cursorAt: string) => Promise<void> = async () => {},
) {
  const pages: TimelinePage[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await timeline(space, { ...body, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.next_cursor;
    const last = page.data.at(-1);
    if (cursor && last) await between(last.occurred_at);
  } while (cursor);
  return pages;
}

describe("timeline: paging by a keyset cursor", () => {
  it("never skips or repeats an event when older events are replayed between pages (property)", async () => {
    const space = await createSpace();
    const base = Date.now() - 20 * 24 * HOUR;
    const channels = ["whatsapp", "email", "app"] as const;
    const event: fc.Arbitrary<Replay> = fc.record({
      // Hours apart or minutes apart, so that sessions both chain and split; ties on occurred_at too.
      offset: fc.oneof(
        fc.integer({ min: 0, max: 400 }).map((h) => h * HOUR),
        fc.integer({ min: 0, max: 60 }).map((m) => m * MINUTE),
      ),
      channel: fc.constantFrom(...channels),
      conversation: fc.integer({ min: 0, max: 3 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 1, maxLength: 40 }),
        fc.array(fc.array(event, { maxLength: 3 }), { maxLength: 10 }),
        fc.integer({ min: 1, max: 7 }),
        async (initial, replays, limit) => {
          run++;
          const handle = phone(`+1555555${String(1000 + run).padStart(4, "0")}`);
          const item = (e: Replay, label: string) =>
            say(handle, base + e.offset, label, { channel: e.channel, conversation_id: `p${run}-c${e.conversation}` });
          await accept(
            space,
            initial.map((e, i) => item(e, `initial ${i}`)),
          );
          const expected = new Set(initial.map((_, i) => `initial ${i}`));
          const above = new Set<string>();
          let round = 0;
          const pages = await allPages(space, { handle, limit }, async (cursorAt) => {
            const next = replays[round++] ?? [];
            if (next.length === 0) return;
            const labels = next.map((_, i) => `replay ${round}.${i}`);
            await accept(
              space,
              next.map((e, i) => item(e, labels[i] ?? "")),
            );
            // Strictly older than the page's last event: below the cursor, so on a later page.
            next.forEach((e, i) => {
              const label = labels[i] ?? "";
              if (base + e.offset < Date.parse(cursorAt)) expected.add(label);
              else if (base + e.offset > Date.parse(cursorAt)) above.add(label);
            });
          });
          const seen = pages.flatMap((page) => page.data);
          const texts = seen.map((entry) => entry.text ?? "");
          expect(new Set(seen.map((entry) => entry.event_id)).size).toBe(seen.length);
          for (const label of expected) expect(texts).toContain(label);
          for (const label of above) expect(texts).not.toContain(label);
          const times = seen.map((entry) => Date.parse(entry.occurred_at));
          expect(times).toEqual([...times].sort((a, b) => b - a));
          for (const page of pages.slice(0, -1)) expect(page.data).toHaveLength(limit);
        },
      ),
      { numRuns: runs(12) },
    );
  }, 120_000);

  it("pages GET /v1/profiles/{id}/timeline the same as the POST form, and refuses a cursor it did not issue", async () => {
    const space = await createSpace();
    const handle = phone("+15555550501");
    const t0 = Date.now() - 10 * HOUR;
    await accept(
      space,
      Array.from({ length: 7 }, (_, i) => say(handle, t0 + i * HOUR, `m${i}`, { conversation_id: `g-${i % 2}` })),
    );
    const posted = (await allPages(space, { handle, limit: 3 })).flatMap((page) => page.data);
    expect(posted.map((entry) => entry.text)).toEqual(["m6", "m5", "m4", "m3", "m2", "m1", "m0"]);

    const { profile_id } = await lookup(space, handle);
    const got = [];
    let cursor: string | null = null;
    do {
      const page = TimelinePageSchema.parse(
        await json(await profileTimelineResponse(space, profile_id, { limit: "3", ...(cursor ? { cursor } : {}) }), 200),
      );
      got.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(got).toEqual(posted);

    await expectProblem(await profileTimelineResponse(space, profile_id, { cursor: "not-a-cursor" }), 422, "invalid_input");
    await expectProblem(await timelineResponse(space, { handle, cursor: "bm90LWEtY3Vyc29y" }), 422, "invalid_input");
    await expectProblem(await timelineResponse(space, { handle, limit: 101 }), 422, "invalid_input");
    await expectProblem(await profileTimelineResponse(space, profile_id, { limit: "101" }), 422, "invalid_input");
    const unknown = await expectProblem(await timelineResponse(space, { handle, order: "asc" }), 422, "invalid_input");
    expect(unknown.detail).toContain("unknown_field");
  });
});

describe("timeline: filters", () => {
  it("keeps the channels asked for and from <= occurred_at < to, in both forms", async () => {
    const space = await createSpace();
    const handle = phone("+15555550502");
    const t0 = Date.now() - 10 * HOUR;
    const channelOf = ["whatsapp", "email", "app"];
    await accept(
      space,
      Array.from({ length: 9 }, (_, i) =>
        say(handle, t0 + i * HOUR, `m${i}`, { channel: channelOf[i % 3], conversation_id: `f-${i}` }),
      ),
    );
    const texts = (page: TimelinePage) => page.data.map((entry) => entry.text);
    expect(texts(await timeline(space, { handle, channels: ["email", "app"] }))).toEqual(["m8", "m7", "m5", "m4", "m2", "m1"]);
    expect(texts(await timeline(space, { handle, from: iso(t0 + 2 * HOUR), to: iso(t0 + 5 * HOUR) }))).toEqual([
      "m4",
      "m3",
      "m2",
    ]);
    const paged = await allPages(space, { handle, channels: ["whatsapp"], from: iso(t0 + HOUR), limit: 1 });
    expect(paged.flatMap(texts)).toEqual(["m6", "m3"]);

    const { profile_id } = await lookup(space, handle);
    const got = TimelinePageSchema.parse(
      await json(await profileTimelineResponse(space, profile_id, { channels: "email,app", to: iso(t0 + 5 * HOUR) }), 200),
    );
    expect(texts(got)).toEqual(["m4", "m2", "m1"]);
    expect(got.data.every((entry) => entry.channel === "email" || entry.channel === "app")).toBe(true);
    await expectProblem(await profileTimelineResponse(space, profile_id, { channels: "email,fax" }), 422, "invalid_input");
  });
});

describe("timeline: merged profiles", () => {
  it("answers every member's events under the survivor, by either handle or the merged-away id", async () => {
    const space = await createSpace();
    const a = phone("+15555550503");
    const b = systemId("crm-503", "crm");
    const t0 = Date.now() - 10 * HOUR;
    await accept(space, [
      say(a, t0, "from a, first", { conversation_id: "ma" }),
      say(a, t0 + 2 * HOUR, "from a, last", { conversation_id: "ma2" }),
    ]);
    await accept(space, [say(b, t0 + HOUR, "from b", { conversation_id: "mb", channel: "email" })]);
    const absorbed = (await lookup(space, b)).profile_id;
    const survivor = (await lookup(space, a)).profile_id;
    expect((await timeline(space, { handle: b })).data.map((entry) => entry.text)).toEqual(["from b"]);

    await accept(space, [identifyItem([a, b])]);
    const expected = ["from a, last", "from b", "from a, first"];
    for (const handle of [a, b]) {
      const page = await timeline(space, { handle, limit: 2 });
      expect(page.profile_id).toBe(survivor);
      const rest = await timeline(space, { handle, limit: 2, cursor: page.next_cursor });
      expect([...page.data, ...rest.data].map((entry) => entry.text)).toEqual(expected);
      expect(rest.next_cursor).toBeNull();
    }
    const byAbsorbed = TimelinePageSchema.parse(await json(await profileTimelineResponse(space, absorbed), 200));
    expect(byAbsorbed.profile_id).toBe(survivor);
    expect(byAbsorbed.data.map((entry) => entry.text)).toEqual(expected);
  });
});

describe("timeline: a read creates nothing, and needs scope context", () => {
  it("answers 404 for an unknown handle or profile without creating a profile", async () => {
    const space = await createSpace();
    await accept(space, [say(phone("+15555550504"), Date.now() - MINUTE, "Hello.")]);
    const count = () => query<{ n: number }>(space, "SELECT count(*) AS n FROM profiles");
    expect(await count()).toEqual([{ n: 1 }]);
    await expectProblem(await timelineResponse(space, { handle: phone("+15555550505") }), 404, "not_found");
    await expectProblem(await profileTimelineResponse(space, crypto.randomUUID()), 404, "not_found");
    expect(await count()).toEqual([{ n: 1 }]);
  });

  it("refuses a key without scope context with 403 scope_missing", async () => {
    const space = await createSpace();
    const handle = phone("+15555550506");
    await accept(space, [say(handle, Date.now() - MINUTE, "Hello.")]);
    const { profile_id } = await lookup(space, handle);
    const { key } = await createKey(space.tenant.token, space.sourceId, ["track", "search", "identify"]);
    await expectProblem(await timelineResponse(space, { handle }, key), 403, "scope_missing");
    await expectProblem(await profileTimelineResponse(space, profile_id, {}, key), 403, "scope_missing");
    expect((await timeline(space, { handle })).data.map((entry) => entry.text)).toEqual(["Hello."]);
  });
});
