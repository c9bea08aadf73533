import { describe, expect, it } from "vitest";
import { SearchPageSchema } from "../../src/contract/search";
import { conversationItems, conversationSet, shownText, textbookBm25 } from "../bench/conversations.mjs";
import { batch, call, createSpace, json } from "../support/seed";

/**
 * The bench's recall test in small (`test/bench/conversations.mjs`, issue 30): conversations
 * through the batch route, questions as people ask them, each restricted to its customer; the
 * share with the answering turn in the first 10 results, next to a textbook BM25 computed here
 * over the same turns.
 */
describe("POST /v1/search: questions about conversations", () => {
  it("finds the answering turn in the first 10 results at least 1.2 times as often as textbook BM25", async () => {
    const space = await createSpace();
    const { turns, questions } = conversationSet({ seed: 11, customers: 6, sessions: 6 });
    const { items, handles } = conversationItems(turns, { run: space.name, start: Date.now() - 400 * 86_400_000 });
    // Batches of 200: a session's turns often span two, so its turn before comes from an earlier batch.
    for (let i = 0; i < items.length; i += 200) {
      const answer = await json<{ accepted: number }>(await batch(space, items.slice(i, i + 200)), 200);
      expect(answer.accepted).toBe(Math.min(200, items.length - i));
    }
    const textbook = textbookBm25(turns);
    let service = 0;
    let reference = 0;
    for (const { customer, question, answer } of questions) {
      const response = await call("POST", `/spaces/${space.name}/v1/search`, {
        token: space.key,
        body: { query: question, handle: handles[customer], limit: 10 },
      });
      const page = SearchPageSchema.parse(await json(response, 200));
      if (page.results.some((result) => shownText(result.snippet) === answer)) service++;
      if (textbook.top(question, customer, 10).includes(answer)) reference++;
    }
    expect(questions.length).toBeGreaterThan(80);
    const recall = service / questions.length;
    const textbookRecall = reference / questions.length;
    expect(recall, `service ${recall.toFixed(3)}, textbook ${textbookRecall.toFixed(3)}`).toBeGreaterThanOrEqual(
      1.2 * textbookRecall,
    );
  }, 120_000);
});
