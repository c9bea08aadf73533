import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapse, cut, headOf, sentencesOf } from "../../src/space/memory/sentences";

const texts = (text: string) => sentencesOf(text).map((sentence) => sentence.text);

describe("sentences of chat", () => {
  it.each([
    [
      "full stops, exclamation and question marks",
      "Hi! Where is my order? It was due Monday.",
      ["Hi!", "Where is my order?", "It was due Monday."],
    ],
    ["line breaks without punctuation", "hi\nmy order is late\r\n\nany news", ["hi", "my order is late", "any news"]],
    ["a chat line with no final punctuation", "ok so my order never came", ["ok so my order never came"]],
    ["emoji ending a sentence", "love it 😍 see you soon", ["love it 😍", "see you soon"]],
    [
      "emoji with a skin tone and joiners",
      "thanks 👍🏽 the box came 👨‍👩‍👧 all good",
      ["thanks 👍🏽", "the box came 👨‍👩‍👧", "all good"],
    ],
    ["an ellipsis", "hmm... not sure", ["hmm...", "not sure"]],
    [
      "a salutation's comma",
      "Hi team, my order is late. Kind regards, Sam",
      ["Hi team,", "my order is late.", "Kind regards, Sam"],
    ],
    [
      "closing quotes and brackets",
      'He said "done." Then nothing (again!) happened',
      ['He said "done."', "Then nothing (again!)", "happened"],
    ],
  ])("ends at %s", (_, text, expected) => {
    expect(texts(text)).toEqual(expected);
  });

  it.each([
    ["e.g. and i.e.", "Any item, e.g. a lamp, i.e. anything small.", ["Any item, e.g. a lamp, i.e. anything small."]],
    ["titles", "Mr. Smith and Dr. Jones called. Ms. Lee too.", ["Mr. Smith and Dr. Jones called.", "Ms. Lee too."]],
    ["initials", "J. R. Tolkien wrote it.", ["J. R. Tolkien wrote it."]],
    ["times", "Come at 5 p.m. tomorrow please", ["Come at 5 p.m. tomorrow please"]],
    ["decimals and domains", "It costs 3.50 on shop.example.com today.", ["It costs 3.50 on shop.example.com today."]],
    ["No. before a number", "Order No. 5 is late. No. It is not.", ["Order No. 5 is late.", "No.", "It is not."]],
    ["abbreviated months", "Since Jan. 3 nothing came.", ["Since Jan. 3 nothing came."]],
  ])("does not end after %s", (_, text, expected) => {
    expect(texts(text)).toEqual(expected);
  });

  it("ends after the pronoun I", () => {
    expect(texts("It was not I. She did it.")).toEqual(["It was not I.", "She did it."]);
  });

  it("has nothing of an empty, blank or missing text", () => {
    expect(sentencesOf("")).toEqual([]);
    expect(sentencesOf(" \n\t ")).toEqual([]);
    expect(sentencesOf(null)).toEqual([]);
  });

  it("collapses whitespace inside a sentence and says where it stands", () => {
    expect(sentencesOf("  my\u00a0order \t is late.  Any news? ")).toEqual([
      { text: "my order is late.", start: 2, end: 21 },
      { text: "Any news?", start: 23, end: 32 },
    ]);
  });
});

const chat = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc
    .array(
      fc.constantFrom(
        "Hi",
        "e.g.",
        "Mr.",
        "No.",
        "5",
        ".",
        "!",
        "?",
        "...",
        "😀",
        "👍🏽",
        "\n",
        "\r\n",
        " ",
        "\u2028",
        "word",
        "p.m.",
        "”",
        ")",
      ),
      { maxLength: 40 },
    )
    .map((pieces) => pieces.join(" ")),
  fc.array(fc.constantFrom("a", ".", " ", "\n", "😀", "?", "I", "J"), { maxLength: 60 }).map((pieces) => pieces.join("")),
);

describe("sentences of long runs", () => {
  // A batch may hold one 250,000-emoji message: a boundary tried at every character of a run
  // and backtracking over the rest of it made that minutes of compile.
  it.each([
    ["emoji", "😀"],
    ["full stops", "."],
    ["exclamation marks", "!"],
  ])("splits a run of 200,000 %s in linear time", (_, unit) => {
    const started = performance.now();
    expect(sentencesOf(`${unit.repeat(200_000)} end`).length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("sentences: properties over any text", () => {
  it("never throws, and the sentences cover the text in order: every non-space character in one of them", () => {
    fc.assert(
      fc.property(chat, (text) => {
        const sentences = sentencesOf(text);
        let previousEnd = 0;
        const covered = new Array(text.length).fill(false);
        for (const sentence of sentences) {
          expect(sentence.start).toBeGreaterThanOrEqual(previousEnd);
          expect(sentence.end).toBeGreaterThan(sentence.start);
          expect(sentence.text).toBe(collapse(text.slice(sentence.start, sentence.end)));
          expect(sentence.text).not.toBe("");
          for (let i = sentence.start; i < sentence.end; i++) covered[i] = true;
          previousEnd = sentence.end;
        }
        for (let i = 0; i < text.length; i++) {
          if (!/\s/.test(text[i] ?? "")) expect(covered[i]).toBe(true);
        }
      }),
    );
  });
});

describe("cutting by code points", () => {
  // Any UTF-16 units, lone surrogates and pairs among them, with spaces and punctuation to cut at.
  const unitsArb = fc
    .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0x20, 0x2c, 0xd83d, 0xde00, 0x61)), { maxLength: 40 })
    .map((units) => String.fromCharCode(...units));
  // A lone surrogate cannot cross the test pool's socket in a failure message: compared escaped.
  const escaped = (text: string) => JSON.stringify(text);

  it("takes a prefix of as many code points as Array.from counts", () => {
    fc.assert(
      fc.property(unitsArb, fc.integer({ min: 0, max: 45 }), (text, count) => {
        expect(escaped(headOf(text, count))).toBe(escaped(Array.from(text).slice(0, count).join("")));
      }),
    );
  });

  it("cuts as the whole text spread into code points did", () => {
    const spread = (text: string, limit: number) => {
      if (text.length <= limit) return text;
      const points = Array.from(text);
      if (points.length <= limit) return text;
      const head = points.slice(0, limit - 1).join("");
      const space = head.lastIndexOf(" ");
      const wholeWords = points[limit - 1] === " " || space <= 0 ? head : head.slice(0, space);
      return `${wholeWords.replace(/[\s,;:]+$/, "")}…`;
    };
    fc.assert(
      fc.property(unitsArb, fc.integer({ min: 1, max: 45 }), (text, limit) => {
        expect(escaped(cut(text, limit))).toBe(escaped(spread(text, limit)));
      }),
    );
  });
});
