// MCP probe of `npm run bench` (issue: MCP endpoint), on a seeded space of the running service.
// context.mjs takes its samples in its interleaved rounds, next to `POST /v1/context`:
//   - mcp_context_p99_ms: p99 of sequential `get_customer_context` tool calls, each one plain
//     JSON-RPC POST to `{base}/mcp` (the endpoint is stateless: no initialize, no session);
//   - mcp_context_ratio: that p99 over the p99 of `POST /v1/context` of the same round, the
//     median of the rounds: what MCP adds to the same read (target ≤ 1.3).

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
 * A probe: one `get_customer_context` call per call, for a random customer of `handles` (handle
 * objects, or phone numbers); answers its time in ms. `base` the space's data base URL, `key` a
 * source key with scope `context`.
 */
export function mcpProbe({ base, key, handles }) {
  if (!handles || handles.length === 0) throw new Error("mcpProbe needs the handles of the seeded space");
  let id = 0;
  return async () => {
    const handle = handleOf(handles[Math.floor(Math.random() * handles.length)]);
    const t0 = performance.now();
    await callContext(base, key, id++, handle);
    return performance.now() - t0;
  };
}
