import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baseStem, indexedStems } from "../../src/space/search/irregular-forms";
import { B, bm25, bm25f, K1, snippetOf } from "../../src/space/search/ranking";
import { isStopWord, queryStems, stemOf, stemsOf } from "../../src/space/search/stems";
import { STOP_WORDS } from "../../src/space/search/stop-words";
import { queryTerms, termsOf, tokensOf } from "../../src/space/search/tokens";

/** Text as customers write it: words of several scripts, function words, digits, marks and punctuation. */
const words = fc.constantFrom(
  "moved",
  "moving",
  "moves",
  "delivery",
  "delivered",
  "the",
  "Is",
  "WHEN",
  "don't",
  "I'm",
  "refunds",
  "Café",
  "pedidos",
  "straße",
  "Ünïcödé",
  "注文",
  "заказ",
  "ZX9981",
  "42",
  "e-mail",
  "🙂",
  "\u0301",
  "İstanbul",
);
const text = fc.oneof(
  fc.array(words, { maxLength: 20 }).map((parts) => parts.join(" ")),
  fc.string({ maxLength: 80, unit: "binary" }),
);

describe("plain search's stems", () => {
  it("gives the forms of a word one stem, and leaves digits, other scripts and short forms whole", () => {
    for (const group of [
      ["move", "moved", "moving", "moves"],
      ["deliver", "delivered", "delivering", "delivers"],
      ["refund", "refunded", "refunding", "refunds"],
      ["cancel", "cancelled", "cancelling", "cancels"],
      ["parcel", "parcels"],
    ]) {
      expect(new Set(group.map(stemOf)), group.join()).toHaveProperty("size", 1);
    }
    expect(stemsOf("Order ZX9981 for 42 pedidos, 注文 заказ")).toEqual(["order", "zx9981", "42", "pedido", "注文", "заказ"]);
    expect(stemOf("straße")).toBe("straße");
  });

  it("asks an irregular form as its base, matching every form of it, and leaves look-alikes alone", () => {
    for (const [asked, written] of [
      ["When did she go?", "I went there on Friday"],
      ["what did he buy", "he bought two phones"],
      ["has it broken", "the screen broke again"],
      ["the children's shoes", "my child needs a size up"],
      ["Did they think about it?", "her thoughts on it"],
    ] as const) {
      const forms = queryStems(asked, 32).flatMap(indexedStems);
      expect(
        stemsOf(written).some((stem) => forms.includes(stem)),
        `${asked} / ${written}`,
      ).toBe(true);
    }
    expect(queryStems("went gone go goes going", 32)).toEqual(["go"]);
    expect(indexedStems("go")).toEqual(["go", "goe", "went", "gone"]);
    expect(indexedStems("parcel")).toEqual(["parcel"]);
    // Forms that are more often another word are their own words: "a bit", "saw", "rose".
    for (const word of ["bit", "saw", "rose", "ground", "lay"]) expect(baseStem(stemOf(word))).toBe(stemOf(word));
  });

  it("joins forms in one step: no form's stem is another word's base, and every class holds its base", () => {
    for (const word of ["went", "bought", "thought", "children", "left", "found", "took", "written"]) {
      const base = baseStem(stemOf(word));
      expect(base).not.toBe(stemOf(word));
      expect(baseStem(base)).toBe(base);
      expect(indexedStems(base)[0]).toBe(base);
      expect(indexedStems(base)).toContain(stemOf(word));
    }
  });

  it("leaves function words out of a text and of a query, on both sides alike", () => {
    expect(stemsOf("When will the parcel be delivered to me?")).toEqual(["parcel", "deliv"]);
    expect(queryStems("what did she say about the refund?", 32)).toEqual(["say", "refund"]);
    // A query of function words only has no stems: it is searched word for word.
    expect(queryStems("what is it, and where?", 32)).toEqual([]);
    expect(queryTerms("what is it, and where?", 32)).toEqual(["what", "is", "it", "and", "where"]);
    // Contractions are cut by the tokenizer: their pieces are function words too.
    expect(stemsOf("I'm sure they don't know, it's fine")).toEqual(["sure", "know", "fine"]);
    expect(isStopWord("may")).toBe(false);
    expect([...STOP_WORDS].every((word) => tokensOf(word).length === 1 && tokensOf(word)[0]?.term === word)).toBe(true);
  });

  it("makes each stem one token of the index's tokenizer, and keeps the stem of every word that is not a function word", () => {
    fc.assert(
      fc.property(text, (value) => {
        for (const stem of stemsOf(value)) {
          expect(tokensOf(stem).map((token) => token.term)).toEqual([stem]);
        }
        for (const token of tokensOf(value)) {
          if (!isStopWord(token.term)) expect(stemsOf(value)).toContain(stemOf(token.term));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("finds a text by any of its words asked alone: the query's stems are the text's", () => {
    fc.assert(
      fc.property(text, fc.nat(), (value, at) => {
        const tokens = tokensOf(value).filter((token) => !isStopWord(token.term));
        const token = tokens[at % Math.max(tokens.length, 1)];
        if (!token) return;
        const asked = value.slice(token.start, token.end);
        for (const stem of queryStems(asked, 32)) {
          expect(stemsOf(value).some((held) => indexedStems(stem).includes(held))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("reads ASCII text the fast way exactly as the tokenizer's rule reads any text", () => {
    const ascii = fc.string({ maxLength: 120, unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) });
    fc.assert(
      fc.property(fc.oneof(ascii, text), (value) => {
        expect(termsOf(value)).toEqual(tokensOf(value).map((token) => token.term));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a query's stems distinct, in the order written, and at most as many as asked", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (value, max) => {
        const stems = queryStems(value, max);
        expect(new Set(stems).size).toBe(stems.length);
        expect(stems.length).toBeLessThanOrEqual(max);
        expect(stems).toEqual([...new Set(stemsOf(value).map(baseStem))].slice(0, max));
      }),
      { numRuns: 300 },
    );
  });
});

describe("BM25F over a row's words and the turns before it", () => {
  const corpus = { rows: 40, averageLength: 8, averageNear: 9 };
  const terms = fc.array(fc.constantFrom("parcel", "deliv", "refund", "thursday", "courier"), { maxLength: 20 });
  const weights = new Map([
    ["parcel", 2.1],
    ["deliv", 1.3],
    ["refund", 0.4],
  ]);

  it("is BM25 when no turn comes before", () => {
    fc.assert(
      fc.property(terms, (own) => {
        const tokens = own.map((term, i) => ({ term, start: i, end: i + 1 }));
        expect(bm25f(own, [], weights, corpus)).toBeCloseTo(bm25(tokens, weights, corpus), 10);
      }),
    );
    expect([K1, B]).toEqual([1.2, 0.75]);
  });

  it("weighs a word of the turn before less than one of the row's own, and both together more than either", () => {
    const others = fc.array(fc.constantFrom("deliv", "refund", "thursday", "courier"), { maxLength: 20 });
    fc.assert(
      fc.property(others, (other) => {
        const own = bm25f(["parcel", ...other], other, weights, corpus);
        const near = bm25f(other, ["parcel", ...other], weights, corpus);
        const both = bm25f(["parcel", ...other], ["parcel", ...other], weights, corpus);
        expect(near).toBeLessThan(own);
        expect(both).toBeGreaterThan(own);
      }),
    );
  });
});

describe("snippets", () => {
  it("marks the tokens the ranking matched, by their stems", () => {
    const stems = new Set(queryStems("was it delivered?", 32));
    const marked = snippetOf(
      "The parcel is being delivered, deliveries are late",
      (term) => !isStopWord(term) && stems.has(stemOf(term)),
    );
    expect(marked).toBe("The parcel is being **delivered**, deliveries are late");
  });

  it("centers the window with the most matches on them, so words after the last match are shown too", () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i + 1}`);
    words[59] = "refund";
    const snippet = snippetOf(words.join(" "), (term) => term === "refund");
    // 24 tokens, the match at word 60 in the middle: words 49 to 72, the text going on at both ends.
    expect(snippet).toBe(`…${[...words.slice(48, 59), "**refund**", ...words.slice(60, 72)].join(" ")}…`);
    // Two matches 10 words apart: the slack (13 tokens) is shared before (6) and after (7) them.
    words[69] = "refund";
    expect(snippetOf(words.join(" "), (term) => term === "refund")).toBe(
      `…${[...words.slice(53, 59), "**refund**", ...words.slice(60, 69), "**refund**", ...words.slice(70, 77)].join(" ")}…`,
    );
  });

  it("keeps the window inside the text: a match near either end shows the first or the last 24 tokens", () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i + 1}`);
    const marked = (at: number) =>
      snippetOf(words.map((word, i) => (i === at ? "refund" : word)).join(" "), (term) => term === "refund");
    expect(marked(2)).toBe(`${[...words.slice(0, 2), "**refund**", ...words.slice(3, 24)].join(" ")}…`);
    expect(marked(38)).toBe(`…${[...words.slice(16, 38), "**refund**", words[39]].join(" ")}`);
    // No match (a row found by the turns before it): its first 24 tokens, unmarked.
    expect(snippetOf(words.join(" "), () => false)).toBe(`${words.slice(0, 24).join(" ")}…`);
    // The window with the most matches wins over an earlier one with fewer.
    const many = words.map((word, i) => (i === 1 || i === 30 || i === 33 ? "refund" : word)).join(" ");
    expect(snippetOf(many, (term) => term === "refund")).toMatch(/^…w17 .* \*\*refund\*\* w32 w33 \*\*refund\*\* .* w40$/);
  });
});
