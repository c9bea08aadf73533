import { AwsV4Signer } from "aws4fetch";

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
