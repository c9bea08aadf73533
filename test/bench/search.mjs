// Search figures of `npm run bench` (issue: full-text search), measured on a space of the
// running service. Two functions, wired in by context.mjs:
//   - searchProbe: sequential POST /v1/search, half restricted to a customer's handle and half
//     over the whole space, with questions as agents write them (frequent and rare words mixed),
//     sampled in the caller's interleaved rounds: search_p99_ms, and search_p99_ratio, over the
//     floor p99 of the same round (the median of the rounds);
//   - measureRecall: writes its own conversations (RECALL_CUSTOMERS customers × RECALL_SESSIONS
//     sessions of turns; in each session one turn answers a question that paraphrases it), then
//     asks every question restricted to its customer: search_recall_at_10 (share of questions
//     with an answering turn in the first 10 results) and search_recall_ratio, that share over
//     the share a plain textbook BM25 (k1 1.2, b 0.75, same tokens: lower case, accents removed,
//     split on anything but letters and digits) reaches over the same turns, computed here.

import { postJson, round } from "./figures.mjs";

const RECALL_CUSTOMERS = 40;
const RECALL_SESSIONS = 5;
const K1 = 1.2;
const B = 0.75;

const post = postJson;

/** Questions as an agent or a person types them: everyday words (in every seeded message) and rarer ones. */
const QUESTIONS = [
  "where is my order?",
  "what is the status of my order, please check",
  "did the customer say thanks?",
  "message 42",
  "please check the refund for my order",
  "what did she say about the delivery status?",
  "gold tier customer in Madrid",
  "has the order been shipped yet?",
  "any complaint about a broken blender?",
  "check status",
  "what did the agent answer last time?",
  "silver",
];

const handleOf = (handle) => (typeof handle === "string" ? { type: "phone_e164", value: handle } : handle);

/**
 * A probe for the latency of search on a seeded space: one question per call, in turn, every
 * other one restricted to a random customer; answers its time in ms. `url` the space's data base
 * URL, `key` a source key with every scope, `handles` customers of the space (handle objects, or
 * phone numbers).
 */
export function searchProbe({ url, key, handles }) {
  if (!handles || handles.length === 0) throw new Error("searchProbe needs the handles of the seeded space");
  let i = 0;
  return async () => {
    const n = i++;
    const query = QUESTIONS[n % QUESTIONS.length];
    const restricted = n % 2 === 0;
    const body = restricted ? { query, handle: handleOf(handles[Math.floor(Math.random() * handles.length)]) } : { query };
    const t0 = performance.now();
    await post(`${url}/v1/search`, key, body);
    return performance.now() - t0;
  };
}

/**
 * Topics of the recall set: the turn that answers (by whom), and a question that paraphrases
 * it, sharing a word or two with it as people do, never copying it.
 */
const TOPICS = [
  {
    by: "ai_agent",
    answer: (n) => `Your refund of ${n % 90} euros was issued to the card ending ${1000 + n} on Monday.`,
    question: "Has the money from my refund reached my card yet?",
  },
  {
    by: "ai_agent",
    answer: () => "The courier will bring the parcel to your new address on Thursday afternoon.",
    question: "When does the delivery of my parcel arrive?",
  },
  {
    by: "human_agent",
    answer: () => "We moved you to the premium plan, billed monthly starting in March.",
    question: "Which subscription plan am I on now and how is it billed?",
  },
  {
    by: "ai_agent",
    answer: () => "The blender warranty covers motor failures for two years after purchase.",
    question: "How long is the guarantee on the blender motor?",
  },
  {
    by: "human_agent",
    answer: () => "Your appointment with the technician is booked for 9 am next Tuesday.",
    question: "What time is the technician visit scheduled?",
  },
  {
    by: "ai_agent",
    answer: () => "I reset your password; a temporary code was sent to your phone by SMS.",
    question: "How do I get a new login code for my password?",
  },
  {
    by: "ai_agent",
    answer: (n) => `The invoice for order ${7000 + n} is attached as a PDF to the email we sent you.`,
    question: "Where can I find the invoice for my last purchase?",
  },
  {
    by: "human_agent",
    answer: () => "Store credit of 20 euros was added to your account to make up for the delay.",
    question: "Did I get any compensation for the late delivery?",
  },
  {
    by: "customer",
    answer: () => "I am allergic to peanuts, please note it for the catering order.",
    question: "Does the customer have any food allergies?",
  },
  {
    by: "customer",
    answer: () => "My daughter will pick up the package at the Calle Mayor store.",
    question: "Who is collecting the package, and from which shop?",
  },
  {
    by: "ai_agent",
    answer: () => "The return label expires in 14 days, so print it before you drop the box at the post office.",
    question: "How long until the return label is no longer valid?",
  },
  {
    by: "ai_agent",
    answer: (n) => `Your loyalty points balance is ${500 + n} and the points expire at the end of the year.`,
    question: "How many reward points do I have left?",
  },
];

/** Turns around the answer: greetings, and distractors that reuse the topics' words elsewhere. */
const FILLERS = [
  ["customer", "Hi, I have a question about my order."],
  ["ai_agent", "Hello, thanks for contacting us, how can I help you today?"],
  ["customer", "Please check my order status."],
  ["ai_agent", "Let me check that for you, one moment please."],
  ["customer", "The card payment for the order went through, right?"],
  ["ai_agent", "Yes, the payment on your card was accepted."],
  ["customer", "Do you deliver on Sundays?"],
  ["ai_agent", "We do not deliver on Sundays, only Monday to Saturday."],
  ["customer", "Can I change the address of my account?"],
  ["ai_agent", "Is there anything else I can help you with?"],
  ["customer", "Thank you, that is all for now."],
  ["customer", "The technician was very kind last time."],
  ["ai_agent", "Our store opening hours are 9 am to 8 pm."],
  ["customer", "I sent you an email yesterday about the box."],
];

/** A deterministic generator, so that every run writes the same conversations. */
function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Recall of handle-restricted search on a conversation set of its own, next to textbook BM25
 * over the same turns: `url` a space's data base URL, `key` a source key with every scope.
 */
export async function measureRecall({ url, key }) {
  const run = Math.random().toString(36).slice(2, 8);
  const random = rng(7);
  const items = [];
  const turns = []; // { customer, text }
  const questions = []; // { customer, handle, question, answer }
  const start = Date.now() - 20 * 24 * 3600_000;
  for (let c = 0; c < RECALL_CUSTOMERS; c++) {
    const handle = { type: "system_id", scope: "search-recall", value: `${run}-${c}` };
    const topics = [...TOPICS].sort(() => random() - 0.5).slice(0, RECALL_SESSIONS);
    topics.forEach((topic, s) => {
      const answer = topic.answer(c * 7 + s);
      const session = [];
      const fillers = [...FILLERS].sort(() => random() - 0.5).slice(0, 6);
      const at = 1 + Math.floor(random() * 5);
      fillers.forEach((filler, i) => {
        if (i === at) session.push([topic.by, answer]);
        session.push(filler);
      });
      session.forEach(([role, text], t) => {
        items.push({
          type: "event",
          idempotency_key: `recall-${run}-${c}-${s}-${t}`,
          channel: "whatsapp",
          conversation_id: `recall-${run}-${c}-${s}`,
          handles: [handle],
          speaker: { role },
          content: { type: "text", text },
          occurred_at: new Date(start + (c * RECALL_SESSIONS + s) * 3600_000 + t * 30_000).toISOString(),
        });
        turns.push({ customer: c, text });
      });
      questions.push({ customer: c, handle, question: topic.question, answer });
    });
  }
  for (let i = 0; i < items.length; i += 500) {
    const answer = await post(`${url}/v1/batch`, key, { items: items.slice(i, i + 500) });
    if (answer.accepted + answer.duplicates !== Math.min(500, items.length - i)) {
      throw new Error(`recall seed: a batch was refused: ${JSON.stringify(answer.errors.slice(0, 3))}`);
    }
  }

  const bm25 = textbookBm25(turns);
  let service = 0;
  let textbook = 0;
  for (const { customer, handle, question, answer } of questions) {
    const page = await post(`${url}/v1/search`, key, { query: question, handle, limit: 10 });
    const texts = page.results
      .filter((result) => result.kind === "message" || result.kind === "transcript")
      .map((result) => result.snippet.replaceAll("**", "").replace(/^…|…$/g, ""));
    // Answers are shorter than a snippet (24 tokens): an answering turn's snippet is all of it.
    if (texts.includes(answer)) service++;
    if (bm25.top(question, customer, 10).includes(answer)) textbook++;
  }
  const serviceRecall = service / questions.length;
  const textbookRecall = textbook / questions.length;
  return {
    search_recall_at_10: round(serviceRecall, 3),
    search_recall_ratio: round(textbookRecall === 0 ? 0 : serviceRecall / textbookRecall, 3),
    search_recall_textbook_at_10: round(textbookRecall, 3),
    search_recall_questions: questions.length,
  };
}

const tokens = (text) =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** BM25 over every turn (idf over all of them), ranking one customer's turns. */
function textbookBm25(turns) {
  const documents = turns.map((turn) => ({ ...turn, tokens: tokens(turn.text) }));
  const df = new Map();
  for (const { tokens: list } of documents) for (const term of new Set(list)) df.set(term, (df.get(term) ?? 0) + 1);
  const n = documents.length;
  const avgdl = documents.reduce((sum, doc) => sum + doc.tokens.length, 0) / n;
  const idf = (term) => {
    const d = df.get(term) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  return {
    top(question, customer, k) {
      const terms = [...new Set(tokens(question))];
      return documents
        .filter((doc) => doc.customer === customer)
        .map((doc) => {
          let score = 0;
          for (const term of terms) {
            const tf = doc.tokens.filter((token) => token === term).length;
            if (tf > 0) score += (idf(term) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.tokens.length) / avgdl));
          }
          return { text: doc.text, score };
        })
        .filter((doc) => doc.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, k)
        .map((doc) => doc.text);
    },
  };
}
