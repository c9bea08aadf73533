import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTENT_TYPE_PATTERN, MAX_MEDIA_BYTES } from "../../src/contract/media";
import { reservationHeaders } from "../../src/edge/media/upload-target";
import { amzDate, presignObject, type R2Endpoint, signV4 } from "../../src/r2/presign";
import { runs } from "../support/property-runs";

/**
 * The signing code of presigned upload URLs, against AWS's published Signature Version 4 test
 * vectors, and each presigned R2 `PUT` against a second implementation written here from the
 * specification (itself checked on the published presigned-URL example).
 */

/** AWS SigV4 test suite, `get-vanilla`: https://docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html */
const SUITE = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

/** S3, "Authenticating Requests: Using Query Parameters", example GET of examplebucket/test.txt. */
const S3_EXAMPLE = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const S3_EXAMPLE_URL =
  "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";

const query = (url: string) => Object.fromEntries([...new URL(url).searchParams].sort(([a], [b]) => a.localeCompare(b)));

describe("SigV4 signing (aws4fetch) against AWS's published vectors", () => {
  it("get-vanilla: the Authorization header AWS publishes", async () => {
    const signed = await signV4(
      {
        method: "GET",
        url: "https://example.amazonaws.com/",
        headers: {},
        region: "us-east-1",
        service: "service",
        datetime: "20150830T123600Z",
        inQuery: false,
      },
      SUITE,
    );
    expect(signed.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    expect(signed.headers["x-amz-date"]).toBe("20150830T123600Z");
  });

  it("the S3 presigned-URL example: the URL AWS publishes, parameter for parameter", async () => {
    const signed = await signV4(
      {
        method: "GET",
        url: "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Expires=86400",
        headers: {},
        region: "us-east-1",
        service: "s3",
        datetime: "20130524T000000Z",
        inQuery: true,
      },
      S3_EXAMPLE,
    );
    expect(signed.url.split("?")[0]).toBe(S3_EXAMPLE_URL.split("?")[0]);
    expect(query(signed.url)).toEqual(query(S3_EXAMPLE_URL));
  });

  it("the second implementation below reproduces the S3 example's signature", async () => {
    const signature = await independentSignature({
      method: "GET",
      host: "examplebucket.s3.amazonaws.com",
      path: "/test.txt",
      query: Object.entries(query(S3_EXAMPLE_URL)).filter(([name]) => name !== "X-Amz-Signature"),
      headers: {},
      payloadHash: "UNSIGNED-PAYLOAD",
      datetime: "20130524T000000Z",
      region: "us-east-1",
      service: "s3",
      secret: S3_EXAMPLE.secretAccessKey,
    });
    expect(signature).toBe(query(S3_EXAMPLE_URL)["X-Amz-Signature"]);
  });
});

const R2: R2Endpoint = {
  accountId: "0123456789abcdef0123456789abcdef",
  bucket: "cms-files",
  key: { accessKeyId: "R2EXAMPLEKEYID", secretAccessKey: "r2-example-secret-access-key" },
};

/** Checks one presigned R2 `PUT` whole: its address, its parameters, and its signature recomputed independently. */
async function checkPresignedPut(record: { contentType: string; sizeBytes: number; sha256: string; reservedAt: number }) {
  const expiresAt = record.reservedAt + 3_600_000;
  const headers = reservationHeaders(record);
  const objectKey = "spaces/demo/media/0197a000-0000-7000-8000-000000000001";
  const expiresSeconds = (expiresAt - record.reservedAt) / 1000;
  const url = new URL(
    await presignObject(R2, { method: "PUT", objectKey, headers, signedAt: record.reservedAt, expiresSeconds }),
  );
  expect(`${url.origin}${url.pathname}`).toBe(`https://${R2.accountId}.r2.cloudflarestorage.com/cms-files/${objectKey}`);
  const params = query(url.toString());
  const datetime = amzDate(record.reservedAt);
  expect(params).toMatchObject({
    "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
    "X-Amz-Credential": `R2EXAMPLEKEYID/${datetime.slice(0, 8)}/auto/s3/aws4_request`,
    "X-Amz-Date": datetime,
    "X-Amz-Expires": "3600",
    "X-Amz-SignedHeaders": "content-length;content-type;host;x-amz-checksum-sha256;x-amz-content-sha256",
  });
  const expected = await independentSignature({
    method: "PUT",
    host: url.host,
    path: url.pathname,
    query: Object.entries(params).filter(([name]) => name !== "X-Amz-Signature"),
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    // The payload is signed: R2 refuses a body that does not hash to it.
    payloadHash: record.sha256,
    datetime,
    region: "auto",
    service: "s3",
    secret: R2.key.secretAccessKey,
  });
  expect(params["X-Amz-Signature"]).toBe(expected);
}

describe("presigned R2 PUT of a reservation", () => {
  it("signs the content length, type and both SHA-256 headers, valid from the reservation to its expiry", async () => {
    await checkPresignedPut({
      contentType: "audio/ogg",
      sizeBytes: 123_456,
      sha256: "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
      reservedAt: Date.UTC(2026, 10, 26, 1, 2, 3),
    });
  });

  it("holds for any reservation: type, length, hash and time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(CONTENT_TYPE_PATTERN).filter((type) => type.length <= 255),
        fc.integer({ min: 1, max: MAX_MEDIA_BYTES }),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        fc.integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2100, 0, 1) / 1000 }),
        async (contentType, sizeBytes, sha256, seconds) => {
          await checkPresignedPut({ contentType, sizeBytes, sha256, reservedAt: seconds * 1000 });
        },
      ),
      { numRuns: runs(40) },
    );
  });
});

describe("presigned R2 GET of an export", () => {
  it("addresses the object on the account's endpoint, region auto, signed with the host alone", async () => {
    const objectKey = "spaces/demo/exports/0197a000-0000-7000-8000-000000000002";
    const signedAt = Date.UTC(2026, 10, 26, 4, 30, 0);
    const url = new URL(await presignObject(R2, { method: "GET", objectKey, signedAt, expiresSeconds: 3600 }));
    expect(`${url.origin}${url.pathname}`).toBe(`https://${R2.accountId}.r2.cloudflarestorage.com/cms-files/${objectKey}`);
    const params = query(url.toString());
    expect(params).toMatchObject({ "X-Amz-Expires": "3600", "X-Amz-SignedHeaders": "host", "X-Amz-Date": amzDate(signedAt) });
    const expected = await independentSignature({
      method: "GET",
      host: url.host,
      path: url.pathname,
      query: Object.entries(params).filter(([name]) => name !== "X-Amz-Signature"),
      headers: {},
      payloadHash: "UNSIGNED-PAYLOAD",
      datetime: amzDate(signedAt),
      region: "auto",
      service: "s3",
      secret: R2.key.secretAccessKey,
    });
    expect(params["X-Amz-Signature"]).toBe(expected);
  });
});

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
const encode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

const bytesOf = (text: string) => new TextEncoder().encode(text);
const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

async function hmac(key: Uint8Array, data: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, bytesOf(data)));
}

/** SigV4 from the specification: canonical request, string to sign, derived key, signature. */
async function independentSignature(request: {
  method: string;
  host: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  payloadHash: string;
  datetime: string;
  region: string;
  service: string;
  secret: string;
}): Promise<string> {
  const canonicalQuery = request.query
    .map(([name, value]) => [encode(name), encode(value)])
    .sort(([a = "", x = ""], [b = "", y = ""]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const headers: Record<string, string> = { ...request.headers, host: request.host };
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${headers[name]?.trim()}\n`).join("");
  const canonicalRequest = [
    request.method,
    request.path,
    canonicalQuery,
    canonicalHeaders,
    names.join(";"),
    request.payloadHash,
  ].join("\n");
  const date = request.datetime.slice(0, 8);
  const scope = `${date}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    request.datetime,
    scope,
    hex(await crypto.subtle.digest("SHA-256", bytesOf(canonicalRequest))),
  ].join("\n");
  let key = await hmac(bytesOf(`AWS4${request.secret}`), date);
  for (const part of [request.region, request.service, "aws4_request"]) key = await hmac(key, part);
  return hex((await hmac(key, stringToSign)).buffer as ArrayBuffer);
}
