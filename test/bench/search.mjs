// Search figures of `npm run bench` (issue: full-text search), measured on a space of the
// running service. Two functions, wired in by context.mjs:
//   - searchProbe: sequential POST /v1/search, half restricted to a customer's handle and half
//     over the whole space, with questions as agents write them (frequent and rare words mixed),
//     sampled in the caller's interleaved rounds: search_p99_ms, and search_p99_ratio, over the
//     floor p99 of the same round (the median of the rounds);
//   - measureRecall: writes the conversational question set of conversations.mjs (issue 30:
//     RECALL_CUSTOMERS customers × RECALL_SESSIONS sessions, one question per topic, answered by
//     one turn), then asks every question restricted to its customer: search_recall_at_10 (share
//     of questions with the answering turn in the first 10 results) and search_recall_ratio,
//     that share over the share a textbook BM25 (k1 1.2, b 0.75, plain tokens, no stemming, no
//     stop words) reaches over the same turns, computed here.

import { conversationItems, conversationSet, shownText, textbookBm25 } from "./conversations.mjs";
import { postJson, round } from "./figures.mjs";

const RECALL_CUSTOMERS = 30;
const RECALL_SESSIONS = 6;

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
 * Recall of handle-restricted search on the conversational question set, next to textbook BM25
 * over the same turns: `url` a space's data base URL, `key` a source key with every scope.
 */
export async function measureRecall({ url, key }) {
  const run = Math.random().toString(36).slice(2, 8);
  const { turns, questions } = conversationSet({ seed: 30, customers: RECALL_CUSTOMERS, sessions: RECALL_SESSIONS });
  const { items, handles } = conversationItems(turns, { run, start: Date.now() - 4 * 365 * 86_400_000 });
  for (let i = 0; i < items.length; i += 500) {
    const answer = await post(`${url}/v1/batch`, key, { items: items.slice(i, i + 500) });
    if (answer.accepted + answer.duplicates !== Math.min(500, items.length - i)) {
      throw new Error(`recall seed: a batch was refused: ${JSON.stringify(answer.errors.slice(0, 3))}`);
    }
  }

  const bm25 = textbookBm25(turns);
  let service = 0;
  let textbook = 0;
  for (const { customer, question, answer } of questions) {
    const page = await post(`${url}/v1/search`, key, { query: question, handle: handles[customer], limit: 10 });
    // Answers are shorter than a snippet (24 tokens): an answering turn's snippet is all of it.
    if (page.results.some((result) => shownText(result.snippet) === answer)) service++;
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
