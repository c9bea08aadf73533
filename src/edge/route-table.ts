import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

interface Entry {
  /** The path's segments; null stands for a template (`{id}`, `:space`), which takes any one segment. */
  segments: (string | null)[];
  /** As registered, for messages. */
  path: string;
  method: string;
  /** The query parameters the route declares; null where any is let through (the reference pages). */
  query: ReadonlySet<string> | null;
}

/** What a request's path and method come to before any handler runs. */
export type Resolution =
  | { outcome: "not_found" }
  /** `OPTIONS`: `204` with `Allow`. */
  | { outcome: "options"; allow: string }
  | { outcome: "method_not_allowed"; allow: string }
  | { outcome: "route"; query: ReadonlySet<string> | null };

/** The order methods are listed in `Allow`. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The routes as registered. A fixed segment wins over a template, as OpenAPI reads its paths:
 * of the routes whose path matches a request, only the most specific count (`/v1/profiles/lookup`
 * is never the profile `lookup`). On those: a known path with a method it does not have is `405`
 * with `Allow`, `OPTIONS` is `204` with the same `Allow`, an unknown path is `404`, and a query
 * parameter the route does not declare is refused like an unknown field of a body.
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

  /**
   * Adds a route in the order the router registers it. The router runs the first registered of
   * the routes that match a request, so a route more specific than one registered before it with
   * the same method would never be reached: that is refused here, when the app is built.
   */
  add(prefix: string, path: string, method: string, query: ReadonlySet<string> | null = null): void {
    const full = `${prefix}${path}`;
    const segments = full.split("/").map((segment) => (segment.startsWith("{") || segment.startsWith(":") ? null : segment));
    const entry: Entry = { segments, path: full, method: method.toUpperCase(), query };
    for (const earlier of this.#routes) {
      if (earlier.method === entry.method && overlap(earlier.segments, segments) && compare(segments, earlier.segments) > 0) {
        throw new Error(`${entry.method} ${full} is more specific than ${earlier.path}, registered before it`);
      }
    }
    this.#routes.push(entry);
  }

  /** The routes of the most specific paths that match `path` (none for an unknown path). */
  #matching(path: string): Entry[] {
    const segments = path.split("/");
    let best: Entry[] = [];
    for (const route of this.#routes) {
      if (!matches(route.segments, segments)) continue;
      const order = best[0] ? compare(route.segments, best[0].segments) : 1;
      if (order > 0) best = [route];
      else if (order === 0) best.push(route);
    }
    return best;
  }

  /** The methods of a path, as `Allow` lists them: `HEAD` with `GET`, and `OPTIONS`; empty when the path is unknown. */
  allowed(path: string): string[] {
    const routes = this.#matching(path);
    if (routes.length === 0) return [];
    const methods = new Set(routes.map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const rank = (method: string) => (METHOD_ORDER.includes(method) ? METHOD_ORDER.indexOf(method) : METHOD_ORDER.length);
    return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  /** How a request is answered by its method and path alone. */
  resolve(method: string, path: string): Resolution {
    const routes = this.#matching(path);
    if (routes.length === 0) return { outcome: "not_found" };
    const allow = this.allowed(path).join(", ");
    if (method === "OPTIONS") return { outcome: "options", allow };
    const wanted = method === "HEAD" ? "GET" : method;
    const route = routes.find((entry) => entry.method === wanted);
    if (!route) return { outcome: "method_not_allowed", allow };
    return { outcome: "route", query: route.query };
  }
}

function matches(pattern: (string | null)[], segments: string[]): boolean {
  if (pattern.length !== segments.length) return false;
  return pattern.every((segment, at) => (segment === null ? (segments[at] ?? "") !== "" : segment === segments[at]));
}

/** Whether some path matches both patterns. */
function overlap(a: (string | null)[], b: (string | null)[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((segment, at) => segment === null || b[at] === null || segment === b[at]);
}

/**
 * Which of two patterns that match one path is more specific: the one with a fixed segment
 * where the other has a template, at the first place they differ (> 0: `a`; 0: equally).
 */
function compare(a: (string | null)[], b: (string | null)[]): number {
  for (let at = 0; at < a.length; at++) {
    const fixedA = a[at] !== null;
    const fixedB = b[at] !== null;
    if (fixedA !== fixedB) return fixedA ? 1 : -1;
  }
  return 0;
}
