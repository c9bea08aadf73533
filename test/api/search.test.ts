import { describe, expect, it } from "vitest";
import { type SearchPage, SearchPageSchema } from "../../src/contract/search";
import {
  createSource,
  email,
  expectProblem,
  identifyItem,
  lookup,
  lookupResponse,
  personToken,
  phone,
} from "../support/identity";
import { later } from "../support/memory";
import { frozenSpace, says, search, searchResponse } from "../support/search";
import { batch, call, createKey, json, message, type Space } from "../support/seed";

/**
 * Full-text search (README "Search"): BM25 over messages, transcripts, episode summaries and
 * facts, restricted to one profile (and the profiles merged into it) by handle or id. Hostile
 * queries: search-hostile-queries.properties.test.ts.
 */

async function profileSearch(space: Space, id: string, query: Record<string, string>, token = space.key): Promise<SearchPage> {
  const path = `/spaces/${space.name}/v1/profiles/${encodeURIComponent(id)}/search?${new URLSearchParams(query)}`;
  return SearchPageSchema.parse(await json(await call("GET", path, { token }), 200));
}

/** Messages that make everyday words common in the space, as they are in any real one. */
const chatter = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    says(
      phone(`+1555555${String(1000 + i).padStart(4, "0")}`),
      `What did she say about the weather on day ${i}? I think she said it is fine.`,
    ),
  );

const ALICE = phone("+15555550101");

const BOB = phone("+15555550102");

describe("POST /v1/search: ranking", () => {
  it("ranks results with more and rarer terms first, and common words never outrank a rare one", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        ...chatter(30),
        says(ALICE, "The refund for the blender was approved."),
        says(ALICE, "Your refund and the invoice for the blender are on the way."),
        says(ALICE, "What did she say about the the weather, she said what she said about it."),
      ]),
      200,
    );
    const question = await search(space, { query: "what did she say about the refund?" });
    expect(question.results[0]?.snippet).toContain("**refund**");
    expect(question.results[1]?.snippet).toContain("**refund**");
    // Six common words do not beat one rare word.
    const commonOnly = question.results.findIndex((result) =>
      result.snippet.replaceAll("**", "").includes("the weather, she said what"),
    );
    expect(commonOnly).toBeGreaterThan(1);

    const both = await search(space, { query: "refund invoice blender" });
    expect(both.results[0]?.snippet).toContain("**invoice**");
    expect(both.results[1]?.snippet).toContain("**refund**");
    expect(both.results.map((result) => result.score)).toEqual(
      [...both.results.map((result) => result.score)].sort((a, b) => b - a),
    );
    // The turn after the invoice message holds none of the words: it comes last, by the words of the turn before it.
    expect(both.results.map((result) => result.snippet.includes("**"))).toEqual([true, true, false]);
  });

  it("answers a natural question with the message that answers it", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        ...chatter(20),
        says(ALICE, "Hi, I would like to change my delivery address to Calle Mayor 5."),
        says(ALICE, "The courier said the parcel is delayed until Friday."),
        says(BOB, "Can I pay with a gift card?"),
      ]),
      200,
    );
    const answer = await search(space, { query: "When is the parcel arriving? Was it delayed?", handle: ALICE });
    // "When", "is", "the", "was" and "it" are function words: they weigh nothing and are not marked.
    expect(answer.results[0]?.snippet).toBe("The courier said the **parcel** is **delayed** until Friday.");
    expect(answer.results[0]).toMatchObject({ kind: "message", channel: "whatsapp", conversation_id: `c-${ALICE.value}` });
  });

  it("ranks one customer's history by what is rare within it, not within the whole space", async () => {
    const space = await frozenSpace();
    const everyone = Array.from({ length: 40 }, (_, i) =>
      says(phone(`+1555556${String(1000 + i).padStart(4, "0")}`), "When will the parcel arrive? It should arrive today."),
    );
    const orders = Array.from({ length: 5 }, (_, i) => says(ALICE, `About my order ${i}: the order was placed in the app.`));
    await json(await batch(space, [...everyone, ...orders, says(ALICE, "The courier says it will arrive on Friday.")]), 200);
    // Over the space, `arrive` is everywhere and `order` is rare; in Alice's history, the reverse.
    const answer = await search(space, { query: "When will my order arrive?", handle: ALICE });
    expect(answer.results).toHaveLength(6);
    expect(answer.results[0]?.snippet).toBe("The courier says it will **arrive** on Friday.");
  });

  it("leaves out an episode summary that only repeats its conversation's messages", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        says(ALICE, "Where is my wardrobe? It was due on Monday."),
        says(ALICE, "The wardrobe ships tomorrow by courier.", { speaker: { role: "ai_agent" } }),
        says(ALICE, "", {
          kind: "system_event",
          canonical_type: "order.dispatched",
          speaker: { role: "system" },
          content: undefined,
        }),
      ]),
      200,
    );
    await later(space, 1_000);
    const quoted = await search(space, { query: "wardrobe courier", handle: ALICE });
    expect(quoted.results.map((result) => result.kind)).toEqual(["message", "message"]);
    // A word of the summary that no message holds (here the event it records) brings it back.
    const found = await search(space, { query: "wardrobe dispatched", handle: ALICE });
    expect(found.results.map((result) => result.kind)).toContain("episode");
  });

  it("finds episodes by what happened in them, not by the summary's bookkeeping", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        says(ALICE, "Where is my wardrobe?"),
        says(ALICE, "It ships tomorrow.", { speaker: { role: "ai_agent" } }),
      ]),
      200,
    );
    await later(space, 1_000);
    const all = await search(space, { query: "wardrobe", handle: ALICE, mode: "fts5" });
    expect(all.results.map((result) => result.kind)).toContain("episode");
    // Channels and message counts are fields, not summary text: words every episode would share find none.
    for (const query of ["messages", "customer agent", "via"]) {
      const bookkeeping = await search(space, { query, handle: ALICE });
      expect(
        bookkeeping.results.map((result) => result.kind),
        query,
      ).not.toContain("episode");
    }
  });

  it("ignores case and accents, in the text and in the query", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [says(ALICE, "Quiero el REEMBOLSO del pedido del Café Olé"), says(BOB, "nothing to see")]),
      200,
    );
    for (const query of ["reembolso cafe", "CAFÉ", "ole", "Reémbolso"]) {
      const found = await search(space, { query });
      expect(
        found.results.map((result) => result.snippet),
        query,
      ).toHaveLength(1);
    }
    expect((await search(space, { query: "cafe" })).results[0]?.snippet).toBe("Quiero el REEMBOLSO del pedido del **Café** Olé");
  });
});

describe("POST /v1/search: word forms, function words and the turns before", () => {
  it("finds other forms of a word, asked in any form; mode fts5 keeps the exact tokens", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        ...chatter(10),
        says(ALICE, "We moved your parcel to the new depot"),
        says(BOB, "I am moving house next week"),
      ]),
      200,
    );
    for (const query of ["moving", "moves", "Move"]) {
      const found = await search(space, { query });
      expect(found.results.map((result) => result.snippet).sort(), query).toEqual([
        "I am **moving** house next week",
        "We **moved** your parcel to the new depot",
      ]);
    }
    expect((await search(space, { query: "move", mode: "fts5" })).results).toHaveLength(0);
    expect((await search(space, { query: "moved", mode: "fts5" })).results.map((result) => result.snippet)).toEqual([
      "We **moved** your parcel to the new depot",
    ]);
  });

  it("finds an irregular form by its base and the base by its forms, and marks the form written", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        ...chatter(10),
        says(ALICE, "Just a bit late today"),
        says(ALICE, "I bought two chargers and both broke"),
        says(BOB, "We will buy back the broken one"),
      ]),
      200,
    );
    for (const query of ["buy", "bought", "buying"]) {
      const found = await search(space, { query });
      expect(found.results.map((result) => result.snippet).sort(), query).toEqual([
        "I **bought** two chargers and both broke",
        "We will **buy** back the broken one",
      ]);
    }
    expect((await search(space, { query: "did it break" })).results.map((result) => result.snippet).sort()).toEqual([
      "I bought two chargers and both **broke**",
      "We will buy back the **broken** one",
    ]);
    // "a bit" is no form of "bite"; fts5 mode keeps exact tokens.
    expect((await search(space, { query: "bite" })).results).toHaveLength(0);
    expect((await search(space, { query: "buy", mode: "fts5" })).results).toHaveLength(1);
  });

  it("gives function words no weight on either side, and searches a query made only of them word for word", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        says(ALICE, "Where is it? I have been waiting all day"),
        says(BOB, "The refund is on its way"),
        says(phone("+15555550103"), "Refunds take a week"),
      ]),
      200,
    );
    // "is", "it" and "the" match Alice's message, but carry nothing: only the refunds are found.
    const refund = await search(space, { query: "is it the refund?" });
    expect(refund.results.map((result) => result.snippet)).toEqual(["The **refund** is on its way", "**Refunds** take a week"]);
    // Nothing but function words: each is a word to find, as written.
    const only = await search(space, { query: "where is it" });
    expect(only.results.map((result) => result.snippet)).toEqual([
      "**Where** **is** **it**? I have been waiting all day",
      "The refund **is** on its way",
    ]);
  });

  it("leaves a token over 64 characters out of plain mode, unless the query has nothing else: then it is searched word for word", async () => {
    const space = await frozenSpace();
    const blob = `k${"9".repeat(70)}`;
    await json(await batch(space, [says(ALICE, `my key is ${blob} thanks`), says(BOB, "my door is blue")]), 200);
    // With a word beside it, the long token is no term: "door" alone is searched.
    const beside = await search(space, { query: `${blob} door` });
    expect(beside.results.map((result) => result.snippet)).toEqual(["my **door** is blue"]);
    // Alone (or with function words only), the query is searched word for word, and finds it as written.
    const alone = await search(space, { query: blob });
    expect(alone.results.map((result) => result.snippet)).toEqual([`my key is **${blob}** thanks`]);
    const withFunctionWords = await search(space, { query: `where is ${blob}` });
    expect(withFunctionWords.results.map((result) => result.snippet)).toEqual([
      `my key **is** **${blob}** thanks`,
      "my door **is** blue",
    ]);
    expect((await search(space, { query: blob, mode: "fts5" })).results).toHaveLength(1);
  });

  it("finds the answer by the words of the question before it, and returns the answer itself", async () => {
    const space = await frozenSpace();
    const at = (minute: number) => new Date(Date.now() - 3_600_000 + minute * 60_000).toISOString();
    await json(
      await batch(space, [
        ...chatter(10),
        says(ALICE, "Has my wardrobe been dispatched yet?", { occurred_at: at(0) }),
        says(BOB, "Thanks, all good here", { occurred_at: at(1) }),
      ]),
      200,
    );
    // The agent answers in a later batch, and says "it": none of the question's words.
    const answer = "Yes, it left our warehouse this morning, tracking 7781.";
    await json(await batch(space, [says(ALICE, answer, { occurred_at: at(2), speaker: { role: "ai_agent" } })]), 200);
    const found = await search(space, { query: "was the wardrobe dispatched?" });
    expect(found.results.map((result) => result.snippet.replaceAll("**", ""))).toEqual([
      "Has my wardrobe been dispatched yet?",
      answer,
    ]);
    expect(found.results[1]).toMatchObject({ kind: "message", snippet: answer, conversation_id: `c-${ALICE.value}` });
    expect(found.results[1]?.score).toBeLessThan(found.results[0]?.score ?? 0);
    // Bob's message came right after the question, in another conversation: it borrows nothing.
    expect(found.results.some((result) => result.snippet.includes("all good"))).toBe(false);
  });
});

describe("POST /v1/search: snippets and what is indexed", () => {
  it("cuts long texts around the matched words and marks each one", async () => {
    const space = await frozenSpace();
    const long = `${"Lorem ipsum dolor sit amet. ".repeat(20)}Then the tracking number ZX9981 stopped updating. ${"Consectetur adipiscing elit. ".repeat(20)}`;
    await json(await batch(space, [says(ALICE, long)]), 200);
    const [result] = (await search(space, { query: "tracking zx9981" })).results;
    expect(result?.snippet).toMatch(/^….*\*\*tracking\*\* number \*\*ZX9981\*\*.*…$/);
    expect(result?.snippet.length).toBeLessThan(250);
  });

  it("indexes transcripts at once, and episode summaries and facts when their session compiles", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        says(ALICE, "My postcode is 28001. Where is my wardrobe?"),
        message({
          handles: [ALICE],
          channel: "voice",
          conversation_id: "call-1",
          content: { type: "audio", transcript: "caller asked about the wardrobe assembly" },
        }),
      ]),
      200,
    );
    const before = await search(space, { query: "wardrobe 28001", handle: ALICE });
    expect(before.results.map((result) => result.kind).sort()).toEqual(["message", "transcript"]);

    await later(space, 1_000);
    const after = await search(space, { query: "wardrobe 28001 postcode", handle: ALICE });
    expect(after.results.find((result) => result.kind === "fact")?.snippet).toBe("**postcode**: **28001**");
    // The summary only quotes the message here, so plain text leaves it out; FTS5 syntax shows every row.
    const rows = await search(space, { query: "wardrobe", handle: ALICE, mode: "fts5" });
    expect(new Set(rows.results.map((result) => result.kind))).toEqual(new Set(["episode", "message", "transcript"]));

    // A recompile replaces the session's derived rows: never two of the same fact.
    await json(await batch(space, [says(ALICE, "Thanks, the wardrobe arrived.")]), 200);
    await later(space, 1_000);
    const again = await search(space, { query: "postcode", handle: ALICE });
    expect(again.results.filter((result) => result.kind === "fact")).toHaveLength(1);
  });

  it("leaves out a fact that feedback retracted or corrected; the messages that stated it stay searchable", async () => {
    const space = await frozenSpace();
    await json(await batch(space, [says(ALICE, "My tier is gold. My postcode is 28001.")]), 200);
    await later(space, 1_000);
    const factsOf = async (query: string) =>
      (await search(space, { query, handle: ALICE })).results.filter((result) => result.kind === "fact");
    const [tier] = await factsOf("tier gold");
    const [postcode] = await factsOf("postcode 28001");
    expect([tier?.snippet, postcode?.snippet]).toEqual(["**tier**: **gold**", "**postcode**: **28001**"]);
    const feedback = (item: Record<string, unknown>) =>
      call("POST", `/spaces/${space.name}/v1/feedback`, {
        token: space.key,
        body: { items: [{ idempotency_key: crypto.randomUUID(), ...item }] },
      });
    expect(await json(await feedback({ action: "retract_fact", fact_id: tier?.id }), 200)).toMatchObject({ accepted: 1 });
    expect(await json(await feedback({ action: "correct_fact", fact_id: postcode?.id, value: "28002" }), 200)).toMatchObject({
      accepted: 1,
    });
    // At once, in both modes: the index keeps the value as stated, and a result shows no status.
    for (const [query, mode] of [
      ["tier gold", "plain"],
      ["postcode 28001 28002", "plain"],
      ["tier OR gold", "fts5"],
      ["postcode OR 28001", "fts5"],
    ]) {
      const kinds = (await search(space, { query, mode, handle: ALICE })).results.map((result) => result.kind);
      expect(kinds, `${mode} ${query}`).toContain("message");
      expect(kinds, `${mode} ${query}`).not.toContain("fact");
    }
    // A newer statement of the key is a fact of its own, found again.
    await json(await batch(space, [says(ALICE, "My tier is silver.")]), 200);
    await later(space, 1_000);
    expect((await factsOf("tier")).map((result) => result.snippet)).toEqual(["**tier**: silver"]);
  });
});

describe("POST /v1/search and GET /v1/profiles/{id}/search: one profile", () => {
  it("keeps to the profile of the handle, and gathers the profiles merged into it", async () => {
    const space = await frozenSpace();
    const carol = email("carol@example.com");
    await json(
      await batch(space, [
        says(ALICE, "my espresso machine leaks"),
        says(BOB, "my espresso machine is great"),
        says(carol, "the espresso machine warranty card is lost"),
      ]),
      200,
    );
    const alice = await search(space, { query: "espresso", handle: ALICE });
    expect(alice.results.map((result) => result.snippet)).toEqual(["my **espresso** machine leaks"]);
    const everyone = await search(space, { query: "espresso" });
    expect(everyone.results).toHaveLength(3);

    const carolBefore = await lookup(space, carol);
    await json(await batch(space, [identifyItem([ALICE, carol])]), 200);
    const merged = await search(space, { query: "espresso machine", handle: ALICE });
    expect(merged.results.map((result) => result.snippet).sort()).toEqual([
      "my **espresso** **machine** leaks",
      "the **espresso** **machine** warranty card is lost",
    ]);
    const survivor = (await lookup(space, ALICE)).profile_id;
    expect(new Set(merged.results.map((result) => result.profile_id))).toEqual(new Set([survivor]));
    // By id, the merged-away id answers for its survivor, with the same results.
    const byId = await profileSearch(space, carolBefore.profile_id, { q: "espresso machine" });
    expect(byId.results.map((result) => result.id).sort()).toEqual(merged.results.map((result) => result.id).sort());
  });

  it("answers an unknown handle or id with 404 and creates nothing", async () => {
    const space = await frozenSpace();
    await json(await batch(space, [says(ALICE, "hello there")]), 200);
    const stranger = phone("+15555550199");
    await expectProblem(await searchResponse(space, { query: "hello", handle: stranger }), 404, "not_found");
    await expectProblem(await lookupResponse(space, stranger), 404, "not_found");
    const path = `/spaces/${space.name}/v1/profiles/${crypto.randomUUID()}/search?q=hello`;
    await expectProblem(await call("GET", path, { token: space.key }), 404, "not_found");
  });
});

describe("POST /v1/search: who may search", () => {
  it("refuses a key without scope search with 403 scope_missing, and admits a person with role review", async () => {
    const space = await frozenSpace();
    const contextOnly = await createKey(space.tenant.token, space.sourceId, ["context", "track"]);
    await expectProblem(await searchResponse(space, { query: "x" }, contextOnly.key), 403, "scope_missing");
    const reviewer = await personToken(space, ["review"]);
    await json(await batch(space, [says(ALICE, "reviewers can read this")]), 200);
    expect((await search(space, { query: "reviewers" }, reviewer)).results).toHaveLength(1);
    await expectProblem(await searchResponse(space, { query: "x" }, await personToken(space, ["analysis"])), 403, "forbidden");
  });

  it("shows a vendor person only what their bound sources wrote", async () => {
    const space = await frozenSpace();
    const second = await createSource(space, ["track"]);
    await json(await batch(space, [says(ALICE, "invoice from the agent source")]), 200);
    await json(await batch(space, [says(ALICE, "invoice from the system source")], second.key), 200);
    const vendor = await personToken(space, ["vendor"], [second.sourceId]);
    const seen = await search(space, { query: "invoice" }, vendor);
    expect(seen.results.map((result) => result.snippet)).toEqual(["**invoice** from the system source"]);
    expect((await search(space, { query: "invoice", handle: ALICE }, vendor)).results).toHaveLength(1);
    // A key sees both.
    const all = await search(space, { query: "invoice" });
    expect(all.results.filter((result) => result.kind === "message")).toHaveLength(2);
  });

  it("matches a vendor's search on their sources' own words only, never on the turns another source wrote before", async () => {
    const space = await frozenSpace();
    const second = await createSource(space, ["track"]);
    const at = (minute: number) => new Date(Date.now() - 3_600_000 + minute * 60_000).toISOString();
    // The first source writes the customer's message; the vendor's source answers in the same conversation.
    await json(await batch(space, [says(ALICE, "my passport is X1234567", { occurred_at: at(0) })]), 200);
    await json(
      await batch(space, [says(ALICE, "Thanks, noted", { occurred_at: at(1), speaker: { role: "ai_agent" } })], second.key),
      200,
    );
    const vendor = await personToken(space, ["vendor"], [second.sourceId]);
    // The reply holds the message's words as near words: a vendor cannot test guesses against them.
    for (const body of [{ query: "X1234567" }, { query: "X1234567", handle: ALICE }, { query: "passport number" }]) {
      expect((await search(space, body, vendor)).results, JSON.stringify(body)).toEqual([]);
    }
    // Their own words still find their own row.
    expect((await search(space, { query: "noted" }, vendor)).results.map((result) => result.snippet)).toEqual([
      "Thanks, **noted**",
    ]);
    // Past 300 rows of their sources, the vendor's search is ranked over the whole index: the same holds.
    const filler = Array.from({ length: 300 }, (_, i) =>
      says(phone(`+1555557${String(1000 + i).padStart(4, "0")}`), `filler ${i}`),
    );
    await json(await batch(space, filler, second.key), 200);
    expect((await search(space, { query: "X1234567 passport" }, vendor)).results).toEqual([]);
    expect((await search(space, { query: "noted" }, vendor)).results).toHaveLength(1);
    // A reviewer, who reads every source, finds the reply through the words of the turn before it.
    const reviewer = await personToken(space, ["review"]);
    for (const body of [{ query: "X1234567" }, { query: "X1234567", handle: ALICE }]) {
      const seen = await search(space, body, reviewer);
      expect(
        seen.results.map((result) => result.snippet),
        JSON.stringify(body),
      ).toEqual(["my passport is **X1234567**", "Thanks, noted"]);
    }
  });

  it("shows a vendor an episode of their sources alone, never one whose events came from another source too", async () => {
    const space = await frozenSpace();
    const second = await createSource(space, ["track"]);
    // Alice's conversation has events of both sources; Bob's of the second source alone.
    await json(await batch(space, [says(ALICE, "my wardrobe door is cracked")]), 200);
    await json(
      await batch(
        space,
        [says(ALICE, "a new wardrobe door ships tomorrow", { speaker: { role: "ai_agent" } }), says(BOB, "the wardrobe arrived")],
        second.key,
      ),
      200,
    );
    await later(space, 1_000);
    const episodesOf = (page: SearchPage) =>
      page.results.filter((result) => result.kind === "episode").map((result) => result.profile_id);
    const [alice, bob] = [(await lookup(space, ALICE)).profile_id, (await lookup(space, BOB)).profile_id];
    expect(episodesOf(await search(space, { query: "wardrobe", mode: "fts5" })).sort()).toEqual([alice, bob].sort());
    const vendor = await personToken(space, ["vendor"], [second.sourceId]);
    const seen = await search(space, { query: "wardrobe", mode: "fts5" }, vendor);
    expect(episodesOf(seen)).toEqual([bob]);
    expect(seen.results.filter((result) => result.kind === "message")).toHaveLength(2);
  });
});

describe("POST /v1/search: input", () => {
  it("pages with an opaque cursor, and refuses one it did not issue", async () => {
    const space = await frozenSpace();
    await json(
      await batch(
        space,
        Array.from({ length: 5 }, (_, i) => says(ALICE, `parcel number ${i} lost`)),
      ),
      200,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer: SearchPage = await search(space, { query: "parcel lost", limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...answer.results.map((result) => result.id));
      cursor = answer.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const bad = await expectProblem(
      await searchResponse(space, { query: "parcel", cursor: "bm90LWEtY3Vyc29y" }),
      422,
      "invalid_input",
    );
    expect(bad.detail).toBe("cursor: not_issued_by_this_service");
  });

  it("refuses a cursor issued for another search: another query, mode, profile or viewer's sources", async () => {
    const space = await frozenSpace();
    await json(
      await batch(
        space,
        Array.from({ length: 4 }, (_, i) => says(i % 2 ? ALICE : BOB, `parcel number ${i} lost`)),
      ),
      200,
    );
    const first = await search(space, { query: "parcel lost", limit: 1 });
    const cursor = first.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);
    for (const [body, token] of [
      [{ query: "parcel" }, space.key],
      [{ query: "parcel lost", mode: "fts5" }, space.key],
      [{ query: "parcel lost", handle: ALICE }, space.key],
      [{ query: "parcel lost" }, vendor],
    ] as const) {
      const refused = await expectProblem(
        await searchResponse(space, { ...body, limit: 1, cursor }, token),
        422,
        "invalid_input",
      );
      expect(refused.detail, JSON.stringify(body)).toBe("cursor: not_issued_for_this_search");
    }
    // The search that issued it still pages with it.
    const next = await search(space, { query: "parcel lost", limit: 1, cursor });
    expect(next.results).toHaveLength(1);
    expect(next.results[0]?.id).not.toBe(first.results[0]?.id);
    // One profile's cursor, in the GET form: bound to that profile and query, named `query.cursor`.
    const alice = (await lookup(space, ALICE)).profile_id;
    const mine = await profileSearch(space, alice, { q: "parcel lost", limit: "1" });
    const path = `/spaces/${space.name}/v1/profiles/${alice}/search?`;
    const other = new URLSearchParams({ q: "parcel", limit: "1", cursor: mine.next_cursor as string });
    const refused = await expectProblem(await call("GET", `${path}${other}`, { token: space.key }), 422, "invalid_input");
    expect(refused.detail).toBe("query.cursor: not_issued_for_this_search");
    const same = await profileSearch(space, alice, { q: "parcel lost", limit: "1", cursor: mine.next_cursor as string });
    expect(same.results).toHaveLength(1);
  });

  it("answers 20 results by default, equal scores newest first", async () => {
    const space = await frozenSpace();
    const t0 = Date.now() - 3_600_000;
    // The same words in 25 conversations: 25 rows of one score, each dated a minute after the last.
    const items = Array.from({ length: 25 }, (_, i) =>
      says(ALICE, "my quorbel parcel is late", {
        conversation_id: `tie-${i}`,
        occurred_at: new Date(t0 + i * 60_000).toISOString(),
      }),
    );
    await json(await batch(space, items), 200);
    const page = await search(space, { query: "quorbel parcel", handle: ALICE, mode: "fts5" });
    expect(page.results).toHaveLength(20);
    expect(page.next_cursor).not.toBeNull();
    const dates = page.results.map((result) => result.occurred_at);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates[0]).toBe(new Date(t0 + 24 * 60_000).toISOString());
    const plain = await search(space, { query: "quorbel parcel", handle: ALICE });
    expect(plain.results.map((result) => result.occurred_at)).toEqual(dates);
  });

  it("orders equal scores by when they happened, not by when they were indexed, and pages through them once each", async () => {
    const space = await frozenSpace();
    const t0 = Date.now() - 3_600_000;
    // The newer message arrives first (a batch stores its own items in time order, so two batches):
    // it is indexed first, and rowid order is the reverse of time.
    const [newer, older] = [new Date(t0 + 60_000).toISOString(), new Date(t0).toISOString()];
    await json(
      await batch(space, [says(ALICE, "my quorbel parcel is late", { conversation_id: "tie-newer", occurred_at: newer })]),
      200,
    );
    await json(
      await batch(space, [says(ALICE, "my quorbel parcel is late", { conversation_id: "tie-older", occurred_at: older })]),
      200,
    );
    for (const body of [
      { query: "quorbel parcel" },
      { query: "quorbel parcel", handle: ALICE },
      { query: "quorbel", mode: "fts5" },
    ]) {
      const both = await search(space, body);
      expect(
        both.results.map((result) => result.occurred_at),
        JSON.stringify(body),
      ).toEqual([newer, older]);
      expect(both.results[0]?.score).toBe(both.results[1]?.score);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 4; page++) {
        const answer: SearchPage = await search(space, { ...body, limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(...answer.results.map((result) => result.occurred_at));
        cursor = answer.next_cursor;
        if (!cursor) break;
      }
      expect(seen, JSON.stringify(body)).toEqual([newer, older]);
    }
  });

  it("answers at most 300 results in fts5 mode, the best by its bm25 first, paging through them", async () => {
    const space = await frozenSpace();
    // 320 matching rows, the last 10 of them saying the word three times (a higher bm25).
    const items = Array.from({ length: 320 }, (_, i) =>
      says(ALICE, i >= 310 ? "zintle zintle zintle" : `zintle number ${i} and more words here`, { conversation_id: `cap-${i}` }),
    );
    await json(await batch(space, items), 200);
    const seen: SearchPage["results"] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const answer: SearchPage = await search(space, {
        query: "zintle",
        mode: "fts5",
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...answer.results);
      cursor = answer.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(300);
    expect(new Set(seen.map((result) => result.id)).size).toBe(300);
    const scores = seen.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(seen.slice(0, 10).every((result) => result.snippet === "**zintle** **zintle** **zintle**")).toBe(true);
  });

  it("refuses unknown fields and a limit over 200 with 422", async () => {
    const space = await frozenSpace();
    for (const body of [{ query: "x", extra: 1 }, { query: "x", limit: 201 }, { query: "" }, {}, { query: "x", mode: "regex" }]) {
      await expectProblem(await searchResponse(space, body), 422, "invalid_input");
    }
    const path = `/spaces/${space.name}/v1/profiles/${crypto.randomUUID()}/search?q=x&page=2`;
    await expectProblem(await call("GET", path, { token: space.key }), 422, "invalid_input");
  });

  it("passes FTS5 syntax through in mode fts5, and answers a malformed query with 422 invalid_input", async () => {
    const space = await frozenSpace();
    await json(
      await batch(space, [
        says(ALICE, "the refund reached my card"),
        says(ALICE, "the card was declined"),
        says(BOB, "refund please"),
      ]),
      200,
    );
    const phrase = await search(space, { query: '"refund reached" AND card', mode: "fts5" });
    expect(phrase.results.map((result) => result.snippet)).toEqual(["the **refund reached** my **card**"]);
    const prefix = await search(space, { query: "decl*", mode: "fts5", handle: ALICE });
    expect(prefix.results).toHaveLength(1);
    for (const query of [
      '"unbalanced',
      "AND OR (",
      "refund) OR (card",
      "nosuchcolumn : refund",
      "NEAR(",
      "*",
      "refund\u0000card",
    ]) {
      const problem = await expectProblem(await searchResponse(space, { query, mode: "fts5" }), 422, "invalid_input");
      expect(problem.detail, query).toBe("query: fts5_syntax_error");
    }
    // A column filter cannot reach past the text: the profile restriction holds.
    const confined = await search(space, { query: "refund OR profile : x", mode: "fts5", handle: ALICE });
    expect(confined.results.map((result) => result.snippet)).toEqual(["the **refund** reached my card"]);
  });
});
