import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import type { Context } from "../../src/contract/context";
import { createSource, expectProblem, type Handle, personToken, phone, query } from "../support/identity";
import { fullContext, later, moveClock } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * Feedback (SPEC `POST /v1/feedback`, DESIGN 3.7): each of the four actions and its effect in the
 * next context, its missing fields refused item by item, unknown ids, resends as duplicates,
 * and who may give it.
 */

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function feedback(space: Space, items: unknown[], token = space.key): Promise<Response> {
  return call("POST", `/spaces/${space.name}/v1/feedback`, { token, body: { items } });
}

async function give(space: Space, items: unknown[], token = space.key) {
  return BatchAnswerSchema.parse(await json(await feedback(space, items, token), 200));
}

let keys = 0;
const key = () => `fb-${Date.now()}-${keys++}`;

async function say(space: Space, handle: Handle, at: number, text: string, overrides: Record<string, unknown> = {}) {
  const answer = BatchAnswerSchema.parse(
    await json(
      await batch(space, [
        message({
          handles: [handle],
          occurred_at: iso(at),
          content: { type: "text", text },
          conversation_id: "conv-f",
          ...overrides,
        }),
      ]),
      200,
    ),
  );
  expect(answer.accepted).toBe(1);
}

/** A space with a frozen clock, and a customer who stated a fact and asked a question, compiled. */
async function customer(handle: Handle) {
  const space = await createSpace();
  const t0 = await moveClock(space, 0);
  await say(space, handle, t0 - 10 * MINUTE, "My tier is gold. Where is my refund?");
  await later(space, 1_000);
  return { space, t0, context: await fullContext(space, { handle }) };
}

/** An agent's action on a ticket of the customer's. */
const ticketChange = (handle: Handle, operation: string, objectId: string, at: number) =>
  message({
    handles: [handle],
    kind: "action",
    speaker: { role: "ai_agent" },
    content: undefined,
    conversation_id: "conv-f",
    action: { operation, object_type: "ticket", object_id: objectId },
    occurred_at: iso(at),
  });

const factsOf = (context: Context) => context.memory.facts.map((fact) => [fact.key, fact.value, fact.status]);

describe("feedback: each action changes the next context", () => {
  it("retracts a fact until a newer statement of its key", async () => {
    const handle = phone("+15555550401");
    const { space, t0, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    expect(tier?.value).toBe("gold");

    expect(await give(space, [{ action: "retract_fact", idempotency_key: key(), fact_id: tier?.fact_id }])).toEqual({
      accepted: 1,
      duplicates: 0,
      errors: [],
    });
    const retracted = await fullContext(space, { handle });
    expect(factsOf(retracted)).toEqual([]);
    expect(retracted.compiled.version).toBeGreaterThan(context.compiled.version);

    await say(space, handle, t0 - 5 * MINUTE, "My tier is platinum.");
    await later(space, 1_000);
    expect(factsOf(await fullContext(space, { handle }))).toEqual([["tier", "platinum", "active"]]);
  });

  it("corrects a fact's value and keeps its provenance", async () => {
    const handle = phone("+15555550402");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    await give(space, [{ action: "correct_fact", idempotency_key: key(), fact_id: tier?.fact_id, value: "silver" }]);
    const corrected = (await fullContext(space, { handle })).memory.facts.find((fact) => fact.key === "tier");
    expect(corrected).toEqual({ ...tier, value: "silver", status: "corrected" });
  });

  it("resolves an open question and an open object", async () => {
    const handle = phone("+15555550403");
    const space = await createSpace({ source: { act: { operations: ["create"], object_types: ["ticket"] } } });
    const t0 = await moveClock(space, 0);
    await say(space, handle, t0 - 10 * MINUTE, "Where is my refund?");
    await json(await batch(space, [ticketChange(handle, "create", "T-1", t0 - 9 * MINUTE)]), 200);
    await later(space, 1_000);
    const before = await fullContext(space, { handle });
    expect(before.memory.open_items.map((item) => item.kind).sort()).toEqual(["object", "question"]);

    await give(
      space,
      before.memory.open_items.map((item) => ({
        action: "resolve_open_item",
        idempotency_key: key(),
        open_item_id: item.open_item_id,
      })),
    );
    expect((await fullContext(space, { handle })).memory.open_items).toEqual([]);
  });

  it("resolves an open object by the id of any of its changes, as history lists them", async () => {
    const handle = phone("+15555550405");
    const space = await createSpace({ source: { act: { operations: ["create", "update"], object_types: ["ticket"] } } });
    const t0 = await moveClock(space, 0);
    await json(
      await batch(space, [
        ticketChange(handle, "create", "T-2", t0 - 10 * MINUTE),
        ticketChange(handle, "update", "T-2", t0 - 9 * MINUTE),
      ]),
      200,
    );
    await later(space, 1_000);
    const before = await fullContext(space, { handle });
    expect(before.memory.open_items.map((item) => item.kind)).toEqual(["object"]);
    const changes = await query<{ id: string }>(space, "SELECT id FROM derivations WHERE type = 'object' ORDER BY occurred_at");
    expect(changes).toHaveLength(2);
    expect(changes[0]?.id).toBe(before.memory.open_items[0]?.open_item_id);
    await give(space, [{ action: "resolve_open_item", idempotency_key: key(), open_item_id: changes[1]?.id }]);
    expect((await fullContext(space, { handle })).memory.open_items).toEqual([]);
  });

  it("sets the outcome of a conversation's latest episode with the next compile", async () => {
    const handle = phone("+15555550404");
    const { space, context } = await customer(handle);
    expect(context.memory.episodes[0]?.outcome).toBe("unknown");
    await give(space, [{ action: "conversation_outcome", idempotency_key: key(), conversation_id: "conv-f", value: "resolved" }]);
    await later(space, 1_000);
    const after = await fullContext(space, { handle });
    expect(after.memory.episodes.map((episode) => [episode.episode_id, episode.outcome])).toEqual([
      [context.memory.episodes[0]?.episode_id, "resolved"],
    ]);
  });
});

describe("feedback: checked item by item, stored once", () => {
  it("refuses an item without the fields of its action with invalid_input, stores nothing of it, and takes the rest", async () => {
    const handle = phone("+15555550405");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    const response = await feedback(space, [
      { action: "correct_fact", idempotency_key: key(), fact_id: tier?.fact_id },
      { action: "conversation_outcome", idempotency_key: key(), value: "resolved" },
      { action: "resolve_open_item", idempotency_key: key(), open_item_id: "x", extra: 1 },
      { action: "retract_fact", idempotency_key: key(), fact_id: tier?.fact_id },
    ]);
    const answer = BatchAnswerSchema.parse(await json(response, 207));
    expect(answer.accepted).toBe(1);
    expect(answer.errors.map((error) => [error.index, error.code])).toEqual([
      [0, "invalid_input"],
      [1, "invalid_input"],
      [2, "invalid_input"],
    ]);
    expect(answer.errors[0]?.detail).toContain("value");
    expect(await query(space, "SELECT kind FROM items WHERE type = 'feedback'")).toEqual([{ kind: "retract_fact" }]);
  });

  it("answers not_found for ids that name nothing", async () => {
    const { space } = await customer(phone("+15555550406"));
    const answer = BatchAnswerSchema.parse(
      await json(
        await feedback(space, [
          { action: "retract_fact", idempotency_key: key(), fact_id: "no-such-fact" },
          { action: "resolve_open_item", idempotency_key: key(), open_item_id: "no-such-item" },
          { action: "conversation_outcome", idempotency_key: key(), conversation_id: "no-such-conversation", value: "resolved" },
        ]),
        207,
      ),
    );
    expect(answer).toMatchObject({ accepted: 0, duplicates: 0 });
    expect(answer.errors.map((error) => error.code)).toEqual(["not_found", "not_found", "not_found"]);
  });

  it("counts a resend as a duplicate and applies it once", async () => {
    const handle = phone("+15555550407");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    const item = { action: "correct_fact", idempotency_key: key(), fact_id: tier?.fact_id, value: "bronze" };
    await give(space, [item]);
    const once = await fullContext(space, { handle });
    expect(await give(space, [item])).toEqual({ accepted: 0, duplicates: 1, errors: [] });
    // A later correction with another key wins; the resend of the first does not bring it back.
    await give(space, [{ ...item, idempotency_key: key(), value: "copper" }]);
    await give(space, [item]);
    const after = await fullContext(space, { handle });
    expect(after.memory.facts.find((fact) => fact.key === "tier")?.value).toBe("copper");
    expect(once.memory.facts.find((fact) => fact.key === "tier")?.value).toBe("bronze");
    expect(await query(space, "SELECT count(*) AS n FROM items WHERE type = 'feedback'")).toEqual([{ n: 2 }]);
  });
  it("judges an item on its own when its key only came with an earlier item that was refused", async () => {
    const handle = phone("+15555550410");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    const shared = key();
    const answer = BatchAnswerSchema.parse(
      await json(
        await feedback(space, [
          { action: "retract_fact", idempotency_key: shared, fact_id: "no-such-fact" },
          { action: "retract_fact", idempotency_key: shared, fact_id: tier?.fact_id },
          { action: "correct_fact", idempotency_key: shared, fact_id: tier?.fact_id, value: "silver" },
        ]),
        207,
      ),
    );
    // The second is stored; the third, with the key the second stored, is its duplicate.
    expect([answer.accepted, answer.duplicates, answer.errors.map((error) => [error.index, error.code])]).toEqual([
      1,
      1,
      [[0, "not_found"]],
    ]);
    expect(factsOf(await fullContext(space, { handle }))).toEqual([]);
  });

  it("stores an occurred_at out of clock tolerance as the arrival time, its claim kept, as a batch item's", async () => {
    const handle = phone("+15555550411");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    const now = await moveClock(space, 0);
    const claims = { future: now + 301_000, ancient: Date.UTC(1999, 11, 31), near: now + 300_000 };
    const sent = { future: key(), ancient: key(), near: key() };
    await give(
      space,
      (["future", "ancient", "near"] as const).map((name) => ({
        action: "correct_fact",
        idempotency_key: sent[name],
        fact_id: tier?.fact_id,
        value: name,
        occurred_at: iso(claims[name]),
      })),
    );
    const stored = await query<{
      idempotency_key: string;
      occurred_at: number;
      claimed_occurred_at: number | null;
      clock_corrected: number;
    }>(space, "SELECT idempotency_key, occurred_at, claimed_occurred_at, clock_corrected FROM items WHERE type = 'feedback'");
    const byKey = new Map(stored.map(({ idempotency_key, ...row }) => [idempotency_key, row]));
    expect([byKey.get(sent.future), byKey.get(sent.ancient), byKey.get(sent.near)]).toEqual([
      { occurred_at: now, claimed_occurred_at: claims.future, clock_corrected: 1 },
      { occurred_at: now, claimed_occurred_at: claims.ancient, clock_corrected: 1 },
      { occurred_at: claims.near, claimed_occurred_at: null, clock_corrected: 0 },
    ]);
  });
});

describe("feedback: who may give it", () => {
  it("takes a person with review, refuses a key without act (scope_missing) and a person without review (forbidden)", async () => {
    const handle = phone("+15555550408");
    const { space, context } = await customer(handle);
    const tier = context.memory.facts.find((fact) => fact.key === "tier");
    const item = () => ({ action: "retract_fact", idempotency_key: key(), fact_id: tier?.fact_id });

    const tracker = await createSource(space, ["track", "context"]);
    await expectProblem(await feedback(space, [item()], tracker.key), 403, "scope_missing");
    await expectProblem(await feedback(space, [item()], await personToken(space, ["integration"])), 403, "forbidden");
    expect(await give(space, [item()], await personToken(space, ["review"]))).toMatchObject({ accepted: 1 });
    expect(factsOf(await fullContext(space, { handle }))).toEqual([]);
  });

  it("refuses a body that is not an envelope of items with 422", async () => {
    const { space } = await customer(phone("+15555550409"));
    await expectProblem(
      await call("POST", `/spaces/${space.name}/v1/feedback`, { token: space.key, body: { items: [] } }),
      422,
      "invalid_input",
    );
  });
});
