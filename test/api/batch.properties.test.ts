import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildEnvelope, envelopeSpec, isValidEnvelope, longStrings, TEMPLATES, validItem } from "../support/batch-items";
import {
  type BatchAnswer,
  bodyText,
  checkBatchAnswer,
  fresh,
  httpTrim,
  isJsonContentType,
  markedHeader,
  markedJson,
  marker,
  printable,
  problemCode,
  send,
  traceparentArb,
  trackRuns,
  tryParse,
} from "../support/hostile";
import { runs } from "../support/property-runs";
import { createSpace, message, type Space } from "../support/seed";

/**
 * Property-based hostile input against POST /v1/batch: arbitrary and marked JSON bodies,
 * envelopes of valid and hostile items, item and body size limits, raw text and bytes, and
 * Content-Types. The checks every answer must pass live in test/support/hostile.ts.
 */

const RUNS = {
  jsonBodies: 200,
  markedBodies: 150,
  envelopes: 400,
  itemSize: 14,
  bodySize: 6,
  textBodies: 150,
  contentTypes: 120,
};
const finished = trackRuns(RUNS);

let space: Space;

beforeAll(async () => {
  space = await createSpace();
}, 60_000);

const batchPath = () => `/spaces/${space.name}/v1/batch`;
const jsonHeaders = (extra: Record<string, string | undefined> = {}) => ({
  authorization: `Bearer ${space.key}`,
  "content-type": "application/json",
  ...extra,
});

describe("POST /v1/batch with hostile bodies", () => {
  it("accepts every valid item template (the baseline the properties rely on)", async () => {
    const items = TEMPLATES.map(validItem);
    const text = JSON.stringify({ items });
    const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ accepted: TEMPLATES.length, duplicates: 0, errors: [] });
  });

  it("answers arbitrary JSON with 422 unless it is an envelope", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), traceparentArb, async (value, traceparent) => {
        const text = JSON.stringify(value);
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: jsonHeaders({ traceparent }),
          body: text,
          secrets: longStrings(value),
        });
        const parsed = JSON.parse(text) as unknown;
        if (isValidEnvelope(parsed)) checkBatchAnswer(answer, parsed.items.length, text);
        else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.jsonBodies) },
    );
    finished("jsonBodies");
  }, 120_000);

  it("answers marked JSON (prototype keys, unicode, long strings) with 422 and no echo", async () => {
    await fc.assert(
      fc.asyncProperty(markedJson, async (value) => {
        const text = JSON.stringify(value) ?? "null";
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
        expect(isValidEnvelope(JSON.parse(text))).toBe(false);
        expect(answer.status).toBe(422);
        expect(problemCode(answer)).toBe("invalid_input");
      }),
      { numRuns: runs(RUNS.markedBodies) },
    );
    finished("markedBodies");
  }, 120_000);

  it("checks each item of an envelope alone: counts add up, valid items go in, bad ones are listed", async () => {
    await fc.assert(
      fc.asyncProperty(envelopeSpec, async (spec) => {
        const { text, expectations } = buildEnvelope(spec);
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
        const parsed = JSON.parse(text) as unknown;
        if (!isValidEnvelope(parsed)) {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
          return;
        }
        const errors = checkBatchAnswer(answer, parsed.items.length, text);
        expect(expectations).not.toBeNull();
        let mustGoIn = 0;
        (expectations ?? []).forEach((expected, index) => {
          const error = errors.get(index);
          if (expected === "accept") {
            mustGoIn++;
            expect(error, `item ${index} should be accepted: ${JSON.stringify(error)}`).toBeUndefined();
          } else if (expected === "reject") {
            expect(error?.code, `item ${index} should be rejected`).toBe("invalid_input");
          }
        });
        const { accepted, duplicates } = answer.body as BatchAnswer;
        expect(accepted + duplicates).toBeGreaterThanOrEqual(mustGoIn);
      }),
      { numRuns: runs(RUNS.envelopes) },
    );
    finished("envelopes");
  }, 120_000);

  // z.record skips an own `__proto__` key, so anything under `attributes.__proto__` would pass
  // the schema and be stored verbatim: intake refuses the key itself.
  it("rejects an item with the key __proto__ anywhere", async () => {
    const item = JSON.stringify(message()).replace(/}$/, `,"attributes":{"__proto__":{"zqbcdfgh":[1,{"deep":true}]}}}`);
    const body = `{"items":[${item}]}`;
    const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
    const errors = checkBatchAnswer(answer, 1, body);
    expect(errors.get(0)?.code).toBe("invalid_input");
  });

  it("measures an item in UTF-8 bytes: over 1,000,000 is too_large, at the limit goes in", async () => {
    const units = ["x", "é", "€", "😀"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom(...units),
        marker,
        fc.boolean(),
        async (delta, unit, mark, withNeighbour) => {
          const target = 1_000_000 + delta;
          const item = message({ idempotency_key: fresh("big"), content: { type: "text", text: "" } });
          const baseBytes = new TextEncoder().encode(JSON.stringify(item)).byteLength;
          const unitBytes = new TextEncoder().encode(unit).byteLength;
          const need = target - baseBytes - mark.length;
          const text = mark + unit.repeat(Math.floor(need / unitBytes)) + "x".repeat(need % unitBytes);
          item.content = { type: "text", text };
          const itemJson = JSON.stringify(item);
          expect(new TextEncoder().encode(itemJson).byteLength).toBe(target);
          const items = withNeighbour ? [message(), item] : [item];
          const body = JSON.stringify({ items });
          const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
          const errors = checkBatchAnswer(answer, items.length, body);
          const index = items.length - 1;
          if (target > 1_000_000) expect(errors.get(index)?.code).toBe("too_large");
          else expect(errors.get(index)).toBeUndefined();
          if (withNeighbour) expect(errors.get(0)).toBeUndefined();
        },
      ),
      { numRuns: runs(RUNS.itemSize) },
    );
    finished("itemSize");
  }, 120_000);

  it("refuses a body over 2,500,000 bytes whole, and takes one at the limit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -2, max: 2 }), marker, async (delta, mark) => {
        const target = 2_500_000 + delta;
        const items = [0, 1, 2].map(() => message({ idempotency_key: fresh("body"), content: { type: "text", text: "" } }));
        const empty = JSON.stringify({ items });
        const spare = target - new TextEncoder().encode(empty).byteLength;
        const share = Math.floor(spare / 3);
        items.forEach((item, i) => {
          const length = i === 2 ? spare - 2 * share : share;
          item.content = { type: "text", text: (mark + "x".repeat(length)).slice(0, length) };
        });
        const body = JSON.stringify({ items });
        expect(new TextEncoder().encode(body).byteLength).toBe(target);
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
        if (target > 2_500_000) {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        } else {
          checkBatchAnswer(answer, 3, body);
          expect(answer.body).toEqual({ accepted: 3, duplicates: 0, errors: [] });
        }
      }),
      { numRuns: runs(RUNS.bodySize) },
    );
    finished("bodySize");
  }, 120_000);

  it("answers text that is not a JSON envelope, and bytes that are not UTF-8, with 422", async () => {
    const textBody = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      printable,
      markedHeader,
      marker.map((m) => `{"items":[{"type":"event","${m}":`),
      marker.map((m) => `{"items": [${m}]}`),
      fc.constantFrom("", " ", "{", "[]", "null", '{"items":[]}', "\ufeff{}", '{"items":[1],}'),
    );
    const body = fc.oneof(
      { weight: 3, arbitrary: textBody.map((text): string | Uint8Array => text) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes): string | Uint8Array => bytes) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: raw });
        const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
        let received: string | null;
        try {
          received = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
        } catch {
          received = null;
        }
        const parsed = received === null ? { ok: false as const } : tryParse(received);
        if (parsed.ok && isValidEnvelope(parsed.value)) {
          checkBatchAnswer(answer, parsed.value.items.length, bodyText(raw));
        } else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.textBodies) },
    );
    finished("textBodies");
  }, 120_000);

  it("takes a body only with a JSON Content-Type, whatever else the headers say", async () => {
    const contentType = fc.option(
      fc.oneof(
        fc.constantFrom(
          "application/json",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "application/vnd.api+json",
          "application/problem+json",
          " application/json ",
          "application/json;",
          "application/jsonx",
          "application/x-json",
          "text/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=zqbcdfgh",
          "application/+json",
          "json",
          "",
        ),
        markedHeader,
        marker.map((m) => `application/${m}+json`),
        marker.map((m) => `application/json; ${m}=${m}`),
      ),
      { nil: undefined },
    );
    const idempotencyKey = fc.option(
      fc.oneof(
        markedHeader,
        fc.constant(""),
        marker.map((m) => m.repeat(40)),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(contentType, idempotencyKey, traceparentArb, async (type, idempotency, traceparent) => {
        const body = JSON.stringify({ items: [message()] });
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: { authorization: `Bearer ${space.key}`, "content-type": type, "idempotency-key": idempotency, traceparent },
          body,
        });
        // Without a Content-Type, fetch sends text/plain for a string body.
        if (isJsonContentType(type === undefined ? undefined : httpTrim(type))) {
          checkBatchAnswer(answer, 1, body);
          expect(answer.status).toBe(200);
        } else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.contentTypes) },
    );
    finished("contentTypes");
  }, 120_000);
});
