import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { MAX_BATCH_BYTES } from "../../contract/batch";
import { type BodyInput, readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { mcpServer } from "../mcp/server";
import { TOOLS } from "../mcp/tools";
import type { OtherEndpoint } from "../reference-page";
import { dataRequest } from "./space";

/** A `record_events` call carries a whole batch, plus its JSON-RPC envelope. */
const MCP_BODY_LIMIT = MAX_BATCH_BYTES + 64 * 1024;

/**
 * `POST <base>/mcp`: MCP over Streamable HTTP, stateless (no session: each POST is answered on
 * its own, as JSON), with the data API's credential. GET and DELETE (the server-to-client stream
 * and session end, both for sessions) are `405`. Not an OpenAPI path: its body is JSON-RPC.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.post("/mcp", async (c) => {
  const { space, credential } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, MCP_BODY_LIMIT);
  const message = jsonRpcMessage(body);
  if (message instanceof Response) return message;
  // A tool call is admitted by the object method it calls (a wrong key there is a tool error,
  // `unauthenticated`); anything else (initialize, tools/list) checks the key here, so a client
  // with a wrong key fails at the start with `401`.
  if (!onlyToolCalls(message)) unwrap(await space.whoami(credential));
  const server = mcpServer({ space, credential, requestId: c.get("requestId"), errorsUrl: c.env.ERRORS_URL });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: message });
});

/** The body as JSON, or the JSON-RPC error the SDK's transport answers when it reads the body itself. */
function jsonRpcMessage(body: BodyInput): unknown {
  switch (body.status) {
    case "not_json":
      return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    case "too_large":
      return jsonRpcError(413, -32000, `Payload Too Large: the body is larger than ${body.limit} bytes`);
    case "not_utf8":
      return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
    case "unreadable":
      return jsonRpcError(400, -32700, "Parse error: the body could not be read whole");
    case "ok":
      try {
        return JSON.parse(body.text);
      } catch {
        return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
      }
  }
}

/** The endpoint on `/docs`. */
export const mcpReference: OtherEndpoint = {
  method: "POST",
  url: "{base_url}/mcp",
  summary: "MCP endpoint (Model Context Protocol, Streamable HTTP, stateless)",
  description:
    "For agents and their frameworks: the tools below, each calling the same space method as its route, with the same source key (`Authorization: Bearer`) and the scope of that route. Answers are JSON (no session, no stream; GET and DELETE are `405`). A failed call is a tool result with `isError: true` and the route's problem document (`type`, `title`, `status`, `code`, `detail`, `request_id`) in `structuredContent`; a missing or malformed key is `401` before MCP. Each tool's input schema is its route's body schema.",
  items: TOOLS.map((tool) => ({ name: tool.name, text: tool.description })),
};

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

function onlyToolCalls(message: unknown): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return (
    messages.length > 0 &&
    messages.every((each) => typeof each === "object" && each !== null && (each as { method?: unknown }).method === "tools/call")
  );
}
