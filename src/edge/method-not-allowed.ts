/**
 * The methods a path answers to, from the routes as registered, so that a known path with the
 * wrong method is `405` with `Allow`, and an unknown path is `404`.
 */
export class RouteTable {
  #routes: { pattern: RegExp; method: string }[] = [];

  add(prefix: string, path: string, method: string): void {
    const source = `${prefix}${path}`
      .split("/")
      .map((segment) =>
        segment.startsWith("{") || segment.startsWith(":") ? "[^/]+" : segment.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("/");
    this.#routes.push({ pattern: new RegExp(`^${source}/?$`), method: method.toUpperCase() });
  }

  allowed(path: string): string[] {
    const methods = new Set(this.#routes.filter((route) => route.pattern.test(path)).map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  }
}
