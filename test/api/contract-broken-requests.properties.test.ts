import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  checkedAnswer,
  documentTarget,
  type Request,
  requestOf,
  runsPerOperation,
  send,
  type Target,
} from "../support/document-requests";
import type { Schema, SchemaSet } from "../support/json-schema";
import type { Operation } from "../support/served-document";
import { isViolation, namesPlace, violationsOf } from "../support/violations";

/**
 * The document is the contract clients and models see: for every operation it serves, a request
 * generated from its own schemas with one declared constraint broken must be `422` naming the
 * place (a broken item of a batch: refused alone, `207`), in an answer the document declares.
 * (Valid requests: contract-valid-requests.properties.test.ts.)
 */

/** Routes whose items are checked one by one: a broken item is refused alone (`207`). */
const ITEMIZED = new Set(["/v1/batch", "/v1/feedback"]);

let target: Target;
let operations: Operation[] = [];

beforeAll(async () => {
  ({ operations, target } = await documentTarget());
});

describe("the OpenAPI document and the server agree on every operation", () => {
  it("refuses a request with one declared constraint broken with 422 naming the place", async () => {
    let checked = 0;
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestOf(target, operation), fc.nat(), async (request, pick) => {
          const candidates = violationsOfRequest(target.set, operation, request);
          // The first candidate from `pick` on that the validator confirms breaks the document.
          let broken: Broken | undefined;
          for (let tried = 0; tried < candidates.length && !broken; tried++) {
            const candidate = candidates[(pick + tried) % candidates.length];
            if (candidate?.confirmed()) broken = candidate;
          }
          if (!broken) return;
          checked++;
          const response = await send(target, operation, broken.request);
          const answer = (await checkedAnswer(target.set, operation, response)) as {
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
        { numRuns: runsPerOperation(operations) },
      );
    }
    expect(checked).toBeGreaterThan(operations.length * runsPerOperation(operations) * 0.5);
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

function violationsOfRequest(set: SchemaSet, operation: Operation, request: Request): Broken[] {
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
