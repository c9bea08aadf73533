import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditTargets } from "../../src/audit/log";
import { checkDownloadToken, downloadToken } from "../../src/space/exports/links";
import { runs } from "../support/property-runs";

const secret = new Uint8Array(32).fill(3);

describe("export download tokens: bound to a space, an export and an expiry", () => {
  it("opens a token as made, in time; refuses it expired, altered, or for another export or space", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uuid(),
        fc.uuid(),
        fc.integer({ min: 1, max: 4_000_000_000 }),
        fc.nat(85),
        async (id, other, expires, at) => {
          const token = await downloadToken(secret, "demo", id, expires);
          expect(await checkDownloadToken(secret, "demo", id, token, expires - 1)).toBe("valid");
          expect(await checkDownloadToken(secret, "demo", id, token, expires)).toBe("expired");
          if (other !== id) expect(await checkDownloadToken(secret, "demo", other, token, 0)).toBe("invalid");
          expect(await checkDownloadToken(secret, "other", id, token, 0)).toBe("invalid");
          expect(await checkDownloadToken(new Uint8Array(32).fill(4), "demo", id, token, 0)).toBe("invalid");
          // Any one character changed.
          const place = at % token.length;
          const changed = `${token.slice(0, place)}${token[place] === "A" ? "B" : "A"}${token.slice(place + 1)}`;
          expect(await checkDownloadToken(secret, "demo", id, changed, 0)).toBe("invalid");
        },
      ),
      { numRuns: runs(30) },
    );
  });
});

describe("audit targets: ids of the service's own syntax only", () => {
  it("keeps UUIDs (and key ids for keys), drops anything else a path could carry", () => {
    fc.assert(
      fc.property(fc.string(), fc.emailAddress(), (text, email) => {
        const targets = auditTargets([
          { type: "profile", id: text },
          { type: "profile", id: email },
          { type: "key", id: "abcdefgh2345" },
          { type: "profile", id: "abcdefgh2345" },
          { type: "export", id: "01a2156f-9d3c-7b42-9d21-a9ba75d59da9" },
          { type: "export", id: "01a2156f-9d3c-7b42-9d21-a9ba75d59da9" },
        ]);
        expect(targets).toEqual([
          ...(/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(text) ? [{ type: "profile", id: text }] : []),
          { type: "key", id: "abcdefgh2345" },
          { type: "export", id: "01a2156f-9d3c-7b42-9d21-a9ba75d59da9" },
        ]);
      }),
      { numRuns: runs(100) },
    );
  });
});
