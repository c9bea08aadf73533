import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

interface Entry {
  pattern: RegExp;
  method: string;
  /** The query parameters the route declares; null where any is let through (the reference pages). */
  query: ReadonlySet<string> | null;
}

/**
 * The routes as registered: a known path with the wrong method is `405` with `Allow`, an unknown
 * path is `404`, and a query parameter the route does not declare is refused like an unknown
 * field of a body.
 */
export class RouteTable {
  #routes: Entry[] = [];

  /** Every route of an API, with the query parameters its definition declares. */
  addApi(prefix: string, api: OpenAPIHono<AppEnv>): void {
    for (const definition of api.openAPIRegistry.definitions) {
      if (definition.type !== "route") continue;
      const { path, method, request } = definition.route as RouteConfig;
      const shape = (request?.query as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      this.add(prefix, path, method, new Set(Object.keys(shape)));
    }
  }

  add(prefix: string, path: string, method: string, query: ReadonlySet<string> | null = null): void {
    const source = `${prefix}${path}`
      .split("/")
      .map((segment) =>
        segment.startsWith("{") || segment.startsWith(":") ? "[^/]+" : segment.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    this.#routes.push({ pattern: new RegExp(`^${source}/?$`), method: method.toUpperCase(), query });
  }

  allowed(path: string): string[] {
    const methods = new Set(this.#routes.filter((route) => route.pattern.test(path)).map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  }

  /** True when the route matched by method and path declares every parameter named. */
  declaresQuery(method: string, path: string, names: Iterable<string>): boolean {
    const wanted = method === "HEAD" ? "GET" : method;
    const route = this.#routes.find((entry) => entry.method === wanted && entry.pattern.test(path));
    if (!route?.query) return true;
    for (const name of names) if (!route.query.has(name)) return false;
    return true;
  }
}
