import { beforeAll, describe, expect, it } from "vitest";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * A refused request or item names every field that is wrong in one answer, as far as the schema
 * can tell them apart (a union's discriminator decides which fields there are): a client fixes
 * them all at once instead of meeting them one by one. A field left out is `required`.
 */

interface Answer {
  accepted: number;
  errors: { index: number; code: string; detail: string }[];
}

let space: Space;

beforeAll(async () => {
  space = await createSpace();
});

async function itemDetails(items: unknown[]): Promise<string[]> {
  const answer = await json<Answer>(await batch(space, items), 207);
  expect(answer.errors.map((error) => error.index)).toEqual(items.map((_, index) => index));
  for (const error of answer.errors) expect(error.code).toBe("invalid_input");
  return answer.errors.map((error) => error.detail);
}

async function detailOf(response: Response): Promise<string> {
  const problem = await json<{ code: string; detail: string }>(response, 422);
  expect(problem.code).toBe("invalid_input");
  return problem.detail;
}

describe("batch items: every field's error at once", () => {
  it("names a bad occurred_at and an un-normalizable phone of one event together", async () => {
    const details = await itemDetails([
      message({ occurred_at: "not a time", handles: [{ type: "phone_e164", value: "+1 555" }] }),
      message({
        occurred_at: "2026-02-30T10:00:00Z",
        handles: [
          { type: "email", value: "no-at-sign" },
          { type: "phone_e164", value: "+15555550100" },
          { type: "phone_e164", value: "+44 1" },
        ],
        channel: "pigeon",
      }),
      message({ handles: undefined, subject: { handle: { type: "phone_e164", value: "+1" } }, occurred_at: "soon" }),
    ]);
    expect(details).toEqual([
      "handles.0.value: phone_not_normalizable; occurred_at: invalid_format",
      "channel: invalid_value; handles.0.value: email_not_normalizable; handles.2.value: phone_not_normalizable; occurred_at: no_such_date",
      "subject.handle.value: phone_not_normalizable; occurred_at: invalid_format",
    ]);
  });

  it("names a missing field `required`: an identify without method, an item without type, a verify without level", async () => {
    const details = await itemDetails([
      {
        type: "identify",
        idempotency_key: crypto.randomUUID(),
        handles: [
          { type: "email", value: "ana@example.com" },
          { type: "phone_e164", value: "+15555550100" },
        ],
      },
      { idempotency_key: crypto.randomUUID(), occurred_at: new Date().toISOString() },
      { type: "verify", idempotency_key: crypto.randomUUID(), conversation_id: "c-1", method: "otp" },
      { type: "handoff", idempotency_key: crypto.randomUUID(), task_id: "t-1", to: {}, occurred_at: "x" },
    ]);
    expect(details).toEqual([
      "method: required",
      "type: required",
      "level: required",
      "to.role: required; occurred_at: invalid_format",
    ]);
  });

  it("names a shape rule with the fields that are wrong, and a forbidden key with the rest", async () => {
    const bare = message({ occurred_at: "later" });
    delete bare.handles;
    const proto = JSON.parse(
      `{"type":"event","idempotency_key":"p-${crypto.randomUUID()}","handles":[{"type":"email","value":"a@b.c"}],"content":{"text":"hi"},"attributes":{"__proto__":{"x":1}},"occurred_at":"never"}`,
    );
    const details = await itemDetails([bare, proto]);
    expect(details).toEqual([
      "occurred_at: invalid_format; handles: event_needs_handle_subject_or_object",
      "item: forbidden_key; occurred_at: invalid_format",
    ]);
  });

  it("stores nothing of a refused item and everything of the valid ones beside it", async () => {
    const answer = await json<Answer>(await batch(space, [message(), message({ occurred_at: "x", channel: "y" })]), 207);
    expect(answer.accepted).toBe(1);
    expect(answer.errors).toEqual([
      { index: 1, code: "invalid_input", detail: "channel: invalid_value; occurred_at: invalid_format" },
    ]);
  });
});

describe("feedback items and request bodies: every field's error at once, `required` for what is missing", () => {
  it("names a feedback item without action `required`, and one without its value", async () => {
    const response = await call("POST", `/spaces/${space.name}/v1/feedback`, {
      token: space.key,
      body: {
        items: [
          { fact_id: "f-1", idempotency_key: crypto.randomUUID() },
          { action: "conversation_outcome", conversation_id: "c-1", idempotency_key: crypto.randomUUID() },
        ],
      },
    });
    const answer = await json<Answer>(response, 207);
    expect(answer.errors.map((error) => error.detail)).toEqual(["action: required", "value: required"]);
  });

  it("names both handles of a context request that cannot be normalized, and an unknown field with them", async () => {
    const response = await call("POST", `/spaces/${space.name}/v1/context`, {
      token: space.key,
      body: {
        handle: { type: "phone_e164", value: "+1" },
        about: { handle: { type: "email", value: "nobody" } },
        zz: 1,
      },
    });
    expect(await detailOf(response)).toBe(
      "handle.value: phone_not_normalizable; about.handle.value: email_not_normalizable; body: unknown_field",
    );
  });

  it("names a link's bad handle and its missing kind together", async () => {
    const response = await call("POST", `/spaces/${space.name}/v1/identity/links`, {
      token: space.key,
      headers: { "idempotency-key": crypto.randomUUID() },
      body: { person: { handle: { type: "email", value: "x" } }, organization: {} },
    });
    expect(await detailOf(response)).toBe(
      "person.handle.value: email_not_normalizable; organization: needs_handle_or_profile_id; kind: required",
    );
  });

  it("names every field of a control body, a missing one `required`", async () => {
    const response = await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
      token: space.tenant.token,
      body: { name: "", verification_ceiling: "V9" },
    });
    expect(await detailOf(response)).toBe("name: too_small; kind: required; verification_ceiling: invalid_value");
  });

  it("names a bad path parameter and a bad query together", async () => {
    const response = await call("GET", `/spaces/${space.name}/v1/profiles/${"p".repeat(129)}/search?limit=0`, {
      token: space.key,
    });
    expect(await detailOf(response)).toBe("param.id: too_big; query.q: required; query.limit: too_small");
  });
});
