import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { CONTENT_TYPE_PATTERN, MAX_MEDIA_BYTES, UploadReservationSchema } from "../../src/contract/media";
import { namedMediaRefs } from "../../src/space/media/references";
import { expectProblem } from "../support/identity";
import { randomBytes, reserve, reserveResponse, storedObject, upload } from "../support/media";
import { runs } from "../support/property-runs";
import { createSpace, json, type Space } from "../support/seed";

/**
 * What parses input on the media path, against generated input: the reservation's body, the
 * development store's token and headers, and the batch's scan for the references it names.
 */

let space: Space;
beforeAll(async () => {
  space = await createSpace();
});

const contentType = fc.stringMatching(CONTENT_TYPE_PATTERN).filter((type) => type.length >= 3 && type.length <= 255);
const sha256 = fc.stringMatching(/^[0-9a-f]{64}$/);
const size = fc.integer({ min: 1, max: MAX_MEDIA_BYTES });
/** Header values HTTP carries as they are: visible ASCII, spaces only inside. */
const headerValue = fc
  .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 80 })
  .filter((value) => value.trim() === value);

describe("POST /v1/media/uploads: the reservation body", () => {
  it("takes every body the contract allows, and its upload headers carry its type, length and hash exactly", async () => {
    await fc.assert(
      fc.asyncProperty(contentType, size, sha256, async (content_type, size_bytes, hash) => {
        const answer = UploadReservationSchema.parse(
          await json(await reserveResponse(space, { content_type, size_bytes, sha256: hash }), 201),
        );
        expect(answer.upload_headers["Content-Type"]).toBe(content_type);
        expect(answer.upload_headers["Content-Length"]).toBe(String(size_bytes));
        expect(answer.upload_headers["x-amz-content-sha256"]).toBe(hash);
      }),
      { numRuns: runs(30) },
    );
  });

  it("refuses a body with one field outside the contract with 422 naming that field", async () => {
    const good = { content_type: "image/png", size_bytes: 10, sha256: "d".repeat(64) };
    const broken = fc.oneof(
      fc
        .oneof(fc.integer({ max: 0 }), fc.integer({ min: MAX_MEDIA_BYTES + 1 }), fc.double({ noInteger: true }), fc.string())
        .map((value) => ["size_bytes", value] as const),
      fc
        .string({ maxLength: 70 })
        .filter((value) => !/^[0-9a-f]{64}$/.test(value))
        .map((value) => ["sha256", value] as const),
      fc
        .string({ maxLength: 300 })
        .filter((value) => !CONTENT_TYPE_PATTERN.test(value) || value.length < 3 || value.length > 255)
        .map((value) => ["content_type", value] as const),
    );
    await fc.assert(
      fc.asyncProperty(broken, async ([field, value]) => {
        const problem = await expectProblem(await reserveResponse(space, { ...good, [field]: value }), 422, "invalid_input");
        expect(problem.detail).toContain(`${field}: `);
      }),
      { numRuns: runs(40) },
    );
  });
});

describe("PUT upload_url: the development store's token and headers", () => {
  it("refuses any token it did not sign with 401, never more", async () => {
    const bytes = randomBytes(32);
    const reservation = await reserve(space, bytes);
    const token = reservation.upload_headers["X-Upload-Token"] ?? "";
    const forged = fc.oneof(
      headerValue,
      fc.nat({ max: token.length - 1 }).chain((at) =>
        fc
          .constantFrom(..."ABCDEFabcdef0123456789-_.")
          .filter((character) => character !== token[at])
          .map((character) => `${token.slice(0, at)}${character}${token.slice(at + 1)}`),
      ),
    );
    await fc.assert(
      fc.asyncProperty(forged, async (value) => {
        await expectProblem(await upload(reservation, bytes, { "X-Upload-Token": value }), 401, "unauthenticated");
      }),
      { numRuns: runs(40) },
    );
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
  });

  it("refuses an upload with any one reserved header changed, naming it, and stores nothing", async () => {
    const bytes = randomBytes(48);
    const reservation = await reserve(space, bytes);
    const names = ["Content-Type", "x-amz-checksum-sha256", "x-amz-content-sha256"];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), headerValue, async (name, value) => {
        fc.pre(value !== reservation.upload_headers[name]);
        const problem = await expectProblem(await upload(reservation, bytes, { [name]: value }), 422, "invalid_input");
        expect(problem.detail).toContain(`header.${name.toLowerCase()}: not_as_reserved`);
      }),
      { numRuns: runs(30) },
    );
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
  });
});

describe("the batch's scan for the media it names", () => {
  it("finds exactly the string references of items' content, whatever else the body holds", () => {
    const namesMedia = (value: unknown) =>
      typeof (value as { content?: { media_ref?: unknown } } | null)?.content?.media_ref === "string";
    const entry = fc.oneof(
      fc.record({ ref: fc.string(), rest: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }) }).map(({ ref, rest }) => ({
        ref,
        item: { ...rest, content: { type: "audio", media_sha256: "e".repeat(64), media_ref: ref } },
      })),
      fc
        .anything()
        .filter((value) => !namesMedia(value))
        .map((item) => ({ ref: null, item })),
      fc.record({ content: fc.record({ media_ref: fc.oneof(fc.integer(), fc.constant(null), fc.object()) }) }).map((item) => ({
        ref: null,
        item,
      })),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), fc.anything(), (entries, noise) => {
        const refs = new Set(entries.flatMap(({ ref }) => (ref === null ? [] : [ref])));
        expect(new Set(namedMediaRefs({ items: entries.map(({ item }) => item) }))).toEqual(refs);
        // A body that is no batch names nothing, and never throws.
        if (!Array.isArray((noise as { items?: unknown } | null)?.items)) expect(namedMediaRefs(noise)).toEqual([]);
      }),
      { numRuns: runs(300) },
    );
  });
});
