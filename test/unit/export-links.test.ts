import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditTargets } from "../../src/audit/log";
import { checkDownloadToken, downloadToken, presignGet } from "../../src/space/exports/links";
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

describe("R2 presigned URLs: AWS Signature V4 in the query string", () => {
  it("signs AWS's own example (GET /test.txt, examplebucket, 2013-05-24, 86400 s) to its published signature", async () => {
    const url = await presignGet(
      {
        accountId: "",
        bucket: "examplebucket",
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      },
      "test.txt",
      Date.parse("2013-05-24T00:00:00Z"),
      86_400,
      { endpoint: "https://examplebucket.s3.amazonaws.com", region: "us-east-1" },
    );
    const signed = new URL(url);
    expect(`${signed.origin}${signed.pathname}`).toBe("https://examplebucket.s3.amazonaws.com/test.txt");
    expect(Object.fromEntries(signed.searchParams)).toEqual({
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential": "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request",
      "X-Amz-Date": "20130524T000000Z",
      "X-Amz-Expires": "86400",
      "X-Amz-SignedHeaders": "host",
      "X-Amz-Signature": "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    });
  });

  it("addresses the bucket on the account's R2 endpoint, region auto", async () => {
    const url = new URL(
      await presignGet(
        { accountId: "acc123", bucket: "cms-files", accessKeyId: "k", secretAccessKey: "s" },
        "spaces/demo/exports/x",
        0,
        3600,
      ),
    );
    expect(url.host).toBe("acc123.r2.cloudflarestorage.com");
    expect(url.pathname).toBe("/cms-files/spaces/demo/exports/x");
    expect(url.searchParams.get("X-Amz-Credential")).toBe("k/19700101/auto/s3/aws4_request");
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
