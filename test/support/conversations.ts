import { seeded } from "../../src/space/identity/linkage/random-pairs";
import { message } from "./seed";

/**
 * Support chats as customers write them, seeded: small talk, a request, an agent who first
 * defers then answers, a statement of the customer's about themselves, thanks and goodbyes, in
 * lower and upper case, with and without final punctuation. For the tests that need many
 * realistic messages (a long customer's context, the compile's cost), not for figures.
 */

const TOPICS = [
  {
    request: "my order A-{n} hasn't arrived yet, it was due on monday",
    question: "Can you tell me where the parcel is?",
    answer: "The parcel is with the courier and will be delivered on Thursday before noon.",
  },
  {
    request: "I'd like a refund for the kettle I bought last week",
    question: "how long does a refund take?",
    answer: "I have issued the refund of 34.99 to your card, it takes three to five working days.",
  },
  {
    request: "I need to change the delivery address on my subscription",
    question: "Is it possible to move the box to Fridays?",
    answer: "Your subscription now goes to the new address and the box arrives on Fridays from next week.",
  },
  {
    request: "the invoice for March shows the wrong company name",
    question: "Could you send a corrected invoice?",
    answer: "A corrected invoice with the new company name is on its way to your email.",
  },
  {
    request: "I want to book a repair for the washing machine",
    question: "do you have an engineer available this week?",
    answer: "An engineer is booked for Wednesday between 8 and 12 and will call before arriving.",
  },
];

const STATEMENTS = [
  "I'm moving to Leeds next month so the address will change again",
  "My daughter starts school in September and mornings are busy",
  "I prefer deliveries in the afternoon because I work nights",
  "we just had a baby so I'm at home most days now",
  "I've been a customer for nine years and never had this problem",
  "my husband uses the same account for his orders",
];

const SMALL_TALK = ["hi", "hello there", "how are you?", "thanks!", "ok great", "lol ok", "thank you so much 😊"];
const DEFERRALS = ["Let me check that for you.", "One moment please", "bear with me while I look into it"];
const GREETINGS = ["Hello! How can I help you today?", "Hi there, thanks for reaching out."];
const CLOSINGS = ["Is there anything else I can help with?", "Have a lovely day!", "You're welcome, take care."];

export interface ChatTurn {
  role: "customer" | "ai_agent" | "human_agent";
  text: string;
}

/** One session of `length` turns (at least 8), alternating customer and agent as chats do. */
export function chatSession(random: () => number, length: number): ChatTurn[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const topic = pick(TOPICS);
  const agent = random() < 0.5 ? "ai_agent" : "human_agent";
  const turns: ChatTurn[] = [
    { role: "customer", text: pick(SMALL_TALK) },
    { role: agent, text: pick(GREETINGS) },
    { role: "customer", text: topic.request.replace("{n}", String(1000 + Math.floor(random() * 9000))) },
    { role: agent, text: pick(DEFERRALS) },
    { role: "customer", text: `${pick(STATEMENTS)}. ${topic.question}` },
    { role: agent, text: topic.answer },
  ];
  while (turns.length < length - 2) {
    turns.push({ role: "customer", text: random() < 0.5 ? pick(SMALL_TALK) : pick(STATEMENTS) });
    turns.push({ role: agent, text: random() < 0.3 ? pick(DEFERRALS) : `Noted. ${topic.answer}` });
  }
  turns.push({ role: "customer", text: "thanks, that's all" });
  turns.push({ role: agent, text: pick(CLOSINGS) });
  return turns.slice(0, Math.max(length, 8));
}

/**
 * Batch items of `sessions` sessions of one customer (a conversation id each, a day apart, a
 * minute between turns), the first starting at `startMs`.
 */
export function customerSessions(
  handle: { type: string; value: string },
  options: { sessions: number; turns: number; startMs: number; seed: number; prefix?: string },
): Record<string, unknown>[] {
  const random = seeded(options.seed);
  const items: Record<string, unknown>[] = [];
  for (let s = 0; s < options.sessions; s++) {
    const conversation = `${options.prefix ?? "chat"}-${s}`;
    chatSession(random, options.turns).forEach((turn, t) => {
      items.push(
        message({
          handles: [handle],
          conversation_id: conversation,
          channel: "app",
          speaker: { role: turn.role },
          content: { type: "text", text: turn.text },
          occurred_at: new Date(options.startMs + s * 86_400_000 + t * 60_000).toISOString(),
        }),
      );
    });
  }
  return items;
}
