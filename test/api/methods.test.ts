import { beforeAll, describe, expect, it } from "vitest";
import { pathFixtures } from "../support/path-fixtures";
import { call, createSpace, json, OPERATOR_TOKEN, type Space } from "../support/seed";
import { type Operation, prefixOf, servedDocument } from "../support/served-document";

/**
 * Every method on every path the document serves gets an answer the document or HTTP allows: a
 * documented operation answers one of its documented statuses (HEAD those of GET), any other
 * method is `405` with `Allow` listing the path's documented methods (HEAD with GET, and
 * OPTIONS), and OPTIONS is `204` with that `Allow`. A fixed segment wins over a template, as
 * OpenAPI matches paths: a template value that spells a fixed sibling is that sibling.
 */

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

interface DocumentedPath {
  path: string;
  api: Operation["api"];
  segments: (string | null)[];
  operations: Record<string, { security: string | null; statuses: Set<string> }>;
}

let space: Space;
let paths: DocumentedPath[] = [];
let fixtures: Record<string, string>;

beforeAll(async () => {
  paths = documentedPaths((await servedDocument()).operations);
  space = await createSpace();
  fixtures = await pathFixtures(space);
});

/** The document's operations by path, each path with its fixed segments (null for a template). */
function documentedPaths(operations: Operation[]): DocumentedPath[] {
  const byPath = new Map<string, DocumentedPath>();
  for (const operation of operations) {
    let documented = byPath.get(operation.path);
    if (!documented) {
      const segments = operation.path.split("/").map((segment) => (segment.startsWith("{") ? null : segment));
      documented = { path: operation.path, api: operation.api, segments, operations: {} };
      byPath.set(operation.path, documented);
    }
    documented.operations[operation.method] = {
      security: operation.security,
      statuses: new Set(Object.keys(operation.responses)),
    };
  }
  return [...byPath.values()];
}

function matches(pattern: (string | null)[], concrete: string[]): boolean {
  return pattern.length === concrete.length && pattern.every((segment, at) => segment === null || segment === concrete[at]);
}

/** Of the documented paths (of one API) that match, those with a fixed segment first where the others have a template. */
function mostSpecific(api: DocumentedPath["api"], concrete: string): DocumentedPath[] {
  const segments = concrete.split("/");
  const found = paths.filter((candidate) => candidate.api === api && matches(candidate.segments, segments));
  const rank = (candidate: DocumentedPath) => candidate.segments.map((segment) => (segment === null ? "0" : "1")).join("");
  const best = found.map(rank).sort().at(-1);
  return found.filter((candidate) => rank(candidate) === best);
}

/** Each documented path with its templates filled, and once more for each fixed sibling a template value can spell. */
function concretePaths(): { api: DocumentedPath["api"]; path: string; template: string }[] {
  const out: { api: DocumentedPath["api"]; path: string; template: string }[] = [];
  for (const documented of paths) {
    const filled = documented.path.split("/").map((segment, at, all) => {
      if (!segment.startsWith("{")) return segment;
      return fixtures[all[at - 1] ?? ""] ?? `zz-${segment.slice(1, -1)}`;
    });
    out.push({ api: documented.api, path: filled.join("/"), template: documented.path });
    documented.segments.forEach((segment, at) => {
      if (segment !== null) return;
      for (const sibling of paths) {
        const literal = sibling.segments[at];
        if (sibling === documented || sibling.api !== documented.api || !literal) continue;
        const colliding = [...filled];
        colliding[at] = literal;
        if (matches(sibling.segments, colliding)) {
          out.push({ api: documented.api, path: colliding.join("/"), template: documented.path });
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
    for (const { api, path, template } of concrete) {
      const winners = mostSpecific(api, path);
      expect(winners.length, path).toBeGreaterThan(0);
      const documented = new Set(winners.flatMap((winner) => Object.keys(winner.operations)));
      const allow = new Set([...documented, "OPTIONS"]);
      if (documented.has("GET")) allow.add("HEAD");
      const url = `${prefixOf(api, space)}${path}`;
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
