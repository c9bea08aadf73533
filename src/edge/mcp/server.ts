import { z } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import type { PresentedCredential } from "../../auth/credential";
import type { BodyInput } from "../../http/body";
import { Problem, unwrap } from "../../http/problem";
import { problemDocument } from "../../http/render";
import type { spaceObject } from "../../space/address";
import { toolInputSchemas } from "./schemas";
import { type McpTool, TOOLS, TOOLS_BY_NAME } from "./tools";

const INSTRUCTIONS =
  'Memory of the customers of one space. At the start of every turn read `get_customer_context` for the customer (a handle such as `{type: "phone_e164", value: "+15555550123"}`); record what was said and done with `record_events`, stamping the agent\'s messages with the context\'s `etag`; correct memory with `give_feedback`. `search_customer_memory`, `customer_timeline` and `open_history_item` look further back. A failed call answers `isError` with the service\'s problem document (`code`, `status`, `detail`) in `structuredContent`.';

/** Built once per isolate, on the first listing: the same for every request. */
let listed: Tool[] | null = null;

function toolList(): Tool[] {
  if (listed) return listed;
  const schemas = toolInputSchemas(TOOLS);
  listed = TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.get(tool.name) as Tool["inputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: false,
      // Writes are deduplicated by `idempotency_key`: a resend changes nothing.
      idempotentHint: true,
      openWorldHint: false,
    },
  }));
  return listed;
}

/**
 * The server validates JSON Schema only to elicit input from a user, which these tools never do;
 * so no validator is constructed per request for it.
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "elicitation is not offered" }),
};

export interface ToolCaller {
  space: ReturnType<typeof spaceObject>;
  credential: PresentedCredential;
  requestId: string;
  errorsUrl: string;
}

/**
 * An MCP server for one request (stateless: nothing is kept between requests, and the SDK's
 * stateless transport serves one request only), its tools calling the space's object for
 * `caller`.
 */
export function mcpServer(caller: ToolCaller): Server {
  const server = new Server(
    { name: "customer-memory-service", version: "1.0.0" },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(TOOL_CALL_AS_SENT, (request) => callTool(caller, request.params as CallToolRequest["params"]));
  return server;
}

/**
 * A `tools/call` as sent. The `Server` validates every call with the SDK's `CallToolRequestSchema`
 * (a malformed one is `-32602`, invalid params) and then hands the handler what the registered
 * schema parsed: this one leaves the arguments as sent. Registered with the SDK's schema, zod's
 * record would copy `arguments`, and a key `__proto__` would set the copy's prototype and be lost
 * (an argument of that name dropped instead of refused, as the route refuses it), and a call that
 * schema refuses would be `-32603`, an internal error.
 */
const TOOL_CALL_AS_SENT = z.object({ method: z.literal("tools/call"), params: z.unknown() });

async function callTool(caller: ToolCaller, params: CallToolRequest["params"]): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(params.name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, "no such tool; see tools/list");
  try {
    const args = params.arguments ?? {};
    refuseUndeclared(tool, args);
    const answer = unwrap(await tool.call(caller.space, caller.credential, bodyOf(args, tool.bodyLimit), caller.requestId));
    const text = tool.text ? tool.text(answer) : JSON.stringify(answer);
    // Every answer of these routes is a JSON object.
    return { content: [{ type: "text", text }], structuredContent: answer as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Problem) return problemResult(error, caller);
    // As the app's onError: the class and the place, never the message (it can quote input).
    const failure = error instanceof Error ? error : new Error("non-error thrown");
    const at = failure.stack?.split("\n")[1]?.trim() ?? null;
    console.error(JSON.stringify({ request_id: caller.requestId, tool: tool.name, error: failure.name, at }));
    return problemResult(new Problem("internal_error", "unexpected failure; retry with backoff"), caller);
  }
}

/**
 * An argument the tool does not declare is refused before the call, like a query parameter a
 * route does not declare (and never named: a made-up name can carry personal data). Only a tool
 * that leaves out a field of its route needs it; for the others the object refuses the same.
 */
function refuseUndeclared(tool: McpTool, args: Record<string, unknown>): void {
  for (const name of Object.keys(args)) {
    if (!Object.hasOwn(tool.input.shape, name)) throw new Problem("invalid_input", "body: unknown_field");
  }
}

/** The arguments as the route's body, held to the route's limit. */
function bodyOf(args: Record<string, unknown>, limit: number): BodyInput {
  const text = JSON.stringify(args);
  // UTF-8 takes at most 3 bytes per UTF-16 unit: count bytes only when it matters.
  if (text.length * 3 > limit && new TextEncoder().encode(text).byteLength > limit) return { status: "too_large", limit };
  return { status: "ok", text };
}

/** A failure as a tool error: the problem document the route would answer, as data and as text. */
function problemResult(problem: Problem, caller: ToolCaller): CallToolResult {
  const document = problemDocument(problem, caller.requestId, caller.errorsUrl);
  return {
    isError: true,
    content: [{ type: "text", text: `${document.code} (${document.status}): ${document.detail ?? document.title}` }],
    structuredContent: document,
  };
}
