import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { SpaceObject } from "../../src/space/object";
import { type Schema, SchemaSet } from "../support/json-schema";
import { reserve, upload } from "../support/media";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * Each shape rule the server enforces is stated in the document: for every rule, an item the
 * document's validator accepts is stored, and one it refuses is refused by the server naming
 * the rule.
 */

interface Answer {
  accepted: number;
  errors: { index: number; code: string; detail: string }[];
}

let set: SchemaSet;
let space: Space;

beforeAll(async () => {
  const document = await json<{ components: { schemas: Record<string, unknown> } }>(await call("GET", "/v1/openapi.json"), 200);
  set = new SchemaSet(document.components.schemas);
  space = await createSpace();
});

const itemSchema = (): Schema => ({ $ref: "#/$defs/BatchItem" });

async function serverTakes(item: Record<string, unknown>): Promise<Answer> {
  const response = await batch(space, [item]);
  return json<Answer>(response);
}

async function expectAgreement(given: Record<string, unknown>, rule: string | null) {
  const item = JSON.parse(JSON.stringify(given));
  const documented = set.valid(itemSchema(), item);
  const answer = await serverTakes(item);
  expect(documented, JSON.stringify(item)).toBe(rule === null);
  if (rule === null) {
    expect(answer.errors).toEqual([]);
    expect(answer.accepted).toBe(1);
  } else {
    expect(answer.errors[0]?.code).toBe("invalid_input");
    expect(answer.errors[0]?.detail).toContain(rule);
  }
}

const without = (item: Record<string, unknown>, ...fields: string[]) =>
  Object.fromEntries(Object.entries(item).filter(([key]) => !fields.includes(key)));

describe("shape rules: the document and the server agree", () => {
  it("a message needs text, a transcript or a media reference", async () => {
    await expectAgreement(message({ content: { type: "text", text: "hi" } }), null);
    await expectAgreement(message({ content: { type: "audio", transcript: "hi" } }), null);
    const bytes = new TextEncoder().encode("an image");
    const media = await reserve(space, bytes);
    expect((await upload(media, bytes)).status).toBe(200);
    await expectAgreement(message({ content: { type: "image", media_ref: media.media_ref, media_sha256: media.sha256 } }), null);
    await expectAgreement(
      message({ content: { type: "image", media_ref: media.media_ref } }),
      "content.media_ref: media_ref_and_media_sha256_go_together",
    );
    await expectAgreement(message({ content: { type: "text" } }), "content: message_needs_text_transcript_or_media");
    await expectAgreement(message({ content: { text: "" } }), "content: message_needs_text_transcript_or_media");
    await expectAgreement(without(message(), "content"), "content: required");
  });

  it("a system event needs canonical_type", async () => {
    const event = message({ kind: "system_event", canonical_type: "order.shipped", content: undefined });
    await expectAgreement(event, null);
    await expectAgreement(without(event, "canonical_type"), "canonical_type: required");
  });

  it("an action needs the action block, and the block is valid only on kind action", async () => {
    const block = { operation: "create", object_type: "order", object_id: "o-1" };
    await expectAgreement(message({ kind: "action", action: block }), null);
    await expectAgreement(message({ kind: "action" }), "action: required");
    await expectAgreement(message({ action: block }), "action: action_block_only_for_action_kind");
    await expectAgreement(
      message({ kind: "system_event", canonical_type: "x", action: block }),
      "action: action_block_only_for_action_kind",
    );
  });

  it("an event needs a handle, a subject or an object", async () => {
    const bare = () => without(message(), "handles");
    await expectAgreement(message(), null);
    await expectAgreement({ ...bare(), subject: { handle: { type: "email", value: "ana@example.com" } } }, null);
    await expectAgreement({ ...bare(), object: { object_type: "order", object_id: "o-1" } }, null);
    await expectAgreement(bare(), "handles: event_needs_handle_subject_or_object");
    await expectAgreement({ ...bare(), handles: [] }, "handles: event_needs_handle_subject_or_object");
  });

  it("verify and handoff name exactly one of conversation_id and task_id", async () => {
    const verify = { type: "verify", level: "V1", method: "otp" };
    const handoff = { type: "handoff", to: { role: "human_agent" }, occurred_at: new Date().toISOString() };
    for (const item of [verify, handoff]) {
      const key = () => ({ idempotency_key: crypto.randomUUID() });
      await expectAgreement({ ...item, ...key(), conversation_id: "c-1" }, null);
      await expectAgreement({ ...item, ...key(), task_id: "t-1" }, null);
      await expectAgreement({ ...item, ...key() }, "conversation_id: needs_conversation_id_or_task_id");
      await expectAgreement(
        { ...item, ...key(), conversation_id: "c-1", task_id: "t-1" },
        "conversation_id: needs_conversation_id_or_task_id",
      );
    }
  });

  it("lengths count characters as JSON Schema does, not UTF-16 units", async () => {
    const emoji = "😀";
    await expectAgreement(message({ idempotency_key: emoji.repeat(256) }), null);
    await expectAgreement(message({ idempotency_key: emoji.repeat(257) }), "idempotency_key: too_big");
  });
});

describe("shape rules of the control API: the document and the server agree", () => {
  it("each source kind's highest verification ceiling, raised to V3 by otp", async () => {
    const schema: Schema = { $ref: "#/$defs/SourceInput" };
    const cases: [Record<string, unknown>, string | null][] = [
      [{ kind: "agent", verification_ceiling: "V2" }, null],
      [{ kind: "agent", verification_ceiling: "V3" }, "above_the_kinds_maximum_V2"],
      [{ kind: "agent", otp: true, verification_ceiling: "V3" }, null],
      [{ kind: "agent", otp: true, verification_ceiling: "V4" }, "above_the_kinds_maximum_V3"],
      [{ kind: "system", verification_ceiling: "V4" }, null],
      [{ kind: "human_desk", verification_ceiling: "V4" }, null],
      [{ kind: "analyst", verification_ceiling: "V0" }, null],
      [{ kind: "analyst", verification_ceiling: "V1" }, "above_the_kinds_maximum_V0"],
    ];
    for (const [fields, rule] of cases) {
      const body = { name: "Source", ...fields };
      expect(set.valid(schema, body), JSON.stringify(body)).toBe(rule === null);
      const response = await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, { token: space.tenant.token, body });
      const answer = await json<{ detail?: string }>(response, rule === null ? 201 : 422);
      if (rule !== null) expect(answer.detail).toBe(`verification_ceiling: ${rule}`);
    }
  });

  it("a person's e-mail follows the HTML form rule, dotless domains included", async () => {
    const schema: Schema = { $ref: "#/$defs/PersonInput" };
    for (const [email, ok] of [
      ["0@com", true],
      ["ana.lopez+crm@example.co", true],
      ["ana@", false],
      ['"quoted"@example.com', false],
      ["ana@[127.0.0.1]", false],
    ] as const) {
      const body = { email: `${crypto.randomUUID().slice(0, 8)}${email}`, password: "correct horse battery", roles: ["review"] };
      expect(set.valid(schema, body), email).toBe(ok);
      const response = await call("POST", "/control/v1/people", { token: space.tenant.token, body });
      expect(response.status, email).toBe(ok ? 201 : 422);
    }
  });
});

describe("times with offsets", () => {
  it("stores an occurred_at written with an offset at its UTC instant, and the item with UTC times", async () => {
    const own = await createSpace();
    const item = message({ occurred_at: "2026-01-15T14:00:00.123456+01:00" });
    expect((await json<Answer>(await batch(own, [item]), 200)).accepted).toBe(1);
    const rows = await runInDurableObject(env.SPACE.get(env.SPACE.idFromName(own.name)), (_instance: SpaceObject, state) =>
      state.storage.sql.exec<{ occurred_at: number; body: string }>("SELECT occurred_at, body FROM items").toArray(),
    );
    expect(rows[0]?.occurred_at).toBe(Date.UTC(2026, 0, 15, 13, 0, 0, 123));
    expect(JSON.parse(rows[0]?.body ?? "{}").occurred_at).toBe("2026-01-15T13:00:00.123Z");
  });

  it("answers a key's expires_at written with an offset in UTC", async () => {
    const response = await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
      token: space.tenant.token,
      headers: { "idempotency-key": crypto.randomUUID() },
      body: { scopes: ["track"], expires_at: "2999-06-01T12:00:00-03:00" },
    });
    expect((await json<{ expires_at: string }>(response, 201)).expires_at).toBe("2999-06-01T15:00:00.000Z");
  });
});

describe("query parameters", () => {
  it("refuses one a route does not declare, on list routes and on data routes", async () => {
    for (const [path, token] of [
      ["/control/v1/projects?limit=5&limt=5", space.tenant.token],
      [`/control/v1/spaces/${space.spaceId}/config?versoin=1`, space.tenant.token],
      [`/spaces/${space.name}/v1/whoami?debug=1`, space.key],
    ] as const) {
      const answer = await json<{ code: string; detail: string }>(await call("GET", path, { token }), 422);
      expect(answer).toMatchObject({ code: "invalid_input", detail: "query: unknown_field" });
    }
  });

  it("takes integers as digits only, and no null", async () => {
    const base = `/control/v1/spaces/${space.spaceId}/config`;
    await json(await call("GET", `${base}?version=0`, { token: space.tenant.token }), 200);
    for (const value of ["null", "", "1e0", "0x0", "-1", "0.0"]) {
      const answer = await json<{ detail: string }>(
        await call("GET", `${base}?version=${value}`, { token: space.tenant.token }),
        422,
      );
      expect(answer.detail, value).toMatch(/^query\.version: /);
    }
  });
});
