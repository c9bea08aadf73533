import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatSourceKey, newKeyId, newKeySecret, parseSourceKey, type SourceKey } from "../../src/auth/source-key";
import { runs } from "../support/property-runs";

/**
 * Property tests of source keys (DESIGN 3.1): `<prefix>_<live|test>_<region>_<space>_<key_id>_<secret>`,
 * the last 6 characters of the secret being a checksum of the first 26. The checksum is recomputed
 * here independently (CRC-32, written in base 62, most significant digit first) as the oracle.
 */

const BASE32 = [..."abcdefghijklmnopqrstuvwxyz234567"];
const BASE62 = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc ^= text.charCodeAt(i);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < 6; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

const prefix = fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/);
const mode = fc.constantFrom<"live" | "test">("live", "test");
// Regions and spaces are host labels (`NameSlugSchema`): up to 63 characters each.
const region = fc.stringMatching(/^[a-z0-9-]{1,63}$/);
const spaceName = fc.stringMatching(/^[a-z0-9-]{1,63}$/);
const keyId = fc.string({ unit: fc.constantFrom(...BASE32), minLength: 12, maxLength: 12 });
const secretBody = fc.string({ unit: fc.constantFrom(...BASE62), minLength: 26, maxLength: 26 });

/** A well-formed key whose every part fast-check chose (so a failure replays from its seed). */
const sourceKey: fc.Arbitrary<SourceKey> = fc
  .record({ prefix, mode, region, space: spaceName, keyId, body: secretBody })
  .map(({ body, ...parts }) => ({ ...parts, secret: body + checksum(body) }));

/** A well-formed key with the id and secret the service itself generates. */
const generatedKey: fc.Arbitrary<SourceKey> = fc
  .record({ prefix, mode, region, space: spaceName })
  .map((parts) => ({ ...parts, keyId: newKeyId(), secret: newKeySecret() }));

describe("the checksum oracle", () => {
  it("is the standard CRC-32", () => {
    expect(crc32("123456789")).toBe(0xcbf43926);
    expect(crc32("")).toBe(0);
  });
});

describe("newKeyId and newKeySecret", () => {
  it("produce 12 base32 characters and 26 base62 characters followed by their checksum", () => {
    fc.assert(
      fc.property(fc.integer(), () => {
        const id = newKeyId();
        const secret = newKeySecret();
        expect(id).toMatch(/^[a-z2-7]{12}$/);
        expect(secret).toMatch(/^[0-9A-Za-z]{32}$/);
        expect(secret.slice(26)).toBe(checksum(secret.slice(0, 26)));
      }),
      { numRuns: runs(300) },
    );
  });

  it("do not repeat", () => {
    const ids = new Set(Array.from({ length: 500 }, newKeyId));
    const secrets = new Set(Array.from({ length: 500 }, newKeySecret));
    expect(ids.size).toBe(500);
    expect(secrets.size).toBe(500);
  });
});

describe("formatSourceKey and parseSourceKey", () => {
  it("round-trip every well-formed key", () => {
    fc.assert(
      fc.property(fc.oneof(sourceKey, generatedKey), (key) => {
        const text = formatSourceKey(key);
        expect(text).toBe(`${key.prefix}_${key.mode}_${key.region}_${key.space}_${key.keyId}_${key.secret}`);
        expect(parseSourceKey(text, key.prefix)).toEqual(key);
      }),
      { numRuns: runs(1000) },
    );
  });

  it("refuse a key presented under another prefix", () => {
    fc.assert(
      fc.property(sourceKey, prefix, (key, other) => {
        fc.pre(other !== key.prefix);
        expect(parseSourceKey(formatSourceKey(key), other)).toBeNull();
      }),
      { numRuns: runs(500) },
    );
  });

  it("refuse every single-character substitution in the secret (all 32 positions, all 61 other characters)", () => {
    fc.assert(
      fc.property(fc.oneof(sourceKey, generatedKey), (key) => {
        const text = formatSourceKey(key);
        const start = text.length - 32;
        for (let position = start; position < text.length; position++) {
          for (const char of BASE62) {
            if (char === text[position]) continue;
            const mutated = text.slice(0, position) + char + text.slice(position + 1);
            if (parseSourceKey(mutated, key.prefix) !== null) {
              throw new Error(`accepted ${mutated} (position ${position - start} of the secret)`);
            }
          }
        }
      }),
      { numRuns: runs(40) },
    );
  });

  it("refuse every swap of two different adjacent characters in the secret", () => {
    fc.assert(
      fc.property(sourceKey, fc.integer({ min: 0, max: 30 }), (key, index) => {
        const secret = key.secret;
        fc.pre(secret[index] !== secret[index + 1]);
        const swapped = secret.slice(0, index) + secret[index + 1] + secret[index] + secret.slice(index + 2);
        expect(parseSourceKey(formatSourceKey({ ...key, secret: swapped }), key.prefix)).toBeNull();
      }),
      { numRuns: runs(500) },
    );
  });

  it("never give back the original key for a key with any character substituted", () => {
    const anyChar = fc.oneof(
      fc.constantFrom(...BASE62, "_", "-", ".", " "),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(sourceKey, fc.nat(), anyChar, (key, at, char) => {
        const text = formatSourceKey(key);
        const position = at % text.length;
        fc.pre(text[position] !== char);
        const parsed = parseSourceKey(text.slice(0, position) + char + text.slice(position + 1), key.prefix);
        if (parsed) expect(parsed).not.toEqual(key);
      }),
      { numRuns: runs(1000) },
    );
  });

  it("refuse keys with a part out of its pattern", () => {
    const broken = fc.oneof(
      sourceKey.map((key) => ({ ...key, mode: "prod" as SourceKey["mode"] })),
      fc
        .tuple(sourceKey, fc.constantFrom("", "a".repeat(64), "eu_west", "EU", "eu.west"))
        .map(([key, region]) => ({ ...key, region })),
      fc
        .tuple(sourceKey, fc.constantFrom("", "a".repeat(64), "My-Space", "sp ace", "sp_ace"))
        .map(([key, space]) => ({ ...key, space })),
      fc
        .tuple(sourceKey, fc.constantFrom("", "abc", "abcdefghijk1", "ABCDEFGHIJKL", "abcdefghijklm"))
        .map(([key, id]) => ({ ...key, keyId: id })),
      sourceKey.map((key) => ({ ...key, secret: key.secret.slice(1) })),
      sourceKey.map((key) => ({ ...key, secret: `${key.secret}A` })),
      sourceKey.map((key) => ({ ...key, secret: `${key.secret.slice(0, 25)}-${key.secret.slice(26)}` })),
    );
    fc.assert(
      fc.property(broken, (key) => {
        expect(parseSourceKey(formatSourceKey(key), key.prefix)).toBeNull();
      }),
      { numRuns: runs(500) },
    );
  });

  it("never throw, and accept only strings that are their own canonical form with a valid checksum", () => {
    const nearKey = fc
      .tuple(sourceKey, fc.nat(), fc.nat({ max: 3 }), fc.string({ unit: "binary", maxLength: 3 }))
      .map(([key, at, deleted, inserted]) => {
        const text = formatSourceKey(key);
        const position = at % (text.length + 1);
        return text.slice(0, position) + inserted + text.slice(position + deleted);
      });
    const input = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.string({ unit: "grapheme", maxLength: 200 }),
      fc.stringMatching(/^[a-z0-9_-]{0,150}$/),
      nearKey,
    );
    fc.assert(
      fc.property(input, fc.oneof(prefix, fc.string()), (text, keyPrefix) => {
        let parsed: SourceKey | null = null;
        expect(() => {
          parsed = parseSourceKey(text, keyPrefix);
        }).not.toThrow();
        if (parsed !== null) {
          const key: SourceKey = parsed;
          expect(formatSourceKey(key)).toBe(text);
          expect(key.prefix).toBe(keyPrefix);
          expect(key.secret.slice(26)).toBe(checksum(key.secret.slice(0, 26)));
        }
      }),
      { numRuns: runs(2000) },
    );
  });
});
