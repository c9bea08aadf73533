import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/edge/app";
import { call, createSpace, json, message, ORIGIN } from "../support/seed";

describe("HTTP layer: every response", () => {
  it("carries a Request-Id, on success and on error alike", async () => {
    const space = await createSpace();
    const ok = await call("POST", `/spaces/${space.name}/v1/batch`, { token: space.key, body: { items: [message()] } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await call("POST", `/spaces/${space.name}/v1/batch`);
    const problem = await json(failed, 401);
    expect(problem.request_id).toBe(failed.headers.get("request-id"));
    expect(failed.headers.get("request-id")).not.toBe(ok.headers.get("request-id"));
  });

  it("returns a valid traceparent as given and replaces an invalid one, never failing", async () => {
    const given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const kept = await call("GET", "/v1/openapi.json", { headers: { traceparent: given } });
    expect(kept.headers.get("traceparent")).toBe(given);
    for (const invalid of ["garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""]) {
      const replaced = await call("GET", "/v1/openapi.json", { headers: { traceparent: invalid } });
      expect(replaced.status).toBe(200);
      expect(replaced.headers.get("traceparent")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(replaced.headers.get("traceparent")).not.toBe(invalid);
    }
  });

  it("answers an unknown route with 404 not_found", async () => {
    for (const path of ["/nope", "/spaces/demo/v1/nope", "/control/v1/nope", "/v2/batch"]) {
      const response = await call("GET", path);
      const problem = await json(response, 404);
      expect(problem).toMatchObject({
        code: "not_found",
        status: 404,
        title: "Not found",
        type: "https://errors.memory.localhost/not_found",
      });
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("answers a wrong method with 405 method_not_allowed and Allow", async () => {
    const batch = await call("GET", "/spaces/demo/v1/batch");
    expect((await json(batch, 405)).code).toBe("method_not_allowed");
    expect(batch.headers.get("allow")).toBe("POST, OPTIONS");
    const config = await call("DELETE", "/control/v1/spaces/abc/config");
    expect((await json(config, 405)).code).toBe("method_not_allowed");
    expect(config.headers.get("allow")).toBe("GET, HEAD, PUT, OPTIONS");
    expect(config.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers OPTIONS with 204, no body and the path's own Allow, on every kind of path", async () => {
    const cases: [string, string][] = [
      ["/spaces/demo/v1/batch", "POST, OPTIONS"],
      ["/spaces/demo/v1/profiles/p-1", "GET, HEAD, OPTIONS"],
      ["/spaces/demo/v1/profiles/lookup", "POST, OPTIONS"],
      ["/control/v1/projects", "GET, HEAD, POST, OPTIONS"],
      ["/control/v1/spaces/abc/config", "GET, HEAD, PUT, OPTIONS"],
      ["/control/v1/keys/k-1/revoke", "POST, OPTIONS"],
      ["/spaces/demo/mcp", "POST, OPTIONS"],
      ["/v1/openapi.json", "GET, HEAD, OPTIONS"],
      ["/spaces/demo/v1/openapi.json", "GET, HEAD, OPTIONS"],
      ["/control/v1/openapi.json", "GET, HEAD, OPTIONS"],
      ["/docs", "GET, HEAD, OPTIONS"],
      ["/control/docs", "GET, HEAD, OPTIONS"],
    ];
    for (const [path, allow] of cases) {
      // No credential and a query the path does not declare: neither is looked at.
      const response = await call("OPTIONS", `${path}?zz=1`);
      expect(response.status, path).toBe(204);
      expect(response.headers.get("allow"), path).toBe(allow);
      expect(await response.text(), path).toBe("");
      expect(response.headers.get("request-id")).toMatch(/^[0-9a-f-]{36}$/);
      // The 405 of any other method lists the same.
      const other = allow.includes("POST") ? "DELETE" : "POST";
      const refused = await call(other, path);
      expect(refused.status, `${other} ${path}`).toBe(405);
      expect(refused.headers.get("allow"), `${other} ${path}`).toBe(allow);
    }
    const unknown = await call("OPTIONS", "/spaces/demo/v1/nope");
    expect((await json(unknown, 404)).code).toBe("not_found");
    expect(unknown.headers.get("allow")).toBeNull();
  });

  it("reads a fixed segment before a template: GET /v1/profiles/lookup is 405, not the profile `lookup`", async () => {
    const space = await createSpace();
    for (const method of ["GET", "HEAD", "DELETE"]) {
      const response = await call(method, `/spaces/${space.name}/v1/profiles/lookup`, { token: space.key });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST, OPTIONS");
      if (method !== "HEAD") expect((await json(response)).code).toBe("method_not_allowed");
    }
    // Not refused for a query the template route does not declare either: the method is what is wrong.
    const withQuery = await call("GET", `/spaces/${space.name}/v1/profiles/lookup?zz=1`, { token: space.key });
    expect(withQuery.status).toBe(405);
    // Any other id is the profile it names.
    const other = await call("GET", `/spaces/${space.name}/v1/profiles/lookups`, { token: space.key });
    expect((await json(other, 404)).detail).toBe("no such profile");
  });

  it("answers a path with a trailing slash or an empty segment 404, whatever the method", async () => {
    for (const [method, path] of [
      ["POST", "/spaces/demo/v1/batch/"],
      ["GET", "/control/v1/projects/"],
      ["OPTIONS", "/spaces/demo/v1/batch/"],
      ["GET", "/spaces/demo/v1/profiles//context"],
    ]) {
      const response = await call(method as string, path as string);
      expect((await json(response, 404)).code, `${method} ${path}`).toBe("not_found");
    }
  });

  it("serves production addresses: the space and the control API from the host name", async () => {
    const space = await createSpace();
    const host = `http://${space.name}.local.memory.localhost`;
    const response = await SELF.fetch(`${host}/v1/whoami`, { headers: { authorization: `Bearer ${space.key}` } });
    expect((await json<{ space: string }>(response, 200)).space).toBe(space.name);
    const control = await SELF.fetch("http://control.memory.localhost/v1/users/me", {
      headers: { authorization: `Bearer ${space.tenant.token}` },
    });
    expect(control.status).toBe(200);
    // The right space in another region's address is another space's address.
    const elsewhere = await SELF.fetch(`http://${space.name}.eu9.memory.localhost/v1/whoami`, {
      headers: { authorization: `Bearer ${space.key}` },
    });
    expect((await json(elsewhere, 403)).code).toBe("forbidden");
  });

  it("answers an unexpected failure with 500 internal_error, never a 4xx, and leaks nothing", async () => {
    const space = await createSpace();
    const failing = {
      ...env,
      SPACE: {
        idFromName: (name: string) => env.SPACE.idFromName(name),
        get: () => ({
          ingestBatch: () => Promise.reject(new Error("storage exploded")),
        }),
      },
    };
    const response = await app.request(
      `${ORIGIN}/spaces/${space.name}/v1/batch`,
      { method: "POST", headers: { authorization: `Bearer ${space.key}`, "content-type": "application/json" }, body: "{}" },
      failing,
    );
    const problem = await json(response, 500);
    expect(problem).toMatchObject({ code: "internal_error", status: 500 });
    expect(JSON.stringify(problem)).not.toContain("exploded");
    expect(problem.request_id).toBe(response.headers.get("request-id"));
  });

  it("answers 503 unavailable on every route in production when a secret is missing", async () => {
    const production = { ...env, ENVIRONMENT: "production", KEY_PEPPER: undefined };
    for (const path of ["/spaces/demo/v1/batch", "/control/v1/users/me", "/v1/openapi.json"]) {
      const response = await app.request(`${ORIGIN}${path}`, { method: "GET" }, production);
      expect((await json(response, 503)).code).toBe("unavailable");
    }
  });
});

describe("OpenAPI 3.1 and the reference page", () => {
  it("describes both APIs, every route, with its problem responses", async () => {
    const document = await json<{
      openapi: string;
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, unknown> }> } & { url?: string }[]>
      >;
    }>(await call("GET", "/v1/openapi.json"), 200);
    expect(document.openapi).toBe("3.1.0");
    const expected = {
      "/v1/batch": ["post"],
      "/v1/whoami": ["get"],
      "/v1/profiles/{id}": ["get"],
      "/v1/profiles/lookup": ["post"],
      "/v1/identity/merges/{merge_id}/undo": ["post"],
      "/v1/identity/links": ["post"],
      "/v1/identity/links/{link_id}/end": ["post"],
      "/v1/identity/suggestions": ["get"],
      "/v1/identity/suggestions/{suggestion_id}/dismiss": ["post"],
      "/v1/identity/suggestions/{suggestion_id}/accept": ["post"],
      "/v1/context": ["post"],
      "/v1/profiles/{id}/context": ["get"],
      "/v1/search": ["post"],
      "/v1/profiles/{id}/search": ["get"],
      "/v1/history/open": ["post"],
      "/v1/history/items/{item_id}": ["get"],
      "/v1/timeline": ["post"],
      "/v1/profiles/{id}/timeline": ["get"],
      "/v1/feedback": ["post"],
      "/v1/measurement/context-use": ["get"],
      "/v1/media/uploads": ["post"],
      "/v1/media/uploads/{media_ref}": ["put"],
      "/v1/ingest/files": ["post"],
      "/v1/ingest/files/{import_id}": ["get"],
      "/v1/ops/memory": ["get"],
      "/v1/exports": ["post"],
      "/v1/exports/{export_id}": ["get"],
      "/v1/exports/{export_id}/download": ["get"],
      "/v1/audit": ["get"],
      "/v1/forget": ["post"],
      "/v1/privacy/receipts/{receipt_id}": ["get"],
      "/v1/privacy/receipt-key": ["get"],
      "/v1/tenants": ["post"],
      "/v1/auth/login": ["post"],
      "/v1/auth/logout": ["post"],
      "/v1/users/me": ["get"],
      "/v1/people": ["post", "get"],
      "/v1/people/{id}": ["patch", "delete"],
      "/v1/projects": ["post", "get"],
      "/v1/projects/{id}/spaces": ["post", "get"],
      "/v1/spaces/{id}/sources": ["post", "get"],
      "/v1/sources/{id}/keys": ["post"],
      "/v1/keys/{id}/rotate": ["post"],
      "/v1/keys/{id}/revoke": ["post"],
      "/v1/spaces/{id}/config": ["get", "put"],
      "/v1/quotas": ["put", "get"],
      "/v1/usage": ["get"],
      "/v1/control-audit": ["get"],
    };
    expect(Object.keys(document.paths).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) {
        const operation = document.paths[path]?.[method] as unknown as {
          responses: Record<string, { content?: Record<string, unknown> }>;
        };
        expect(operation, `${method} ${path}`).toBeDefined();
        const problemStatuses = Object.entries(operation.responses).filter(
          ([, response]) => response.content?.["application/problem+json"],
        );
        expect(problemStatuses.length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
    expect((await call("GET", "/spaces/demo/v1/openapi.json")).status).toBe(200);
  });

  it("names in its servers the address it was read from: port, space and production hosts", async () => {
    type Servers = { variables: Record<string, { default: string }> }[];
    const read = async (url: string) => {
      const document = await json<{ servers: Servers; paths: Record<string, { servers: Servers }> }>(await SELF.fetch(url), 200);
      return {
        base: document.servers[0]?.variables.base_url?.default,
        control: document.paths["/v1/tenants"]?.servers[0]?.variables.control_url?.default,
        batch: document.paths["/v1/batch"]?.servers[0]?.variables.base_url?.default,
      };
    };
    expect(await read("http://127.0.0.1:8788/v1/openapi.json")).toEqual({
      base: "http://127.0.0.1:8788/spaces/demo",
      control: "http://127.0.0.1:8788/control",
      batch: "http://127.0.0.1:8788/spaces/demo",
    });
    expect(await read("http://localhost:9000/spaces/acme/v1/openapi.json")).toMatchObject({
      base: "http://localhost:9000/spaces/acme",
      control: "http://localhost:9000/control",
    });
    expect(await read("https://acme.local.memory.localhost/v1/openapi.json")).toMatchObject({
      base: "https://acme.local.memory.localhost",
      control: "https://control.memory.localhost",
    });
    expect(await read("https://control.memory.localhost/v1/openapi.json")).toMatchObject({
      base: "https://demo.local.memory.localhost",
      control: "https://control.memory.localhost",
    });
  });

  it("serves an HTML reference at /docs that lists the routes", async () => {
    const response = await call("GET", "/docs");
    expect(response.headers.get("content-type")).toContain("text/html");
    const page = await response.text();
    expect(page).toContain("POST {base_url}/v1/batch");
    expect(page).toContain("PUT {control_url}/v1/spaces/{id}/config");
    // The MCP endpoint is no OpenAPI path, and is listed all the same, with its tools.
    expect(page).toContain("POST {base_url}/mcp");
    expect(page).toContain("<code>get_customer_context</code>");
  });
});
