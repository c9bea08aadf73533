import { AwsV4Signer } from "aws4fetch";
import type { Env } from "../env";
import { Problem } from "../http/problem";

/** An access key of R2's S3 API (or any AWS SigV4 service). */
export interface SigningKey {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SigningRequest {
  method: string;
  url: string;
  /** Every header given is signed, `Content-Type` and `Content-Length` included: the request must carry each exactly. */
  headers: Record<string, string>;
  region: string;
  service: string;
  /** When the signature is made: `YYYYMMDDTHHMMSSZ`. */
  datetime: string;
  /** In the query string (a presigned URL, which then needs `X-Amz-Expires`) rather than an `Authorization` header. */
  inQuery: boolean;
}

/**
 * AWS Signature Version 4 by aws4fetch, the small signer made for Workers (WebCrypto, no Node
 * APIs). Checked against AWS's published test vectors (test/unit/sigv4.test.ts). A body's hash
 * is the `x-amz-content-sha256` header when given; otherwise the empty body's, or for an S3
 * presigned URL `UNSIGNED-PAYLOAD`.
 */
export async function signV4(
  request: SigningRequest,
  key: SigningKey,
): Promise<{ url: string; headers: Record<string, string> }> {
  const signer = new AwsV4Signer({
    method: request.method,
    url: request.url,
    headers: request.headers,
    accessKeyId: key.accessKeyId,
    secretAccessKey: key.secretAccessKey,
    region: request.region,
    service: request.service,
    datetime: request.datetime,
    signQuery: request.inQuery,
    allHeaders: true,
  });
  const signed = await signer.sign();
  return { url: signed.url.toString(), headers: Object.fromEntries(signed.headers) };
}

/** A time as SigV4 writes it: `20130524T000000Z`. */
export function amzDate(at: number): string {
  return new Date(at).toISOString().replace(/[:-]|\.\d{3}/g, "");
}

/** R2's S3 API of the bucket behind `FILES` (production): the account, the bucket and an access key to it. */
export interface R2Endpoint {
  accountId: string;
  bucket: string;
  key: SigningKey;
}

/**
 * The S3 endpoint of this deployment's bucket, for presigned URLs (media uploads, export
 * downloads). Without R2's account, bucket or access key: `503`, with what is missing logged
 * (names only), never a URL nobody can use.
 */
export function r2Endpoint(env: Env, use: string): R2Endpoint {
  const missing = (["R2_ACCOUNT_ID", "R2_BUCKET_NAME", "R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY"] as const).filter(
    (name) => !env[name],
  );
  if (missing.length > 0) {
    console.error(JSON.stringify({ message: `${use} are not configured`, missing }));
    throw new Problem("unavailable", `${use} are not configured`, { "Retry-After": "60" });
  }
  return {
    accountId: env.R2_ACCOUNT_ID,
    bucket: env.R2_BUCKET_NAME,
    key: { accessKeyId: env.R2_ACCESS_KEY_ID ?? "", secretAccessKey: env.R2_SECRET_ACCESS_KEY ?? "" },
  };
}

/**
 * A presigned URL of one object on R2's S3 API (path-style on the account's endpoint, region
 * `auto`): signed with `headers` (a request must carry each exactly; `host` always), valid
 * `expiresSeconds` from `signedAt`.
 */
export async function presignObject(
  endpoint: R2Endpoint,
  request: {
    method: "GET" | "PUT";
    objectKey: string;
    headers?: Record<string, string>;
    signedAt: number;
    expiresSeconds: number;
  },
): Promise<string> {
  const path = request.objectKey.split("/").map(encodeURIComponent).join("/");
  const url = new URL(`https://${endpoint.accountId}.r2.cloudflarestorage.com/${encodeURIComponent(endpoint.bucket)}/${path}`);
  url.searchParams.set("X-Amz-Expires", String(request.expiresSeconds));
  const signed = await signV4(
    {
      method: request.method,
      url: url.toString(),
      headers: request.headers ?? {},
      region: "auto",
      service: "s3",
      datetime: amzDate(request.signedAt),
      inQuery: true,
    },
    endpoint.key,
  );
  return signed.url;
}
