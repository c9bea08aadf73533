import { describe, expect, it } from "vitest";
import { COMPILER_PARTS } from "../../src/space/memory/compiler";
import { compileSession } from "../../src/space/memory/derivation";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import { memoryEvent as event } from "../support/memory-events";

const say = (speakerRole: MemoryEvent["speakerRole"], text: string) => event({ kind: "message", speakerRole, text });

/** The session's questions: what was asked, and when it was answered (null: open). */
const questions = (events: MemoryEvent[]) =>
  compileSession(events, { open: false, handoffAt: null }, COMPILER_PARTS).derivations.flatMap((d) =>
    d.type === "question" ? [{ text: d.body.text, answered_at: d.body.answered_at, itemId: d.itemId }] : [],
  );

describe("open items: a question is open until a later turn answers it", () => {
  it("is answered at the answer, not at the deferral before it", () => {
    const asked = say("customer", "Where is my parcel?");
    const deferral = say("ai_agent", "Let me check that for you. One moment please.");
    const answer = say("human_agent", "It is with the courier and arrives on Thursday.");
    expect(questions([asked, deferral, answer])).toEqual([
      { text: "Where is my parcel?", answered_at: answer.occurredAt, itemId: asked.itemId },
    ]);
  });

  it.each([
    ["a deferral", ["Let me check.", "Bear with me, I'll get back to you."]],
    ["an acknowledgement", ["Ok, got it.", "I understand your frustration."]],
    ["a goodbye", ["Is there anything else I can help with?", "Have a nice day!"]],
  ])("stays open after only %s", (_, replies) => {
    const [question] = questions([say("customer", "Can you refund the lamp?"), ...replies.map((text) => say("ai_agent", text))]);
    expect(question?.answered_at).toBeNull();
  });

  it("stays open when only the customer writes on", () => {
    const [question] = questions([say("customer", "Where is my parcel?"), say("customer", "The tracking page shows nothing")]);
    expect(question?.answered_at).toBeNull();
  });

  it("is answered by a deferral that says the answer too", () => {
    const answer = say("ai_agent", "Let me check: your parcel arrives on Thursday before noon.");
    expect(questions([say("customer", "Where is my parcel?"), answer])[0]?.answered_at).toBe(answer.occurredAt);
  });

  it("is answered by the session's resolution", () => {
    const resolved = event({ kind: "system_event", speakerRole: "system", canonicalType: "ticket.resolved", text: null });
    expect(questions([say("customer", "Can you refund the lamp?"), resolved])[0]?.answered_at).toBe(resolved.occurredAt);
  });

  it("is each question's own: the first answered, the second still open", () => {
    const answer = say("ai_agent", "Your refund was issued yesterday.");
    const [first, second] = questions([
      say("customer", "Was my refund issued?"),
      answer,
      say("customer", "And when will the replacement ship?"),
      say("ai_agent", "I'll find out and get back to you."),
    ]);
    expect([first?.answered_at, second?.answered_at]).toEqual([answer.occurredAt, null]);
  });

  it("leaves a question put off for later open when a later question is answered", () => {
    const answer = say("ai_agent", "Yes, PayPal is accepted at checkout.");
    const [first, second] = questions([
      say("customer", "Do you price match?"),
      say("ai_agent", "Good question, I'll need to ask the warehouse and email you back."),
      say("customer", "Can I pay with PayPal?"),
      answer,
    ]);
    expect([first?.answered_at, second?.answered_at]).toEqual([null, answer.occurredAt]);
  });

  it("takes answers in the order asked when they name neither question", () => {
    const answer = say("human_agent", "It is covered for 5 years from the purchase date.");
    const [first, second] = questions([
      say("customer", "Is my kettle still under warranty?"),
      say("customer", "Also, can I pay with PayPal?"),
      answer,
    ]);
    expect([first?.answered_at, second?.answered_at]).toEqual([answer.occurredAt, null]);
  });

  it("is not answered by a reply to something else the customer said since", () => {
    const [question] = questions([
      say("customer", "Where is my parcel?"),
      say("ai_agent", "Let me check that for you."),
      say("customer", "It's been raining all week here, the weather is awful."),
      say("ai_agent", "Oh no, hopefully the sun comes out for the weekend."),
    ]);
    expect(question?.answered_at).toBeNull();
  });

  it("is not answered by an e-mail's greeting and sign-off around a deferral", () => {
    const [question] = questions([
      say("customer", "Hi team, has my refund gone through? Thanks,"),
      say("human_agent", "Hi Maria, let me check that for you. Kind regards, Marta"),
    ]);
    expect(question?.answered_at).toBeNull();
  });

  it.each([
    "how are you?",
    "are you there?",
    "hello?",
    "Hi, how's it going?",
    "you there??",
    "why?",
    "Cheers! Busy day for you?",
    "Did you have a nice weekend?",
  ])("is never small talk (%s)", (text) => {
    expect(questions([say("customer", text)])).toEqual([]);
  });

  it("is a question written without its question mark", () => {
    expect(questions([say("customer", "hi. where is my parcel")]).map((q) => q.text)).toEqual(["where is my parcel"]);
    expect(questions([say("customer", "When I called yesterday nobody answered")])).toEqual([]);
  });

  it("says what was asked, not the rest of the message", () => {
    const [question] = questions([say("customer", "I work nights. Can you deliver in the afternoon? Thanks!")]);
    expect(question?.text).toBe("Can you deliver in the afternoon?");
  });
});
