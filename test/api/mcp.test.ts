import { SELF } from "cloudflare:test";
import { Validator } from "@cfworker/json-schema";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { afterEach, describe, expect, it } from "vitest";
import { BatchAnswerSchema, BatchRequestSchema } from "../../src/contract/batch";
import { ContextAnswerSchema, ContextInputSchema, ContextSchema } from "../../src/contract/context";
import { FeedbackRequestSchema } from "../../src/contract/feedback";
import { HistoryItemSchema, HistoryOpenInputSchema, TimelineInputSchema, TimelinePageSchema } from "../../src/contract/history";
import { SearchInputSchema, SearchPageSchema } from "../../src/contract/search";
import { TOOLS } from "../../src/edge/mcp/tools";
import { type Handle, personToken, phone, query } from "../support/identity";
import { later, moveClock } from "../support/memory";
import { batch, call, createKey, createSpace, json, message, ORIGIN, type Space } from "../support/seed";

/**
 * The MCP endpoint (DESIGN 3.15): an MCP client of the official SDK over Streamable HTTP against
 * the Worker. Each tool answers what its route answers for the same request, with the same
 * scopes, and a failure is a tool error carrying the route's problem document.
 */

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const TOOL_NAMES = [
  "get_customer_context",
  "search_customer_memory",
  "open_history_item",
  "customer_timeline",
  "record_events",
  "give_feedback",
];

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const mcpUrl = (space: Space) => new URL(`${ORIGIN}/spaces/${space.name}/mcp`);

/** An MCP client of `space` with `key`, connected (initialized) through the Worker. */
async function connect(space: Space, key = space.key): Promise<Client> {
  const client = new Client(
    { name: "mcp-test", version: "1.0.0" },
    // Ajv, the default, compiles schemas with `new Function`, which workerd refuses.
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(mcpUrl(space), {
    fetch: (url, init) => SELF.fetch(url, init),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful call: its structured answer (and its text, which must be there for models that read text). */
async function answer(client: Client, name: string, args: Record<string, unknown>) {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
  const text = result.content.find((part) => part.type === "text");
  expect(text?.type === "text" && text.text.length > 0).toBe(true);
  return { data: result.structuredContent as Record<string, unknown>, text: text?.type === "text" ? text.text : "" };
}

/** A failed call: a tool error (not a protocol error) with the problem document, its code in the text too. */
async function toolProblem(client: Client, name: string, args: Record<string, unknown>, code: string, status: number) {
  const result = await callTool(client, name, args);
  expect(result.isError).toBe(true);
  const problem = result.structuredContent as { type: string; code: string; status: number; detail: string | null };
  expect(problem).toMatchObject({ code, status, type: `https://errors.memory.localhost/${code}` });
  const text = result.content[0];
  expect(text?.type === "text" && text.text.includes(code)).toBe(true);
  return problem;
}

const post = (space: Space, path: string, body: unknown, token = space.key) =>
  call("POST", `/spaces/${space.name}${path}`, { token, body });

const withoutAsOf = ({ as_of: _, ...rest }: Record<string, unknown>) => rest;

const say = (handle: Handle, at: number, text: string, overrides: Record<string, unknown> = {}) =>
  message({
    handles: [handle],
    occurred_at: iso(at),
    conversation_id: "mcp-conv",
    content: { type: "text", text },
    ...overrides,
  });

/** Arguments each tool takes, for calls refused before they run (nothing of them is stored). */
const refusedCallArguments = (handle: Handle): Record<string, Record<string, unknown>> => ({
  get_customer_context: { handle },
  search_customer_memory: { query: "refund" },
  open_history_item: { item_id: "x", handle },
  customer_timeline: { handle },
  record_events: { items: [say(handle, Date.now() - MINUTE, "stored only if the call were admitted")] },
  give_feedback: { items: [{ action: "retract_fact", fact_id: "f", idempotency_key: `fb-${crypto.randomUUID()}` }] },
});

/** A space with a frozen clock and a customer who said something, compiled into memory. */
async function customer(handle: Handle) {
  const space = await createSpace();
  const t0 = await moveClock(space, 0);
  const stored = BatchAnswerSchema.parse(
    await json(await batch(space, [say(handle, t0 - 10 * MINUTE, "My tier is gold. Where is my refund?")]), 200),
  );
  expect(stored.accepted).toBe(1);
  await later(space, 1_000);
  return { space, t0 };
}

describe("MCP endpoint: tools listed from the routes' schemas", () => {
  it("lists the six tools, each input the JSON Schema of its route's body", async () => {
    const space = await createSpace();
    const client = await connect(space);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const properties = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();

    // One source of truth: a field added to a route's body appears in its tool.
    expect(properties("get_customer_context")).toEqual(Object.keys(ContextInputSchema.shape).sort());
    expect(properties("search_customer_memory")).toEqual(Object.keys(SearchInputSchema.shape).sort());
    expect(properties("customer_timeline")).toEqual(Object.keys(TimelineInputSchema.shape).sort());
    expect(properties("record_events")).toEqual(Object.keys(BatchRequestSchema.shape));
    expect(properties("give_feedback")).toEqual(Object.keys(FeedbackRequestSchema.shape));
    // The one field left out: a verification claim is the runtime's to make, not a model's.
    expect(properties("open_history_item")).toEqual(
      Object.keys(HistoryOpenInputSchema.shape)
        .filter((name) => name !== "verification")
        .sort(),
    );
    expect(byName.get("get_customer_context")?.inputSchema.required).toEqual(["handle"]);

    // The schemas carry the server's rules: a validator accepts what the server accepts and refuses the rest.
    const context = new Validator(byName.get("get_customer_context")?.inputSchema as object, "2020-12", false);
    expect(context.validate({ handle: phone("+15555550100") }).valid).toBe(true);
    expect(context.validate({ handle: phone("+15555550100"), known_etag: "" }).valid).toBe(false);
    expect(context.validate({ handle: { type: "phone_e164" } }).valid).toBe(false);
    const events = new Validator(byName.get("record_events")?.inputSchema as object, "2020-12", false);
    expect(events.validate({ items: [say(phone("+15555550100"), Date.now(), "hello")] }).valid).toBe(true);
    expect(
      events.validate({ items: [say(phone("+15555550100"), Date.now(), "hello", { occurred_at: "2026-02-30T10:00:00" })] }).valid,
    ).toBe(false);
    for (const tool of tools)
      expect(tool.annotations?.readOnlyHint).toBe(!["record_events", "give_feedback"].includes(tool.name));
  });

  it("is stateless: a tools/call POST without a session answers on its own, as JSON", async () => {
    const handle = phone("+15555550110");
    const { space } = await customer(handle);
    const response = await SELF.fetch(mcpUrl(space), {
      method: "POST",
      headers: {
        authorization: `Bearer ${space.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "get_customer_context", arguments: { handle } },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = await json<{ id: number; result: CallToolResult }>(response);
    expect(body.id).toBe(7);
    expect(ContextSchema.parse(body.result.structuredContent).profile_id).toEqual(expect.any(String));
  });

  it("answers GET and DELETE with 405, and a missing or unknown key with 401 before MCP", async () => {
    const space = await createSpace();
    const get = await call("GET", `/spaces/${space.name}/mcp`, { token: space.key });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await call("DELETE", `/spaces/${space.name}/mcp`, { token: space.key })).status).toBe(405);

    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const headers = { accept: "application/json, text/event-stream" };
    const missing = await call("POST", `/spaces/${space.name}/mcp`, { body: initialize, headers });
    expect(missing.status).toBe(401);
    expect((await json(missing)).code).toBe("unauthenticated");
    // A well-formed key of the space that the space does not hold (revoked): refused at initialize.
    await json(
      await call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
      }),
      200,
    );
    const revoked = await call("POST", `/spaces/${space.name}/mcp`, { token: space.key, body: initialize, headers });
    expect(revoked.status).toBe(401);
    await expect(connect(space)).rejects.toThrow();
  });
});

describe("MCP endpoint: each tool answers what its route answers", () => {
  it("get_customer_context: the context of POST /v1/context, a text rendering, and the etag", async () => {
    const handle = phone("+15555550120");
    const { space, t0 } = await customer(handle);
    await json(await batch(space, [say(handle, t0 - MINUTE, "Is it shipped yet?")]), 200);
    const client = await connect(space);

    const { data, text } = await answer(client, "get_customer_context", { handle });
    const http = await json(await post(space, "/v1/context", { handle }), 200);
    const context = ContextSchema.parse(data);
    expect(withoutAsOf(data)).toEqual(withoutAsOf(http));
    expect(context.memory.facts.map((fact) => [fact.key, fact.value])).toEqual([["tier", "gold"]]);
    expect(context.live.map((item) => item.text)).toContain("Is it shipped yet?");
    expect(text).toContain(context.etag);
    expect(text).toContain("tier = gold");
    expect(text).toContain("Is it shipped yet?");

    const unchanged = await answer(client, "get_customer_context", { handle, known_etag: context.etag });
    expect(ContextAnswerSchema.parse(unchanged.data)).toEqual({ unchanged: true, etag: context.etag });
    expect(unchanged.text).toContain(context.etag);
  });

  it("search_customer_memory, customer_timeline and open_history_item: the answers of their routes", async () => {
    const handle = phone("+15555550130");
    const { space } = await customer(handle);
    const client = await connect(space);

    const search = await answer(client, "search_customer_memory", { query: "refund", handle, limit: 5 });
    const searchHttp = await json(await post(space, "/v1/search", { query: "refund", handle, limit: 5 }), 200);
    expect(SearchPageSchema.parse(search.data).results.length).toBeGreaterThan(0);
    expect(search.data).toEqual(searchHttp);

    const timeline = await answer(client, "customer_timeline", { handle, limit: 10 });
    const timelineHttp = await json(await post(space, "/v1/timeline", { handle, limit: 10 }), 200);
    const page = TimelinePageSchema.parse(timeline.data);
    expect(page.data.map((event) => event.text)).toEqual(["My tier is gold. Where is my refund?"]);
    expect(timeline.data).toEqual(timelineHttp);

    const episodeId = page.data[0]?.episode_id ?? "";
    const history = await answer(client, "open_history_item", { item_id: episodeId, handle, conversation_id: "mcp-conv" });
    const historyHttp = await json(
      await post(space, "/v1/history/open", { item_id: episodeId, handle, conversation_id: "mcp-conv" }),
      200,
    );
    expect(HistoryItemSchema.parse(history.data).id).toBe(episodeId);
    expect(withoutAsOf(history.data)).toEqual(withoutAsOf(historyHttp));
  });

  it("record_events: the batch answer, with the same per-item errors and dedup as POST /v1/batch", async () => {
    const handle = phone("+15555550140");
    const space = await createSpace();
    const client = await connect(space);
    const good = say(handle, Date.now() - MINUTE, "Please call me at 9am");
    const bad = say(handle, Date.now() - MINUTE, "no zone", { occurred_at: "2026-11-23T10:00:00" });

    const first = await answer(client, "record_events", { items: [good, bad] });
    expect(BatchAnswerSchema.parse(first.data)).toEqual({
      accepted: 1,
      duplicates: 0,
      errors: [{ index: 1, code: "invalid_input", detail: expect.stringContaining("occurred_at") }],
    });
    // The same request over HTTP: the good item is now a duplicate, the bad one refused alike.
    const http = await json(await batch(space, [good, bad]), 207);
    expect(http).toEqual({ ...first.data, accepted: 0, duplicates: 1 });
    const again = await answer(client, "record_events", { items: [good] });
    expect(again.data).toEqual({ accepted: 0, duplicates: 1, errors: [] });

    const context = ContextSchema.parse((await answer(client, "get_customer_context", { handle })).data);
    expect(context.live.map((item) => item.text)).toEqual(["Please call me at 9am"]);
  });

  it("give_feedback: the feedback answer, and the change in the next context", async () => {
    const handle = phone("+15555550150");
    const { space } = await customer(handle);
    const client = await connect(space);
    const before = ContextSchema.parse((await answer(client, "get_customer_context", { handle })).data);
    const fact = before.memory.facts[0];
    expect(fact?.key).toBe("tier");

    const unknown = { action: "retract_fact", fact_id: "no-such-fact", idempotency_key: `fb-${crypto.randomUUID()}` };
    const retract = { action: "retract_fact", fact_id: fact?.fact_id, idempotency_key: `fb-${crypto.randomUUID()}` };
    const given = await answer(client, "give_feedback", { items: [retract, unknown] });
    expect(BatchAnswerSchema.parse(given.data)).toMatchObject({ accepted: 1, errors: [{ index: 1, code: "not_found" }] });
    // The same request over HTTP (the retraction again, under a key of its own): the same answer.
    const again = { ...retract, idempotency_key: `fb-${crypto.randomUUID()}` };
    expect(await json(await post(space, "/v1/feedback", { items: [again, unknown] }), 207)).toEqual(given.data);

    const after = ContextSchema.parse((await answer(client, "get_customer_context", { handle })).data);
    expect(after.memory.facts).toEqual([]);
  });
});

describe("MCP endpoint: failures are tool errors with the problem code", () => {
  it("names the scope a tool needs when the key lacks it", async () => {
    const space = await createSpace();
    // `admin` is no tool's scope.
    const { key } = await createKey(space.tenant.token, space.sourceId, ["admin"]);
    const client = await connect(space, key);
    const handle = phone("+15555550160");
    const args = refusedCallArguments(handle);
    for (const tool of TOOLS) {
      const problem = await toolProblem(client, tool.name, args[tool.name] ?? {}, "scope_missing", 403);
      expect(problem.detail).toContain(tool.scope);
    }
    // The write was refused, not stored: the full key reads nothing.
    await json(await post(space, "/v1/context", { handle }), 404);
  });

  it("refuses bad input with invalid_input, as the route does", async () => {
    const space = await createSpace();
    const client = await connect(space);
    const problem = await toolProblem(client, "get_customer_context", {}, "invalid_input", 422);
    const http = await json(await post(space, "/v1/context", {}), 422);
    expect(problem.detail).toBe(http.detail);
    expect(problem.detail).toContain("handle");

    await toolProblem(client, "search_customer_memory", { query: "" }, "invalid_input", 422);
    await toolProblem(client, "customer_timeline", { handle: phone("+15555550170"), limit: 1000 }, "invalid_input", 422);
    await toolProblem(client, "record_events", { items: [] }, "invalid_input", 422);
    await toolProblem(client, "give_feedback", { items: "none" }, "invalid_input", 422);
    // Arguments over the route's body limit (2.5 MB for a batch) are refused as its body would be.
    const large = await toolProblem(client, "record_events", { items: Array(3).fill("x".repeat(840_000)) }, "invalid_input", 422);
    expect(large.detail).toBe("body is larger than 2500000 bytes");
    // The field the history tool leaves out is refused like any field it does not declare, and never named.
    const history = await toolProblem(
      client,
      "open_history_item",
      { item_id: "x", handle: phone("+15555550170"), verification: "V4" },
      "invalid_input",
      422,
    );
    expect(history.detail).toBe("body: unknown_field");
  });

  it("answers not_found for a handle the space does not know, creating nothing", async () => {
    const space = await createSpace();
    const client = await connect(space);
    const handle = phone("+15555550180");
    await toolProblem(client, "get_customer_context", { handle }, "not_found", 404);
    await toolProblem(client, "search_customer_memory", { query: "refund", handle }, "not_found", 404);
    await toolProblem(client, "customer_timeline", { handle }, "not_found", 404);
    await toolProblem(client, "open_history_item", { item_id: "x", handle }, "not_found", 404);
    await json(await post(space, "/v1/context", { handle }), 404);
  });
});

describe("MCP endpoint: a person's reads are audited with the request's id", () => {
  it("records each read tool a review person calls with the Request-Id of its MCP request", async () => {
    const handle = phone("+15555550197");
    const { space } = await customer(handle);
    const client = await connect(space, await personToken(space, ["review"]));
    await answer(client, "get_customer_context", { handle });
    await answer(client, "search_customer_memory", { query: "refund", handle });
    await answer(client, "customer_timeline", { handle });
    const rows = await query<{ action: string; request_id: string | null }>(
      space,
      "SELECT action, request_id FROM audit_log WHERE action IN ('context.read', 'search.read', 'timeline.read') ORDER BY seq",
    );
    expect(rows.map((row) => row.action)).toEqual(["context.read", "search.read", "timeline.read"]);
    for (const row of rows) expect(row.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(rows.map((row) => row.request_id)).size).toBe(3);
  });
});

/** A `tools/call` with `params` as JSON text, over plain JSON-RPC: its JSON-RPC answer. */
async function rawCall(space: Space, params: string) {
  const response = await SELF.fetch(mcpUrl(space), {
    method: "POST",
    headers: {
      authorization: `Bearer ${space.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: `{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": ${params}}`,
  });
  const body = await json<{ id: number; result?: CallToolResult; error?: { code: number; message: string } }>(response, 200);
  expect(body.id).toBe(11);
  return body;
}

describe("MCP endpoint: what agents.md promises of keys, tool names, arguments and history text", () => {
  const revoke = async (space: Space, keyId: string) =>
    json(
      await call("POST", `/control/v1/keys/${keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
      }),
      200,
    );

  it("makes a tool call with a key revoked after initialize a tool error unauthenticated; other requests are 401", async () => {
    const handle = phone("+15555550210");
    const { space } = await customer(handle);
    const { key, key_id } = await createKey(space.tenant.token, space.sourceId, ["context", "search"]);
    const client = await connect(space, key);
    expect(ContextSchema.parse((await answer(client, "get_customer_context", { handle })).data).profile_id).toEqual(
      expect.any(String),
    );
    await revoke(space, key_id);

    // The same conversation, its next calls: each a tool error with the route's problem, never a result.
    await toolProblem(client, "get_customer_context", { handle }, "unauthenticated", 401);
    await toolProblem(client, "search_customer_memory", { query: "refund", handle }, "unauthenticated", 401);
    // The route answers the same.
    await json(await post(space, "/v1/context", { handle }, key), 401);
    // A request other than a tool call checks the key before MCP: 401, which the SDK's client raises.
    await expect(client.listTools()).rejects.toThrow(/401/);
  });

  it("answers an unknown tool name with a JSON-RPC error -32602, not a tool result", async () => {
    const space = await createSpace();
    const client = await connect(space);
    const refused = client.callTool({ name: "no_such_tool", arguments: {} });
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.InvalidParams });

    // Over plain JSON-RPC: an error object with the request's id, and no result.
    const response = await SELF.fetch(mcpUrl(space), {
      method: "POST",
      headers: {
        authorization: `Bearer ${space.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "no_such_tool", arguments: {} } }),
    });
    const body = await json<{ id: number; result?: unknown; error?: { code: number; message: string } }>(response, 200);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32602 } });
    expect(body.result).toBeUndefined();
  });

  it("refuses an argument a tool does not declare with invalid_input body: unknown_field, before the call", async () => {
    const space = await createSpace();
    const client = await connect(space);
    const handle = phone("+15555550220");
    const args = refusedCallArguments(handle);
    for (const tool of TOOLS) {
      const problem = await toolProblem(
        client,
        tool.name,
        { ...args[tool.name], surprise: "my passport is X1234567" },
        "invalid_input",
        422,
      );
      // Refused as a whole, the made-up name never echoed.
      expect(problem.detail, tool.name).toBe("body: unknown_field");
    }
    // The write was refused, not stored.
    await json(await post(space, "/v1/context", { handle }), 404);

    // Whatever the name: `__proto__` too (sent as JSON text: in a JS object literal it would set the prototype).
    for (const [name, args] of [
      ["search_customer_memory", '{"query": "refund", "__proto__": {"mode": "fts5"}}'],
      ["search_customer_memory", '{"query": "refund", "__proto__": 1}'],
      ["open_history_item", `{"item_id": "x", "handle": ${JSON.stringify(handle)}, "__proto__": {"verification": "V4"}}`],
      ["record_events", `{"items": [], "__proto__": {}}`],
    ] as const) {
      const result = await rawCall(space, `{"name": "${name}", "arguments": ${args}}`);
      expect(result.error, args).toBeUndefined();
      expect(result.result?.isError, args).toBe(true);
      expect(result.result?.structuredContent, args).toMatchObject({ code: "invalid_input", detail: "body: unknown_field" });
    }
  });

  it("answers a tools/call whose params are malformed (no name, arguments not an object) with a JSON-RPC error -32602", async () => {
    const space = await createSpace();
    for (const params of [
      '{"arguments": {"query": "refund"}}',
      '{"name": 7, "arguments": {}}',
      '{"name": "search_customer_memory", "arguments": "refund"}',
      '{"name": "search_customer_memory", "arguments": ["refund"]}',
      '{"name": "search_customer_memory", "arguments": null}',
    ]) {
      const answer = await rawCall(space, params);
      expect(answer.result, params).toBeUndefined();
      expect(answer.error?.code, params).toBe(ErrorCode.InvalidParams);
    }
  });

  it("open_history_item shows message text only where the space's history_text_level is V0 (or no_customer, below it)", async () => {
    const handle = phone("+15555550230");
    const { space } = await customer(handle);
    const setLevel = async (level: string) =>
      json(
        await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
          token: space.tenant.token,
          body: { values: { history_text_level: level } },
        }),
        200,
      );
    const client = await connect(space);
    const timeline = TimelinePageSchema.parse((await answer(client, "customer_timeline", { handle })).data);
    const episodeId = timeline.data[0]?.episode_id ?? "";
    const open = async () =>
      HistoryItemSchema.parse((await answer(client, "open_history_item", { item_id: episodeId, handle })).data);
    const said = "My tier is gold. Where is my refund?";

    // The default level (V2): the tool reads as V0, so no text; the route, told V2 by the runtime, shows it.
    const hidden = await open();
    expect(hidden.text_shown).toBe(false);
    expect(hidden.timeline.map((entry) => entry.text)).toEqual([null]);
    expect(hidden.summary.length).toBeGreaterThan(0);
    const verified = HistoryItemSchema.parse(
      await json(await post(space, "/v1/history/open", { item_id: episodeId, handle, verification: "V2" }), 200),
    );
    expect(verified.timeline.map((entry) => entry.text)).toEqual([said]);

    for (const level of ["V1", "V3", "V4"]) {
      await setLevel(level);
      const above = await open();
      expect(above.text_shown, level).toBe(false);
      expect(
        above.timeline.map((entry) => entry.text),
        level,
      ).toEqual([null]);
    }
    // At V0, and at `no_customer` (below V0): the tool's V0 meets it.
    for (const level of ["V0", "no_customer"]) {
      await setLevel(level);
      const shown = await open();
      expect(shown.text_shown, level).toBe(true);
      expect(
        shown.timeline.map((entry) => entry.text),
        level,
      ).toEqual([said]);
      expect(shown.summary, level).toBe(hidden.summary);
    }
  });
});
