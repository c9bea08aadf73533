import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { personToken } from "../support/identity";
import { arbitraryOf, type Schema, type SchemaSet } from "../support/json-schema";
import { pathFixtures } from "../support/path-fixtures";
import { runs } from "../support/property-runs";
import { call, createSpace, OPERATOR_TOKEN, type Space } from "../support/seed";
import { type Operation, prefixOf, servedDocument } from "../support/served-document";

/**
 * Header parameters are held to their declared rule as a body's fields are: on every operation
 * of the document that declares a header, a value that breaks one of the header's declared
 * constraints (too long, empty, a character its pattern leaves out) is `422 invalid_input` naming
 * `header.<name>`, and a value the declaration allows is never refused for the header.
 */

interface HeaderOperation extends Operation {
  headers: { name: string; required: boolean; schema: Schema }[];
}

let set: SchemaSet;
const operations: HeaderOperation[] = [];
let space: Space;
let reviewToken: string;
let fixtures: Record<string, string>;

beforeAll(async () => {
  const document = await servedDocument();
  set = document.set;
  for (const operation of document.operations) {
    const headers = operation.parameters.filter((parameter) => parameter.in === "header");
    if (headers.length === 0) continue;
    operations.push({
      ...operation,
      headers: headers.map((parameter) => ({
        name: parameter.name.toLowerCase(),
        required: parameter.required === true,
        schema: parameter.schema,
      })),
    });
  }
  space = await createSpace();
  reviewToken = await personToken(space, ["review", "security"]);
  fixtures = await pathFixtures(space);
});

/** The operation's request with one header set: credentials that get past admission, `{}` as a body. */
function send(operation: HeaderOperation, name: string, value: string): Promise<Response> {
  const path = operation.path
    .split("/")
    .map((segment, at, all) => (segment.startsWith("{") ? (fixtures[all[at - 1] ?? ""] ?? "zz-1") : segment))
    .join("/");
  const url = `${prefixOf(operation.api, space)}${path}`;
  const credential =
    operation.security === "sourceKey"
      ? { token: space.key }
      : operation.security === "operatorToken"
        ? { operator: OPERATOR_TOKEN }
        : // Key routes take an integration or admin person, identity routes a reviewer, forget security.
          { token: operation.api === "control" ? space.tenant.token : reviewToken };
  return call(operation.method, url, {
    ...credential,
    headers: { [name]: value },
    ...(operation.body ? { body: {} } : {}),
  });
}

/** What HTTP can carry as a field value: no NUL, CR or LF, and no space around it (HTTP drops that). */
const sendable = (value: string) => !/[\0\r\n]/.test(value) && !/^[ \t]|[ \t]$/.test(value);

/** One value per declared constraint, each breaking that constraint alone where it can. */
function breakingValues(schema: Schema): { what: string; value: string }[] {
  const node = set.resolve(schema);
  const out: { what: string; value: string }[] = [];
  if (typeof node.maxLength === "number") out.push({ what: "too_long", value: "k".repeat(node.maxLength + 1) });
  if (typeof node.minLength === "number" && node.minLength > 0) out.push({ what: "empty", value: "" });
  if (typeof node.pattern === "string") {
    const pattern = new RegExp(node.pattern, "u");
    for (const character of ["\u0001", "\t", "\u007f", "\u00e9", "\u00ff", "\u{1F600}"]) {
      const value = `k${character}k`;
      if (!pattern.test(value)) out.push({ what: `pattern ${JSON.stringify(character)}`, value });
    }
  }
  return out;
}

async function expectRefusedFor(operation: HeaderOperation, name: string, value: string, what: string) {
  const response = await send(operation, name, value);
  const where = `${operation.method} ${operation.path}: ${name} ${what}`;
  const text = await response.text();
  expect(response.status, `${where}: ${text}`).toBe(422);
  const problem = JSON.parse(text) as { code: string; detail: string; request_id: string };
  expect(problem.code, where).toBe("invalid_input");
  expect(problem.detail, where).toMatch(new RegExp(`^header\\.${name}: [a-z_]+$`));
  expect(problem.request_id, where).toBe(response.headers.get("request-id"));
}

describe("header parameters: the declared rule, on every operation that declares one", () => {
  it("finds the operations, each declaring its Idempotency-Key with one rule: lengths and a pattern", () => {
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const rules = new Set<string>();
    for (const operation of operations) {
      for (const header of operation.headers) {
        const node = set.resolve(header.schema);
        expect(node.minLength, operation.path).toBe(1);
        expect(node.maxLength, operation.path).toBe(256);
        expect(typeof node.pattern, operation.path).toBe("string");
        rules.add(JSON.stringify([header.name, node.minLength, node.maxLength, node.pattern]));
      }
    }
    expect(rules.size).toBe(1);
    expect(operations.some((operation) => operation.path === "/v1/keys/{id}/revoke")).toBe(true);
  });

  it("refuses a value breaking each declared constraint with 422 naming the header", async () => {
    for (const operation of operations) {
      for (const header of operation.headers) {
        const values = breakingValues(header.schema);
        expect(values.map((entry) => entry.what)).toEqual(expect.arrayContaining(["too_long", "empty"]));
        expect(values.length).toBeGreaterThan(3);
        for (const { what, value } of values) {
          expect(set.valid(header.schema, value), `${what} breaks the document`).toBe(false);
          await expectRefusedFor(operation, header.name, value, what);
        }
      }
    }
  }, 60_000);

  it("refuses generated values the declaration does not allow, and never refuses one it allows, for the header", async () => {
    const character = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)) },
      { weight: 2, arbitrary: fc.constant(" ") },
      { weight: 1, arbitrary: fc.integer({ min: 0x01, max: 0x1f }).map((code) => String.fromCharCode(code)) },
      { weight: 1, arbitrary: fc.constantFrom("\u007f", "\u00e9", "\u00ff", "\u2028", "\u{1F600}") },
    );
    const length = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 250, max: 262 }));
    const anyValue = length.chain((n) => fc.array(character, { minLength: n, maxLength: n }).map((parts) => parts.join("")));
    let refused = 0;
    let allowed = 0;
    for (const operation of operations) {
      for (const header of operation.headers) {
        const valid = arbitraryOf(set, header.schema, "header").map(String);
        await fc.assert(
          fc.asyncProperty(fc.oneof(anyValue, valid).filter(sendable), async (value) => {
            if (!set.valid(header.schema, value)) {
              refused++;
              await expectRefusedFor(operation, header.name, value, JSON.stringify(value.slice(0, 20)));
              return;
            }
            allowed++;
            const response = await send(operation, header.name, value);
            const answer = await response.text();
            expect(response.status, answer).toBeLessThan(500);
            if (response.status === 422) expect(JSON.parse(answer).detail).not.toContain(`header.${header.name}`);
          }),
          { numRuns: runs(24) },
        );
      }
    }
    expect(refused).toBeGreaterThan(20);
    expect(allowed).toBeGreaterThan(20);
  }, 120_000);
});
