// MCP figures of `npm run bench` (issue: MCP endpoint), on a seeded space of the running service:
//   - mcp_context_p99_ms: p99 of sequential `get_customer_context` tool calls, each one plain
//     JSON-RPC POST to `{base}/mcp` (the endpoint is stateless: no initialize, no session);
//   - mcp_context_ratio: that p99 over the p99 of `POST /v1/context` measured by the caller in
//     the same run (`httpP99`), so it is what MCP adds to the same read (target ≤ 1.3).
import { percentile, round } from "./figures.mjs";

const WARMUP_CALLS = 20;
const CALLS = 300;

const handleOf = (handle) => (typeof handle === "string" ? { type: "phone_e164", value: handle } : handle);

/** One `tools/call` of `get_customer_context` as an MCP client sends it; its structured answer. */
async function callContext(base, key, id, handle) {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_customer_context", arguments: { handle } },
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${base}/mcp answered ${response.status}: ${text.slice(0, 300)}`);
  const { result, error } = JSON.parse(text);
  if (error || result?.isError) throw new Error(`get_customer_context failed: ${text.slice(0, 300)}`);
  if (typeof result.structuredContent?.etag !== "string") throw new Error("get_customer_context answered no etag");
  return result.structuredContent;
}

/**
 * `base` the space's data base URL, `key` a source key with scope `context`, `handles` customers
 * of the space (handle objects, or phone numbers), `httpP99` the p99 of `POST /v1/context` of the
 * same run.
 */
export async function measureMcp({ base, key, handles, httpP99 }) {
  if (!handles || handles.length === 0) throw new Error("measureMcp needs the handles of the seeded space");
  const once = async (i) => {
    const handle = handleOf(handles[Math.floor(Math.random() * handles.length)]);
    const t0 = performance.now();
    await callContext(base, key, i, handle);
    return performance.now() - t0;
  };
  for (let i = 0; i < WARMUP_CALLS; i++) await once(i);
  const latencies = [];
  for (let i = 0; i < CALLS; i++) latencies.push(await once(WARMUP_CALLS + i));
  latencies.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  return { mcp_context_p99_ms: round(p99, 1), mcp_context_ratio: round(p99 / httpP99, 2) };
}
