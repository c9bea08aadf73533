import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forgetReadings, readingsOf, readingsOfEvent } from "../../src/space/memory/speech-acts";
import { memoryEvent } from "../support/memory-events";

/** An event's text is read once while it is among the latest read (speech-acts.ts `readingsOfEvent`). */
describe("readings of an event's text", () => {
  it("are the readings of its text, however often and in whichever event it comes", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }), { maxLength: 6 }), (texts) => {
        for (const text of [...texts, ...texts]) {
          expect(readingsOfEvent(memoryEvent({ kind: "message", text }))).toEqual(readingsOf(text));
        }
      }),
    );
  });

  it("reads a text once across compiles, and anew after an erasure", () => {
    const text = "My sofa has not arrived. Can you check?";
    const first = readingsOfEvent(memoryEvent({ kind: "message", text }));
    expect(readingsOfEvent(memoryEvent({ kind: "message", text: `${text}` }))).toBe(first);
    forgetReadings();
    const after = readingsOfEvent(memoryEvent({ kind: "message", text }));
    expect(after).not.toBe(first);
    expect(after).toEqual(first);
  });

  it("keeps about a million characters of text: what was read longest ago is read anew", () => {
    forgetReadings();
    const text = "My kettle leaks from the base.";
    const first = readingsOfEvent(memoryEvent({ kind: "message", text }));
    const long = (i: number) => `Order ${i} is late. `.repeat(600);
    for (let i = 0; i < 60; i++) readingsOfEvent(memoryEvent({ kind: "message", text: long(i) }));
    expect(readingsOfEvent(memoryEvent({ kind: "message", text }))).toBe(first); // read again lately: kept
    for (let i = 60; i < 160; i++) readingsOfEvent(memoryEvent({ kind: "message", text: long(i) }));
    expect(readingsOfEvent(memoryEvent({ kind: "message", text }))).not.toBe(first);
  });
});
