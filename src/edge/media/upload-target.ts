import type { Env } from "../../env";
import { Problem } from "../../http/problem";
import { presignObject, type R2Endpoint, r2Endpoint } from "../../r2/presign";
import { isDevelopment } from "../../secrets";
import { mediaKey } from "../../space/media/keys";
import type { MediaRecord } from "../../space/media/reservations";
import { addressesSeenFrom } from "../address";
import { signUploadGrant, UPLOAD_TOKEN_HEADER, type UploadGrant } from "./upload-token";

/** Where the bytes of a reservation go and the headers that must go with them: SPEC's `upload_url`, `upload_headers`. */
export interface UploadTarget {
  upload_url: string;
  upload_headers: Record<string, string>;
}

/**
 * Who stores an upload. In production, R2 itself, through a presigned URL of its S3 API, so a
 * 500 MB file never passes through a Worker. Under `npm run dev`, where local R2 has no S3 API,
 * this Worker's development store (`PUT /v1/media/uploads/{media_ref}`), which holds uploads to
 * the same headers, authorized by a signed token in `X-Upload-Token`.
 */
export type UploadStore = { kind: "r2"; endpoint: R2Endpoint } | { kind: "development"; key: CryptoKey };

/**
 * The store of this deployment, checked before anything is reserved: production without R2's
 * account, bucket or access key is `503` (and logs what is missing), never a reservation nobody
 * can upload to.
 */
export function uploadStore(env: Env, developmentKey: CryptoKey | null): UploadStore {
  if (isDevelopment(env)) return { kind: "development", key: developmentStoreKey(developmentKey) };
  return { kind: "r2", endpoint: r2Endpoint(env, "media uploads") };
}

/** The development store's token key: development generates `UPLOAD_SECRET` when it is not set, so its absence is an outage. */
export function developmentStoreKey(key: CryptoKey | null): CryptoKey {
  if (key) return key;
  console.error(JSON.stringify({ message: "missing secrets", secrets: ["UPLOAD_SECRET"] }));
  throw new Problem("unavailable", "the service is not configured", { "Retry-After": "60" });
}

/**
 * The headers an upload must carry, as R2 names them: the length and type reserved, and the
 * SHA-256 twice: `x-amz-content-sha256` (hex), the payload hash R2 recomputes and refuses a body
 * against (`XAmzContentSHA256Mismatch`), and `x-amz-checksum-sha256` (base64), the checksum R2
 * verifies and keeps with the object.
 */
export function reservationHeaders(record: Pick<MediaRecord, "contentType" | "sizeBytes" | "sha256">): Record<string, string> {
  return {
    "Content-Type": record.contentType,
    "Content-Length": String(record.sizeBytes),
    "x-amz-checksum-sha256": hexToBase64(record.sha256),
    "x-amz-content-sha256": record.sha256,
  };
}

export async function uploadTarget(store: UploadStore, space: string, record: MediaRecord, seenFrom: { url: URL; env: Env }) {
  const headers = reservationHeaders(record);
  if (store.kind === "development") {
    const grant: UploadGrant = {
      space,
      mediaRef: record.mediaRef,
      contentType: record.contentType,
      sizeBytes: record.sizeBytes,
      sha256: record.sha256,
      expiresAt: record.expiresAt,
    };
    const base = addressesSeenFrom(seenFrom.url, seenFrom.env, space).baseUrl;
    return {
      upload_url: `${base}/v1/media/uploads/${record.mediaRef}`,
      upload_headers: { ...headers, [UPLOAD_TOKEN_HEADER]: await signUploadGrant(store.key, grant) },
    } satisfies UploadTarget;
  }
  return {
    // Valid from the reservation's start to its `expires_at`, signed with every header of it.
    upload_url: await presignObject(store.endpoint, {
      method: "PUT",
      objectKey: mediaKey(space, record.mediaRef),
      headers,
      signedAt: record.reservedAt,
      expiresSeconds: Math.round((record.expiresAt - record.reservedAt) / 1000),
    }),
    upload_headers: headers,
  };
}

function hexToBase64(hex: string): string {
  let binary = "";
  for (let at = 0; at < hex.length; at += 2) binary += String.fromCharCode(Number.parseInt(hex.slice(at, at + 2), 16));
  return btoa(binary);
}
