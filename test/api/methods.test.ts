import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, createSpace, json, OPERATOR_TOKEN, type Space } from "../support/seed";

/**
 * Every method on every path the document serves gets an answer the document or HTTP allows: a
 * documented operation answers one of its documented statuses (HEAD those of GET), any other
 * method is `405` with `Allow` listing the path's documented methods (HEAD with GET, and
 * OPTIONS), and OPTIONS is `204` with that `Allow`. A fixed segment wins over a template, as
 * OpenAPI matches paths: a template value that spells a fixed sibling is that sibling.
 */

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface DocumentedPath {
  path: string;
  /** `/control` or the data API's prefix. */
  base: "control" | "data";
  segments: (string | null)[];
  operations: Record<string, { security: string | null; statuses: Set<string> }>;
}

let space: Space;
let paths: DocumentedPath[] = [];
let fixtures: Record<string, string>;

beforeAll(async () => {
  const document = await json<{ paths: Record<string, Record<string, unknown>> }>(await call("GET", "/v1/openapi.json"), 200);
  paths = Object.entries(document.paths).map(([path, item]) => {
    const server = (item.servers as { url: string }[] | undefined)?.[0]?.url;
    const operations: DocumentedPath["operations"] = {};
    for (const key of OPERATION_KEYS) {
      const operation = item[key] as { security?: Record<string, unknown>[]; responses: Record<string, unknown> } | undefined;
      if (!operation) continue;
      const security = operation.security?.[0];
      operations[key.toUpperCase()] = {
        security: security ? (Object.keys(security)[0] ?? null) : null,
        statuses: new Set(Object.keys(operation.responses)),
      };
    }
    const segments = path.split("/").map((segment) => (segment.startsWith("{") ? null : segment));
    return { path, base: server === "{control_url}" ? "control" : "data", segments, operations };
  });
  space = await createSpace();
  const projects = await json<{ data: { project_id: string }[] }>(
    await call("GET", "/control/v1/projects", { token: space.tenant.token }),
    200,
  );
  // A key of its own for rotation and revocation, though no request here gets that far.
  const spare = await createKey(space.tenant.token, space.sourceId, ["track"]);
  fixtures = {
    spaces: space.spaceId,
    projects: projects.data[0]?.project_id ?? "",
    sources: space.sourceId,
    keys: spare.key_id,
  };
});

function matches(pattern: (string | null)[], concrete: string[]): boolean {
  return pattern.length === concrete.length && pattern.every((segment, at) => segment === null || segment === concrete[at]);
}

/** Of the documented paths (of one API) that match, those with a fixed segment first where the others have a template. */
function mostSpecific(base: DocumentedPath["base"], concrete: string): DocumentedPath[] {
  const segments = concrete.split("/");
  const found = paths.filter((candidate) => candidate.base === base && matches(candidate.segments, segments));
  const rank = (candidate: DocumentedPath) => candidate.segments.map((segment) => (segment === null ? "0" : "1")).join("");
  const best = found.map(rank).sort().at(-1);
  return found.filter((candidate) => rank(candidate) === best);
}

/** Each documented path with its templates filled, and once more for each fixed sibling a template value can spell. */
function concretePaths(): { base: DocumentedPath["base"]; path: string; template: string }[] {
  const out: { base: DocumentedPath["base"]; path: string; template: string }[] = [];
  for (const documented of paths) {
    const filled = documented.path.split("/").map((segment, at, all) => {
      if (!segment.startsWith("{")) return segment;
      return fixtures[all[at - 1] ?? ""] ?? `zz-${segment.slice(1, -1)}`;
    });
    out.push({ base: documented.base, path: filled.join("/"), template: documented.path });
    documented.segments.forEach((segment, at) => {
      if (segment !== null) return;
      for (const sibling of paths) {
        const literal = sibling.segments[at];
        if (sibling === documented || sibling.base !== documented.base || !literal) continue;
        const colliding = [...filled];
        colliding[at] = literal;
        if (matches(sibling.segments, colliding)) {
          out.push({ base: documented.base, path: colliding.join("/"), template: documented.path });
        }
      }
    });
  }
  return out;
}

function credentialOf(security: string | null) {
  if (security === "personToken") return { token: space.tenant.token };
  if (security === "operatorToken") return { operator: OPERATOR_TOKEN };
  return { token: space.key };
}

const sortedAllow = (header: string | null) => (header ?? "").split(", ").sort();

describe("every method on every documented path", () => {
  it("answers what the document or HTTP allows: a documented status, 405 with Allow, or 204 to OPTIONS", async () => {
    const concrete = concretePaths();
    expect(concrete.length).toBeGreaterThan(paths.length);
    // The collision the document has: a profile id spelled like the fixed sibling `lookup`.
    expect(concrete.some((entry) => entry.path === "/v1/profiles/lookup" && entry.template === "/v1/profiles/{id}")).toBe(true);
    let checked = 0;
    for (const { base, path, template } of concrete) {
      const winners = mostSpecific(base, path);
      expect(winners.length, path).toBeGreaterThan(0);
      const documented = new Set(winners.flatMap((winner) => Object.keys(winner.operations)));
      const allow = new Set([...documented, "OPTIONS"]);
      if (documented.has("GET")) allow.add("HEAD");
      const url = `${base === "control" ? "/control" : `/spaces/${space.name}`}${path}`;
      for (const method of METHODS) {
        const name = `${method} ${url} (${template})`;
        const operationMethod = method === "HEAD" && !documented.has("HEAD") ? "GET" : method;
        const operation = winners.map((winner) => winner.operations[operationMethod]).find(Boolean);
        const response = await call(method, url, credentialOf(operation?.security ?? null));
        const text = await response.text();
        checked++;
        if (method === "OPTIONS" && !operation) {
          expect(response.status, name).toBe(204);
          expect(sortedAllow(response.headers.get("allow")), name).toEqual([...allow].sort());
          expect(text, name).toBe("");
        } else if (operation) {
          expect(response.status, `${name}: ${text}`).toBeLessThan(500);
          expect(operation.statuses.has(String(response.status)), `${name} → ${response.status} is not documented: ${text}`).toBe(
            true,
          );
        } else {
          expect(response.status, `${name}: ${text}`).toBe(405);
          expect(sortedAllow(response.headers.get("allow")), name).toEqual([...allow].sort());
          if (method !== "HEAD") {
            expect(response.headers.get("content-type"), name).toBe("application/problem+json");
            expect(JSON.parse(text), name).toMatchObject({ code: "method_not_allowed", status: 405 });
          }
        }
      }
    }
    expect(checked).toBe(concrete.length * METHODS.length);
  }, 120_000);

  it("answers GET /v1/profiles/lookup 405 with Allow POST, as the document lists the fixed path", async () => {
    const response = await call("GET", `/spaces/${space.name}/v1/profiles/lookup`, { token: space.key });
    expect((await json(response, 405)).code).toBe("method_not_allowed");
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
  });
});
