import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * Gives every request an id (header `Request-Id`, and `request_id` in problems) and a W3C
 * `traceparent`: the caller's when valid, a new one otherwise (never an error).
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const requestId = crypto.randomUUID();
  c.set("requestId", requestId);
  const given = c.req.header("traceparent")?.trim().toLowerCase();
  const traceparent = given && TRACEPARENT.test(given) ? given : newTraceparent();
  await next();
  c.res.headers.set("Request-Id", requestId);
  c.res.headers.set("traceparent", traceparent);
};

function newTraceparent(): string {
  const hex = (bytes: number) =>
    [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `00-${hex(16)}-${hex(8)}-01`;
}
