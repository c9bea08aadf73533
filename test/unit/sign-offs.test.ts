import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readingsOf, signsOff } from "../../src/space/memory/speech-acts";

/**
 * A customer's message that only ends their part (speech-acts.ts `signsOff`, docs/api/memory.md
 * episode outcome): it leaves nothing unanswered.
 */

const SIGN_OFFS = [
  "Thanks, bye!",
  "ok",
  "great thanks",
  "👍",
  "👍👍",
  "perfect, that's all",
  "perfect, that's all I needed",
  "Thank you so much, have a nice day!",
  "thanks for the help, bye",
  "cheers",
  "Hi Sam, thanks for that!",
  "ok got it",
  "no thanks",
  "No, that's all for today, thank you.",
  "great, that helps a lot",
  "that answers my question, thanks",
  "Sounds good",
  "sorted, thanks",
  "Ok I'll check my email and come back",
];

const NOT_SIGN_OFFS = [
  "",
  "hi",
  "hello",
  "hello?",
  "are you there?",
  "I wanted to ask about my delivery",
  "Thanks! And can I change the address?",
  "Thanks. And when will it arrive",
  "ok, please cancel it",
  "that's all wrong, my parcel is broken",
  "still not sorted",
  "that doesn't help",
  "sounds good but the kettle leaks",
];

describe("a customer's sign-off", () => {
  it("is thanks, a goodbye, an acknowledgement or an emoji, however many of them", () => {
    for (const text of SIGN_OFFS) expect([text, signsOff(readingsOf(text))]).toEqual([text, true]);
  });

  it("is not a question, a request, something about the matter, or a greeting alone", () => {
    for (const text of NOT_SIGN_OFFS) expect([text, signsOff(readingsOf(text))]).toEqual([text, false]);
  });

  it("is none once the message also asks something", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIGN_OFFS),
        fc.constantFrom("Can you change the address?", "where is my refund?", "I need a new charger."),
        fc.boolean(),
        (signOff, asked, first) => {
          const text = first ? `${asked} ${signOff}` : `${signOff}\n${asked}`;
          expect(signsOff(readingsOf(text))).toBe(false);
        },
      ),
    );
  });
});
