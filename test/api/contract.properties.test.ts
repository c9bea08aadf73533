import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { arbitraryOf, type Schema, SchemaSet } from "../support/json-schema";
import { runs } from "../support/property-runs";
import { call, createKey, createSpace, json, OPERATOR_TOKEN, type Space } from "../support/seed";
import { isViolation, namesPlace, violationsOf } from "../support/violations";

/**
 * The document is the contract clients and models see: for every operation it serves, requests
 * generated from its own schemas must be accepted as to their shape, a request with one declared
 * constraint broken must be `422` naming the place, and every answer must parse against the
 * schema the document declares for its status and content type.
 */

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  base: string;
  parameters: Parameter[];
  body: Schema | null;
  security: string | null;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

interface Request {
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** Refusals of a valid request that depend on state or time, not on shape (README). */
const STATE_RULES = [
  /^expires_at: in_the_past$/,
  // A cursor in a query string (`query.cursor`) or in a body (`cursor`).
  /^(query\.)?cursor: not_issued_by_this_service$/,
  // Context use: the range between two dates (and to today, by default) is not a shape.
  /^query: (from_after_to|range_over_90_days)$/,
];
const STATE_ITEM_CODES = new Set(["scope_missing", "operation_not_allowed", "verification_not_allowed", "not_found"]);
/** Routes whose items are checked one by one: a broken item is refused alone (`207`). */
const ITEMIZED = new Set(["/v1/batch", "/v1/feedback"]);
/** Rules the document states only in words: a phone must be a possible number for its country; FTS5 syntax. */
const WORDED_RULES = [
  /\.value: phone_not_normalizable$/,
  // FTS5's query grammar (search `mode: "fts5"`) is stated in words, not in a schema.
  /^query: fts5_syntax_error$/,
];

/**
 * About 60 s in all on this machine: the requests are shared among the operations, so routes
 * added later are covered without the run growing past the budget.
 */
const REQUESTS_PER_PROPERTY = 1400;
const runsPerOperation = () => Math.max(20, Math.floor(runs(REQUESTS_PER_PROPERTY) / operations.length));

let set: SchemaSet;
let operations: Operation[] = [];
let space: Space;
let fixtures: Record<string, string>;

beforeAll(async () => {
  const document = await json<{
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  }>(await call("GET", "/v1/openapi.json"), 200);
  set = new SchemaSet(document.components.schemas);
  operations = operationsOf(document.paths);

  space = await createSpace();
  const projects = await json<{ data: { project_id: string }[] }>(
    await call("GET", "/control/v1/projects", { token: space.tenant.token }),
    200,
  );
  // Rotation and revocation get a key of their own, so the test's key keeps working.
  const spare = await createKey(space.tenant.token, space.sourceId, ["track"]);
  fixtures = {
    spaces: space.spaceId,
    projects: projects.data[0]?.project_id ?? "",
    sources: space.sourceId,
    keys: spare.key_id,
  };
});

function operationsOf(paths: Record<string, Record<string, unknown>>): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const server = (item.servers as { url: string }[] | undefined)?.[0]?.url;
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const body = (operation.requestBody as { content?: Record<string, { schema: unknown }> } | undefined)?.content?.[
        "application/json"
      ]?.schema;
      const security = (operation.security as Record<string, unknown>[] | undefined)?.[0];
      out.push({
        method: method.toUpperCase(),
        path,
        base: server === "{control_url}" ? "/control" : "",
        parameters: ((operation.parameters as Parameter[] | undefined) ?? []).map((parameter) => ({
          ...parameter,
          schema: set.adopt(parameter.schema),
        })),
        body: body ? set.adopt(body) : null,
        security: security ? (Object.keys(security)[0] ?? null) : null,
        responses: set.adopt(operation.responses) as Operation["responses"],
      });
    }
  }
  return out;
}

/** Path parameters take the fixture named by the segment before them, or a generated value. */
function requestOf(operation: Operation): fc.Arbitrary<Request> {
  const of = (place: Parameter["in"]) => operation.parameters.filter((parameter) => parameter.in === place);
  const params = fc.record(
    Object.fromEntries(
      of("path").map((parameter) => {
        const before = operation.path.split("/").at(operation.path.split("/").indexOf(`{${parameter.name}}`) - 1) ?? "";
        const generated = arbitraryOf(set, parameter.schema, "url").map(String);
        const fixture = fixtures[before];
        return [parameter.name, fixture ? fc.oneof({ weight: 4, arbitrary: fc.constant(fixture) }, generated) : generated];
      }),
    ),
  );
  const fields = (place: "query" | "header") =>
    fc.record(
      Object.fromEntries(
        of(place).map((parameter) => [
          parameter.name,
          arbitraryOf(set, parameter.schema, place === "query" ? "url" : "header").map(String),
        ]),
      ),
      {
        requiredKeys: of(place)
          .filter((parameter) => parameter.required)
          .map((parameter) => parameter.name),
      },
    );
  const body = operation.body ? arbitraryOf(set, operation.body) : fc.constant(undefined);
  return fc.record({ params, query: fields("query"), headers: fields("header"), body }) as fc.Arbitrary<Request>;
}

async function send(operation: Operation, request: Request): Promise<Response> {
  let path = operation.path;
  for (const [name, value] of Object.entries(request.params)) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const query = new URLSearchParams(request.query).toString();
  const prefix = operation.base || `/spaces/${space.name}`;
  const credential = {
    sourceKey: { token: space.key },
    personToken: { token: space.tenant.token },
    operatorToken: { operator: OPERATOR_TOKEN },
  }[operation.security ?? ""];
  return call(operation.method, `${prefix}${path}${query ? `?${query}` : ""}`, {
    ...credential,
    headers: request.headers,
    body: request.body,
  });
}

/** The answer is declared for its status and content type, and parses against its schema. */
async function checkedAnswer(operation: Operation, response: Response): Promise<unknown> {
  const name = `${operation.method} ${operation.path} → ${response.status}`;
  expect(response.status, name).toBeLessThan(500);
  const declared = operation.responses[String(response.status)];
  expect(declared, `${name} is not declared`).toBeDefined();
  const text = await response.text();
  const type = response.headers.get("content-type")?.split(";")[0] ?? "";
  if (!declared?.content) return text;
  const schema = declared.content[type]?.schema;
  expect(schema, `${name} is not declared as ${type}`).toBeDefined();
  const body = JSON.parse(text);
  expect(set.valid(schema as Schema, body), `${name}: ${text.slice(0, 500)}`).toBe(true);
  return body;
}

describe("the OpenAPI document and the server agree on every operation", () => {
  it("serves operations of both APIs", () => {
    expect(operations.length).toBeGreaterThanOrEqual(13);
    expect(operations.some((operation) => operation.path === "/v1/batch")).toBe(true);
  });

  it("accepts every request the document declares valid, and every answer matches its declared schema", async () => {
    let sent = 0;
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestOf(operation), async (request) => {
          sent++;
          const response = await send(operation, request);
          const answer = await checkedAnswer(operation, response);
          const where = `${operation.method} ${operation.path}`;
          if (response.status === 422) {
            const detail = (answer as { detail: string }).detail;
            const allowed = [...STATE_RULES, ...WORDED_RULES].some((rule) => rule.test(detail));
            expect(allowed, `${where} refused a valid request: ${detail}`).toBe(true);
          }
          if (response.status === 207) {
            for (const error of (answer as { errors: { code: string; detail: string }[] }).errors) {
              const allowed = STATE_ITEM_CODES.has(error.code) || WORDED_RULES.some((rule) => rule.test(error.detail));
              expect(allowed, `${where} refused a valid item: ${error.code} ${error.detail}`).toBe(true);
            }
          }
        }),
        { numRuns: runsPerOperation() },
      );
    }
    expect(sent).toBe(operations.length * runsPerOperation());
  }, 300_000);

  it("refuses a request with one declared constraint broken with 422 naming the place", async () => {
    let checked = 0;
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestOf(operation), fc.nat(), async (request, pick) => {
          const candidates = violationsOfRequest(operation, request);
          // The first candidate from `pick` on that the validator confirms breaks the document.
          let broken: Broken | undefined;
          for (let tried = 0; tried < candidates.length && !broken; tried++) {
            const candidate = candidates[(pick + tried) % candidates.length];
            if (candidate?.confirmed()) broken = candidate;
          }
          if (!broken) return;
          checked++;
          const response = await send(operation, broken.request);
          const answer = (await checkedAnswer(operation, response)) as {
            detail?: string;
            errors?: { index: number; code: string; detail: string }[];
          };
          const where = `${operation.method} ${operation.path}: ${broken.place.join(".")} ${broken.what}`;
          if (broken.item !== null) {
            expect(response.status, where).toBe(207);
            const error = answer.errors?.find((entry) => entry.index === broken.item);
            expect(error?.code, where).toBe("invalid_input");
            expect(namesPlace(error?.detail ?? "", "item", broken.place), `${where}: ${error?.detail}`).toBe(true);
            return;
          }
          expect(response.status, where).toBe(422);
          expect(namesPlace(answer.detail ?? "", "body", broken.place), `${where}: ${answer.detail}`).toBe(true);
        }),
        { numRuns: runsPerOperation() },
      );
    }
    expect(checked).toBeGreaterThan(operations.length * runsPerOperation() * 0.5);
  }, 300_000);
});

interface Broken {
  request: Request;
  /** The place as the detail names it: `query.limit`, `header.idempotency-key`, `content.text`. */
  place: (string | number)[];
  what: string;
  /** The index of the broken item of a batch, which is refused alone; null for the request. */
  item: number | null;
  /** Whether the document's validator agrees that the request breaks it. */
  confirmed: () => boolean;
}

function violationsOfRequest(operation: Operation, request: Request): Broken[] {
  const out: Broken[] = [];
  for (const place of ["query", "header", "path"] as const) {
    const declared = operation.parameters.filter((parameter) => parameter.in === place);
    const values = place === "path" ? request.params : place === "query" ? request.query : request.headers;
    const schema: Schema = {
      type: "object",
      properties: Object.fromEntries(declared.map((parameter) => [parameter.name, parameter.schema])),
      required: declared.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      additionalProperties: place === "header",
    };
    const typed = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typedValue(schema, name, value)]));
    for (const violation of violationsOf(set, schema, typed)) {
      // Parameters travel as text: a number where a string goes reads as a string.
      if (violation.what === "wrong_type" || (violation.path.length === 0 && violation.what !== "unknown_field")) continue;
      // An empty or over-short path segment is another route, so only an over-long one stays.
      if (place === "path" && violation.what !== "too_long") continue;
      const text = Object.fromEntries(Object.entries(violation.value as object).map(([name, value]) => [name, String(value)]));
      const changed = { ...request, [{ path: "params", query: "query", header: "headers" }[place]]: text };
      out.push({
        request: changed,
        place: [place === "path" ? "param" : place, ...violation.path],
        what: violation.what,
        item: null,
        confirmed: () => isViolation(set, schema, violation),
      });
    }
  }
  const body = operation.body;
  if (body) {
    for (const violation of violationsOf(set, body, request.body)) {
      const [first, index, ...rest] = violation.path;
      const inItem = ITEMIZED.has(operation.path) && first === "items" && typeof index === "number";
      // Without `kind` an event is a message (the default kind), whose own rules name other fields.
      if (inItem && violation.what === "missing" && rest.length === 1 && rest[0] === "kind") continue;
      out.push({
        request: { ...request, body: violation.value },
        place: inItem ? rest : violation.path,
        what: violation.what,
        item: inItem ? index : null,
        confirmed: () => isViolation(set, body, violation),
      });
    }
  }
  return out;
}

/** Query and path values travel as text; the walk reasons about them as the schema types them. */
function typedValue(schema: Schema, name: string, value: string): unknown {
  const property = (schema.properties as Record<string, Schema>)[name];
  return property?.type === "integer" ? Number(value) : value;
}
