import fc from "fast-check";
import { expect } from "vitest";
import { arbitraryOf, type Schema, type SchemaSet } from "./json-schema";
import { pathFixtures } from "./path-fixtures";
import { runs } from "./property-runs";
import { call, createSpace, OPERATOR_TOKEN, type Space } from "./seed";
import { type Operation, type Parameter, prefixOf, servedDocument } from "./served-document";

/**
 * Requests to the served document's operations generated from its own schemas, sent with the
 * credential each operation declares, and the check every answer must pass: what the contract
 * properties (test/api/contract-*.properties.test.ts) share.
 */

export interface Request {
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** Where requests go: the document's schemas, a space, and ids of real objects for path templates. */
export interface Target {
  set: SchemaSet;
  space: Space;
  fixtures: Record<string, string>;
}

/** The served document's operations, and a fresh space with real objects for their paths. */
export async function documentTarget(): Promise<{ operations: Operation[]; target: Target }> {
  const document = await servedDocument();
  const space = await createSpace();
  return { operations: document.operations, target: { set: document.set, space, fixtures: await pathFixtures(space) } };
}

/**
 * Each property's requests, shared among the operations, so routes added later are covered
 * without the run growing past the budget.
 */
const REQUESTS_PER_PROPERTY = 1400;

export function runsPerOperation(operations: Operation[]): number {
  return Math.max(20, Math.floor(runs(REQUESTS_PER_PROPERTY) / operations.length));
}

/** Path parameters take the fixture named by the segment before them, or a generated value. */
export function requestOf(target: Target, operation: Operation): fc.Arbitrary<Request> {
  const { set, fixtures } = target;
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
  // A file body (CSV, NDJSON, an upload's bytes) is any text as far as the document can say.
  const body = operation.body ? arbitraryOf(set, operation.body) : operation.fileType ? fc.string() : fc.constant(undefined);
  return fc.record({ params, query: fields("query"), headers: fields("header"), body }) as fc.Arbitrary<Request>;
}

export async function send(target: Target, operation: Operation, request: Request): Promise<Response> {
  const { space } = target;
  let path = operation.path;
  for (const [name, value] of Object.entries(request.params)) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const query = new URLSearchParams(request.query).toString();
  const credential = {
    sourceKey: { token: space.key },
    personToken: { token: space.tenant.token },
    operatorToken: { operator: OPERATOR_TOKEN },
  }[operation.security ?? ""];
  const url = `${prefixOf(operation.api, space)}${path}${query ? `?${query}` : ""}`;
  if (operation.fileType && typeof request.body === "string") {
    const headers = { ...request.headers, "content-type": operation.fileType };
    return call(operation.method, url, { ...credential, headers, rawBody: request.body });
  }
  return call(operation.method, url, { ...credential, headers: request.headers, body: request.body });
}

/** The answer is declared for its status and content type, and parses against its schema. */
export async function checkedAnswer(set: SchemaSet, operation: Operation, response: Response): Promise<unknown> {
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
