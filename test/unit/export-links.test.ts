import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditTargets } from "../../src/audit/log";
import type { Env } from "../../src/env";
import { Problem } from "../../src/http/problem";
import { amzDate } from "../../src/r2/presign";
import { emptyCounts } from "../../src/space/exports/lines";
import { checkDownloadToken, downloadLink, downloadToken } from "../../src/space/exports/links";
import type { ExportRow } from "../../src/space/exports/records";
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

/** A production deployment's settings (docs/operations.md#deploying): R2's account, bucket and an access key. */
const PRODUCTION = {
  ENVIRONMENT: "production",
  R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
  R2_BUCKET_NAME: "cms-files",
  R2_ACCESS_KEY_ID: "R2EXAMPLEKEYID",
  R2_SECRET_ACCESS_KEY: "r2-example-secret-access-key",
} as const;
const production = PRODUCTION as unknown as Env;

/** A production link is signed with R2's key alone: a read of the space's database fails the test. */
const noDatabase = new Proxy({} as SqlStorage, {
  get() {
    throw new Error("a production download link read the database");
  },
});

/** What the docs promise, written out: a link lives an hour at most, an export 7 days. */
const LINK_TTL_S = 60 * 60;
const EXPORT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const SPACE = "acme-eu";
const QUERY_NAMES = [
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-Signature",
  "X-Amz-SignedHeaders",
];

function completedExport(exportId: string, profileId: string, requestedBy: string, completedAt: number): ExportRow {
  return {
    exportId,
    profileId,
    state: "completed",
    objectKey: `spaces/${SPACE}/exports/${exportId}`,
    uploadId: null,
    attempts: 1,
    counts: { ...emptyCounts(), profiles: 1, handles: 2, events: 7 },
    bytes: 4_096,
    requestedBy,
    createdAt: completedAt - 1_000,
    completedAt,
    members: [profileId],
  };
}

describe("production download links: R2 presigned URLs of the export's object, an hour at most and never past its expiry", () => {
  it("signs a GET of the export's key, valid min(1 h, what is left of its 7 days) from the read, with nothing else in it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.uuid(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2100, 0, 1) }),
        // Anywhere in the export's 7 days, often in its last two hours (where its expiry cuts the link).
        fc.oneof(
          fc.integer({ min: 0, max: EXPORT_TTL_MS - 1 }),
          fc.integer({ min: EXPORT_TTL_MS - 2 * LINK_TTL_S * 1000, max: EXPORT_TTL_MS - 1 }),
          fc.integer({ min: EXPORT_TTL_MS - 2_000, max: EXPORT_TTL_MS - 1 }),
        ),
        async ([exportId = "", profileId = "", requestedBy = ""], completedAt, age) => {
          const row = completedExport(exportId, profileId, requestedBy, completedAt);
          const now = completedAt + age;
          const expiry = completedAt + EXPORT_TTL_MS;
          const link = await downloadLink(production, noDatabase, row, now);
          // In its last second an export has no link: a presigned URL lasts one second at least.
          if (Math.floor(expiry / 1000) <= Math.floor(now / 1000)) {
            expect(link).toBeNull();
            return;
          }
          if (!link) throw new Error("a completed export has a link");
          const url = new URL(link.url);

          // The export's object on the account's S3 endpoint, and only the signature's parameters.
          expect(`${url.origin}${url.pathname}`).toBe(
            `https://${PRODUCTION.R2_ACCOUNT_ID}.r2.cloudflarestorage.com/${PRODUCTION.R2_BUCKET_NAME}/${row.objectKey}`,
          );
          expect([...url.searchParams.keys()].sort()).toEqual(QUERY_NAMES);
          expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
          expect(url.searchParams.get("X-Amz-Date")).toBe(amzDate(now));

          // Valid from its signing time (the read, to the second) for X-Amz-Expires seconds.
          const expires = Number(url.searchParams.get("X-Amz-Expires"));
          expect(Number.isInteger(expires)).toBe(true);
          expect(expires).toBeGreaterThanOrEqual(1);
          const signedAt = Math.floor(now / 1000) * 1000;
          const validUntil = signedAt + expires * 1000;
          expect(expires).toBeLessThanOrEqual(LINK_TTL_S);
          expect(validUntil).toBeLessThanOrEqual(expiry);
          expect(expires).toBeLessThanOrEqual(Math.min(LINK_TTL_S, Math.ceil((expiry - now) / 1000)));
          // No shorter than that either: the full hour, or up to the expiry's second.
          expect(expires).toBe(Math.min(LINK_TTL_S, Math.floor(expiry / 1000) - Math.floor(now / 1000)));
          // The answer's expires_at is the URL's.
          expect(link.expires_at).toBe(new Date(validUntil).toISOString());

          // No personal data: nothing of the subject or of who asked, only the space, the export and the signature.
          const whole = decodeURIComponent(link.url);
          for (const id of [profileId, requestedBy]) expect(whole).not.toContain(id);
          expect(whole.replace(row.objectKey, "")).not.toContain(exportId);
        },
      ),
      { numRuns: runs(60) },
    );
  });

  it("has no link for an export not completed, and is 503 unavailable without any one of R2's four settings", async () => {
    const row = completedExport(crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), Date.UTC(2026, 10, 26));
    const now = Date.UTC(2026, 10, 27);
    for (const state of ["running", "failed"] as const) {
      expect(await downloadLink(production, noDatabase, { ...row, state, completedAt: null }, now)).toBeNull();
    }
    for (const name of Object.keys(PRODUCTION).filter((name) => name.startsWith("R2_"))) {
      const missing = { ...PRODUCTION, [name]: "" } as unknown as Env;
      const refused = await downloadLink(missing, noDatabase, row, now).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(Problem);
      expect((refused as Problem).status).toBe(503);
      expect((refused as Problem).code).toBe("unavailable");
    }
  });
});
