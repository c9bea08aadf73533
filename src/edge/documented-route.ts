import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Handler } from "hono";
import { describeIssues } from "../http/issues";
import { Problem } from "../http/problem";
import type { AppEnv } from "./context";

/**
 * Registers a data route for the OpenAPI document without validating its body at the edge:
 * the space's object must check the credential against its replica before it looks at the
 * body (DESIGN §1), so it validates the body itself with the same schema. Path and query
 * parameters are part of the address and are checked here.
 */
export function documentedRoute(app: OpenAPIHono<AppEnv>, route: RouteConfig, handler: Handler<AppEnv>): void {
  app.openAPIRegistry.registerPath(route);
  const { params, query } = route.request ?? {};
  app.on(route.method.toUpperCase(), route.path.replaceAll(/\{(\w+)\}/g, ":$1"), async (c, next) => {
    // The path's and the query's errors in one answer.
    const parts: string[] = [];
    for (const [where, schema, value] of [
      ["param", params, c.req.param()],
      ["query", query, c.req.query()],
    ] as const) {
      const parsed = schema && "safeParse" in schema ? schema.safeParse(value) : null;
      if (parsed && !parsed.success) parts.push(describeIssues(undefined, parsed.error.issues, where, "body", value));
    }
    if (parts.length > 0) throw new Problem("invalid_input", parts.join("; "));
    return handler(c, next);
  });
}
