import { describe, expect, it } from "vitest";
import { RouteTable } from "../../src/edge/route-table";

/** How a method and a path are answered before any route runs, by the routes registered. */

function table(): RouteTable {
  const routes = new RouteTable();
  routes.add("/spaces/:space", "/v1/profiles/lookup", "post", new Set());
  routes.add("/spaces/:space", "/v1/profiles/{id}", "get", new Set(["fields"]));
  routes.add("/spaces/:space", "/v1/profiles/{id}/context", "get", new Set());
  routes.add("/control", "/v1/spaces/{id}/config", "get", new Set());
  routes.add("/control", "/v1/spaces/{id}/config", "put", new Set());
  routes.add("", "/v1/openapi.json", "get");
  return routes;
}

describe("RouteTable", () => {
  it("lets a fixed segment win over a template, for routing and for Allow", () => {
    const routes = table();
    expect(routes.resolve("GET", "/spaces/s/v1/profiles/lookup")).toEqual({
      outcome: "method_not_allowed",
      allow: "POST, OPTIONS",
    });
    expect(routes.resolve("POST", "/spaces/s/v1/profiles/lookup")).toEqual({ outcome: "route", query: new Set() });
    expect(routes.resolve("GET", "/spaces/s/v1/profiles/p-1")).toEqual({ outcome: "route", query: new Set(["fields"]) });
    expect(routes.resolve("POST", "/spaces/s/v1/profiles/p-1")).toEqual({
      outcome: "method_not_allowed",
      allow: "GET, HEAD, OPTIONS",
    });
  });

  it("answers OPTIONS with the path's methods, HEAD with GET, OPTIONS itself, in one order", () => {
    const routes = table();
    expect(routes.resolve("OPTIONS", "/control/v1/spaces/x/config")).toEqual({
      outcome: "options",
      allow: "GET, HEAD, PUT, OPTIONS",
    });
    expect(routes.resolve("OPTIONS", "/v1/openapi.json")).toEqual({ outcome: "options", allow: "GET, HEAD, OPTIONS" });
    expect(routes.resolve("HEAD", "/v1/openapi.json")).toEqual({ outcome: "route", query: null });
    expect(routes.resolve("DELETE", "/control/v1/spaces/x/config")).toEqual({
      outcome: "method_not_allowed",
      allow: "GET, HEAD, PUT, OPTIONS",
    });
  });

  it("knows no path with a trailing slash, an empty segment or another length", () => {
    const routes = table();
    for (const path of [
      "/spaces/s/v1/profiles/p-1/",
      "/spaces//v1/profiles/p-1",
      "/spaces/s/v1/profiles",
      "/v1/openapi.json/x",
    ]) {
      expect(routes.resolve("GET", path), path).toEqual({ outcome: "not_found" });
      expect(routes.resolve("OPTIONS", path), path).toEqual({ outcome: "not_found" });
    }
  });

  it("refuses a route the router could never reach: more specific than one of its method registered before it", () => {
    const routes = new RouteTable();
    routes.add("", "/v1/profiles/{id}", "get");
    expect(() => routes.add("", "/v1/profiles/lookup", "get")).toThrow(/more specific/);
    // Another method, or a path the earlier route cannot match, is no conflict.
    expect(() => routes.add("", "/v1/profiles/lookup", "post")).not.toThrow();
    expect(() => routes.add("", "/v1/profiles/{id}/context", "get")).not.toThrow();
    expect(() => routes.add("", "/v1/people/{id}", "get")).not.toThrow();
  });
});
