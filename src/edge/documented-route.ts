import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Handler } from "hono";
import type { AppEnv } from "./context";

/**
 * Registers a data route for the OpenAPI document without validating its body at the edge:
 * the space's object must check the credential against its replica before it looks at the
 * body (DESIGN §1), so it validates the body itself with the same schema.
 */
export function documentedRoute(app: OpenAPIHono<AppEnv>, route: RouteConfig, handler: Handler<AppEnv>): void {
  app.openAPIRegistry.registerPath(route);
  app.on(route.method.toUpperCase(), route.path.replaceAll(/\{(\w+)\}/g, ":$1"), handler);
}
