import type { MiddlewareHandler } from "hono";
import { parseJsonBody, readJsonBody } from "../http/body";
import type { AppEnv } from "./context";

/** Control bodies are small; anything larger is refused before it is read. */
export const CONTROL_BODY_LIMIT = 64 * 1024;

/**
 * Reads a JSON body within the limit and hands it to the route's validator: a wrong
 * Content-Type, an oversized or malformed body is `422 invalid_input`, never a 400 or a 500.
 */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const input = await readJsonBody(c.req.raw, CONTROL_BODY_LIMIT);
  parseJsonBody(input);
  // Hono's validator reads the body through this cache (its type names the methods, its values are promises).
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(input.status === "ok" ? input.text : "");
  await next();
};
