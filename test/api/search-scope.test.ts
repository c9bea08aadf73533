import { describe, expect, it } from "vitest";
import { type SearchPage, SearchPageSchema } from "../../src/contract/search";
import { idToken } from "../../src/space/search/tokens";
import { createSource, lookup, personToken, phone } from "../support/identity";
import { frozenSpace, says, search, searchResponse } from "../support/search";
import { batch, call, json, type Space } from "../support/seed";

/**
 * Search's scope (docs/api/search.md "Restriction", "`mode: "fts5"`" and "Whose statistics"):
 * FTS5 syntax cannot reach past the profile or sources a search is kept to, and a scope of more
 * than 300 rows is ranked with the whole space's statistics.
 */

const ALICE = phone("+15555550301");
const BOB = phone("+15555550302");
const CAROL = phone("+15555550303");

const plainText = (snippet: string) => snippet.replaceAll("**", "").replaceAll("…", "");

/**
 * `query` in mode fts5 (POST, or the GET form of one profile): either searched (200, parsed with
 * the route's schema) or refused as syntax (422 `query: fts5_syntax_error`); the texts found.
 */
async function fts5Texts(space: Space, body: Record<string, unknown>, token: string, profileId?: string): Promise<string[]> {
  const response = profileId
    ? await call(
        "GET",
        `/spaces/${space.name}/v1/profiles/${profileId}/search?${new URLSearchParams({ q: String(body.query), mode: "fts5" })}`,
        { token },
      )
    : await searchResponse(space, { ...body, mode: "fts5" }, token);
  const text = await response.text();
  if (response.status === 422) {
    expect(JSON.parse(text).detail, `${JSON.stringify(body)}: ${text}`).toBe("query: fts5_syntax_error");
    return [];
  }
  expect(response.status, `${JSON.stringify(body)}: ${text}`).toBe(200);
  return SearchPageSchema.parse(JSON.parse(text)).results.map((result) => plainText(result.snippet));
}

/** Column filters, negations and prefixes aimed at the `profile`, `source` and `session` columns of `tokens`. */
function widening(tokens: readonly string[]): string[] {
  const everyHexPrefix = [..."0123456789abcdef"].map((digit) => `${digit}*`).join(" OR ");
  return tokens.flatMap((token) => [
    token,
    `${token.slice(0, 6)}*`,
    `"${token}"`,
    `profile : ${token}`,
    `source : ${token}`,
    `session : ${token}`,
    `"profile" : ${token}`,
    `PROFILE : ${token}`,
    `{profile source} : ${token}`,
    `{profile source session text} : ${token}`,
    `{profile source} : ${token.slice(0, 4)}*`,
    `profile : ${token.slice(0, 1)}*`,
    `source : ${token.slice(0, 1)}*`,
    `refund OR profile : ${token}`,
    `refund OR source : ${token}`,
    `refund OR {profile source} : ${token}*`,
    `(refund) OR ({profile source} : ${token})`,
    `refund NOT profile : ${token}`,
    `refund NOT source : ${token}`,
    `refund AND NOT profile : ${token}`,
    `NOT profile : ${token}`,
    `- text : ${token}`,
    `-{text} : refund`,
    `- {text session} : ${token}*`,
    `refund OR - {text} : ${token}`,
    `NEAR(refund ${token})`,
    `{profile source} : NEAR(${token} refund)`,
    `refund) OR (profile : ${token}`,
    `refund) OR (source : ${token}`,
    `refund") OR (profile : ${token}`,
    `refund OR {profile source} : (${everyHexPrefix})`,
    `{profile source session} : (${everyHexPrefix})`,
    `^${token}`,
    `refund + profile : ${token}`,
  ]);
}

describe("POST /v1/search: mode fts5 cannot widen the scope", () => {
  it("keeps a search with handle, and a vendor's search, to their rows whatever column filters the query holds", async () => {
    const space = await frozenSpace();
    const second = await createSource(space, ["track"]);
    const texts = {
      aliceFirst: "refund for alice through the agent source",
      bob: "refund for bob through the agent source",
      aliceSecond: "refund for alice through the system source",
      carol: "refund for carol through the system source",
    };
    await json(await batch(space, [says(ALICE, texts.aliceFirst), says(BOB, texts.bob)]), 200);
    await json(await batch(space, [says(ALICE, texts.aliceSecond), says(CAROL, texts.carol)], second.key), 200);
    const profileOf = async (handle: typeof ALICE) => (await lookup(space, handle)).profile_id;
    const [alice, bob, carol] = [await profileOf(ALICE), await profileOf(BOB), await profileOf(CAROL)];
    const [agentSource, systemSource] = [idToken(space.sourceId), idToken(second.sourceId)];
    const vendor = await personToken(space, ["vendor"], [second.sourceId]);

    // What each search may show, found by a plain fts5 query: the scope holds, and the rows are there to leak.
    const aliceRows = [texts.aliceFirst, texts.aliceSecond].sort();
    const vendorRows = [texts.aliceSecond, texts.carol].sort();
    expect((await fts5Texts(space, { query: "refund", handle: ALICE }, space.key)).sort()).toEqual(aliceRows);
    expect((await fts5Texts(space, { query: "refund" }, vendor)).sort()).toEqual(vendorRows);
    expect((await fts5Texts(space, { query: "refund" }, space.key)).length).toBe(4);

    const others = [idToken(bob), idToken(carol), agentSource, systemSource, idToken(alice)];
    for (const query of widening(others)) {
      for (const texts of [
        await fts5Texts(space, { query, handle: ALICE }, space.key),
        await fts5Texts(space, { query }, space.key, alice),
      ]) {
        for (const text of texts) expect(aliceRows, `handle: ${query}`).toContain(text);
      }
      for (const texts of [await fts5Texts(space, { query }, vendor), await fts5Texts(space, { query, handle: ALICE }, vendor)]) {
        for (const text of texts) expect(vendorRows, `vendor: ${query}`).toContain(text);
      }
    }
    // A negation of a column the text column cannot hold leaves the query as it was: the scope's rows, no more.
    expect(
      (await fts5Texts(space, { query: `refund NOT profile : ${idToken(alice)}`, handle: ALICE }, space.key)).sort(),
    ).toEqual(aliceRows);
    expect((await fts5Texts(space, { query: `refund NOT source : ${systemSource}` }, vendor)).sort()).toEqual(vendorRows);
  });
});

/** Every page of a search, `limit` at a time. */
async function allPages(space: Space, body: Record<string, unknown>, limit: number): Promise<SearchPage["results"]> {
  const seen: SearchPage["results"] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10; page++) {
    const answer: SearchPage = await search(space, { ...body, limit, ...(cursor ? { cursor } : {}) });
    expect(answer.results.length).toBeLessThanOrEqual(limit);
    seen.push(...answer.results);
    cursor = answer.next_cursor;
    if (!cursor) return seen;
    expect(answer.results).toHaveLength(limit);
  }
  throw new Error("more pages than expected");
}

describe("POST /v1/search: whose statistics", () => {
  it("ranks a customer's history of more than 300 rows with its own counts, from every row with a rare word", async () => {
    const space = await frozenSpace();
    const t0 = Date.now() - 86_400_000;
    const at = (minute: number) => new Date(t0 + minute * 60_000).toISOString();
    // Each message in a conversation of its own: no row borrows another's words as turns before it.
    const own = (handle: typeof ALICE, text: string, minute: number, name: string) =>
      says(handle, text, { conversation_id: name, occurred_at: at(minute) });
    // Indexed first and last (one batch each), so that neither a cut by the oldest rows nor by the
    // newest keeps both; and `parcel` in more than 500 rows of the space, a frequent word.
    await json(await batch(space, [own(ALICE, "the zephyr heater is broken", 0, "z-first")]), 200);
    await json(
      await batch(space, [
        ...Array.from({ length: 320 }, (_, i) => own(ALICE, `parcel number ${i} is late`, 10 + i, `a-${i}`)),
        // The same texts, in Alice's history and Carol's: a courier turn older than a refund turn.
        own(ALICE, "courier pending", 400, "a-courier"),
        own(ALICE, "refund pending", 401, "a-refund"),
        own(CAROL, "courier pending", 400, "c-courier"),
        own(CAROL, "refund pending", 401, "c-refund"),
      ]),
      200,
    );
    await json(
      await batch(
        space,
        Array.from({ length: 200 }, (_, i) =>
          own(phone(`+1555558${String(1000 + i).padStart(4, "0")}`), `parcel ${i} refund due`, 500 + i, `o-${i}`),
        ),
      ),
      200,
    );
    await json(await batch(space, [own(ALICE, "the quokka toy squeaks", 5, "z-last")]), 200);
    const alice = (await lookup(space, ALICE)).profile_id;

    // `refund` is in 202 rows of the space, `courier` in 2. In Carol's two rows (a scope of at
    // most 300) each is in one row: the same weight, so the newer turn comes first on a tie.
    const carol = await search(space, { query: "refund courier", handle: CAROL });
    expect(carol.results.map((result) => plainText(result.snippet))).toEqual(["refund pending", "courier pending"]);
    expect(carol.results[0]?.score).toBe(carol.results[1]?.score);
    // Alice's history holds 324 rows: counted in them, each is in one row too, as for Carol
    // (the space's counts would weigh `courier` above `refund`).
    const mine = await search(space, { query: "refund courier", handle: ALICE });
    expect(mine.results.map((result) => plainText(result.snippet))).toEqual(["refund pending", "courier pending"]);
    expect(mine.results[0]?.score).toBe(mine.results[1]?.score);

    // Rare words: their rows are candidates wherever they were indexed, and come first; the
    // frequent word adds its newest rows, 300 candidates in all, each on one page only.
    const seen = await allPages(space, { query: "zephyr quokka parcel", handle: ALICE }, 200);
    expect(
      seen
        .slice(0, 2)
        .map((result) => plainText(result.snippet))
        .sort(),
    ).toEqual(["the quokka toy squeaks", "the zephyr heater is broken"]);
    expect(seen).toHaveLength(300);
    expect(new Set(seen.map((result) => result.id)).size).toBe(300);
    expect(seen.every((result) => result.profile_id === alice)).toBe(true);
    expect(seen.slice(2).every((result) => /^\*\*parcel\*\* number \d+ is late$/.test(result.snippet))).toBe(true);
    const scores = seen.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The parcel rows kept are the newest indexed: the last 298 of the 320.
    const numbers = seen.slice(2).map((result) => Number(/number (\d+)/.exec(result.snippet)?.[1]));
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 298 }, (_, i) => 22 + i));
  });
  it("ranks a customer's history of more than 5,000 rows with the whole space's statistics", async () => {
    const space = await frozenSpace();
    const t0 = Date.now() - 86_400_000;
    const at = (minute: number) => new Date(t0 + minute * 60_000).toISOString();
    const own = (handle: typeof ALICE, text: string, minute: number, name: string) =>
      says(handle, text, { conversation_id: name, occurred_at: at(minute) });
    const history = [
      ...Array.from({ length: 5_000 }, (_, i) => own(ALICE, `parcel number ${i} is late`, i, `a-${i}`)),
      own(ALICE, "courier pending", 6_000, "a-courier"),
      own(ALICE, "refund pending", 6_001, "a-refund"),
      ...Array.from({ length: 200 }, (_, i) =>
        own(phone(`+1555558${String(1000 + i).padStart(4, "0")}`), `parcel ${i} refund due`, 7_000 + i, `o-${i}`),
      ),
    ];
    for (let i = 0; i < history.length; i += 500) await json(await batch(space, history.slice(i, i + 500)), 200);
    // A search of the whole space first indexes every message waiting: a customer's search indexes
    // only theirs, and the others' `refund` rows may not be counted yet when the alarm is behind.
    expect((await search(space, { query: "refund", limit: 1 })).results).toHaveLength(1);
    // `refund` is in 201 rows of the space, `courier` in 1: the space's counts weigh `courier` above.
    const mine = await search(space, { query: "refund courier", handle: ALICE });
    expect(mine.results.map((result) => plainText(result.snippet))).toEqual(["courier pending", "refund pending"]);
    expect(mine.results[0]?.score).toBeGreaterThan(mine.results[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it("reads the rarest word's rows first: two rare words in more than 300 rows together keep the rarer's early rows", async () => {
    const space = await frozenSpace();
    const t0 = Date.now() - 86_400_000;
    const at = (minute: number) => new Date(t0 + minute * 60_000).toISOString();
    const own = (text: string, minute: number, name: string) =>
      says(ALICE, text, { conversation_id: name, occurred_at: at(minute) });
    // `zorbic` in 3 rows indexed first; `quimble` in 400 newer rows: both rare (at most 500 rows).
    await json(
      await batch(
        space,
        [0, 1, 2].map((i) => own(`the zorbic valve ${i} leaks`, i, `z-${i}`)),
      ),
      200,
    );
    await json(
      await batch(
        space,
        Array.from({ length: 400 }, (_, i) => own(`quimble order ${i}`, 10 + i, `q-${i}`)),
      ),
      200,
    );
    const found = await search(space, { query: "zorbic quimble", limit: 10 });
    expect(
      found.results
        .slice(0, 3)
        .map((result) => plainText(result.snippet))
        .sort(),
    ).toEqual(["the zorbic valve 0 leaks", "the zorbic valve 1 leaks", "the zorbic valve 2 leaks"]);
    expect(found.results.slice(3).every((result) => plainText(result.snippet).startsWith("quimble order"))).toBe(true);
  });
});
