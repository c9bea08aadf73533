import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { checkedAnswer, documentTarget, requestOf, runsPerOperation, send, type Target } from "../support/document-requests";
import type { Operation } from "../support/served-document";

/**
 * The document is the contract clients and models see: for every operation it serves, requests
 * generated from its own schemas must be accepted as to their shape, and every answer must parse
 * against the schema the document declares for its status and content type. (A request with one
 * constraint broken: contract-broken-requests.properties.test.ts.)
 */

/** Refusals of a valid request that depend on state or time, not on shape (README). */
const STATE_RULES = [
  /^expires_at: in_the_past$/,
  // `analytics` on a key of a source that is no analyst's: the kind is the source's, not the request's.
  /^scopes\.\d+: analyst_sources_only$/,
  // A cursor in a query string (`query.cursor`) or in a body (`cursor`).
  /^(query\.)?cursor: not_issued_by_this_service$/,
  // Context use: the range between two dates (and to today, by default) is not a shape.
  /^query: (from_after_to|range_over_90_days)$/,
];
const STATE_ITEM_CODES = new Set(["scope_missing", "operation_not_allowed", "verification_not_allowed", "not_found"]);
/** Rules the document states only in words: a phone must be a possible number for its country; FTS5 syntax. */
const WORDED_RULES = [
  /\.value: phone_not_normalizable$/,
  // FTS5's query grammar (search `mode: "fts5"`) is stated in words, not in a schema.
  /^query: fts5_syntax_error$/,
  // A file import names a media upload or carries the file, not both (`media_ref`'s description).
  /^body: must be empty with query\.media_ref$/,
];

let target: Target;
let operations: Operation[] = [];

beforeAll(async () => {
  ({ operations, target } = await documentTarget());
});

describe("the OpenAPI document and the server agree on every operation", () => {
  it("serves operations of both APIs", () => {
    expect(operations.length).toBeGreaterThanOrEqual(13);
    expect(operations.some((operation) => operation.path === "/v1/batch")).toBe(true);
  });

  it("accepts every request the document declares valid, and every answer matches its declared schema", async () => {
    let sent = 0;
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestOf(target, operation), async (request) => {
          sent++;
          const response = await send(target, operation, request);
          const answer = await checkedAnswer(target.set, operation, response);
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
        { numRuns: runsPerOperation(operations) },
      );
    }
    expect(sent).toBe(operations.length * runsPerOperation(operations));
  }, 300_000);
});
