import { signingKey } from "../../auth/signing-key";
import type { Env } from "../../env";
import { Problem } from "../../http/problem";
import { presignObject, r2Endpoint } from "../../r2/presign";
import { isDevelopment } from "../../secrets";
import { expiresAt, requireLiveExport } from "./expiry";
import type { ExportRow } from "./records";

/**
 * Download links of completed exports (docs/api/privacy.md#download-links). In development a
 * route of this service serves the file with a token signed by the space's own key; in
 * production an R2 presigned URL (AWS Signature V4, query string) lets R2 serve it. Neither
 * carries personal data: a space, an export id, an expiry and a signature.
 */
export const LINK_TTL_S = 60 * 60;

const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

async function hmac(secret: Uint8Array, message: string): Promise<ArrayBuffer> {
  const key = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", key, encoder.encode(message));
}

const signedText = (space: string, exportId: string, expires: number) => `export-download\n${space}\n${exportId}\n${expires}`;

/** `<expiry, Unix seconds>.<HMAC-SHA256 over the space, the export and the expiry, base64url>`. */
export async function downloadToken(secret: Uint8Array, space: string, exportId: string, expires: number): Promise<string> {
  return `${expires}.${base64url(await hmac(secret, signedText(space, exportId, expires)))}`;
}

/** Whether a token is one `downloadToken` made for this export, and still in time. */
export async function checkDownloadToken(
  secret: Uint8Array,
  space: string,
  exportId: string,
  token: string,
  nowSeconds: number,
): Promise<"valid" | "invalid" | "expired"> {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return "invalid";
  const expires = Number(match[1]);
  const expected = encoder.encode(await downloadToken(secret, space, exportId, expires));
  const given = encoder.encode(token);
  if (expected.byteLength !== given.byteLength || !crypto.subtle.timingSafeEqual(expected, given)) return "invalid";
  return expires > nowSeconds ? "valid" : "expired";
}

/**
 * A completed export's link: in development this service's download route with a token; in
 * production an R2 presigned URL, which needs `R2_ACCOUNT_ID`, `R2_BUCKET_NAME`,
 * `R2_ACCESS_KEY_ID` and `R2_SECRET_ACCESS_KEY` (docs/operations.md): without them, `503`.
 * A development path is relative to the space's base address; the edge makes it whole.
 */
export async function downloadLink(
  env: Env,
  sql: SqlStorage,
  row: ExportRow,
  now: number,
): Promise<{ url: string; expires_at: string } | null> {
  const expiry = expiresAt(row);
  if (expiry === null) return null;
  // An hour, and never past the export's own expiry: in its last second, no link (a presigned
  // URL lasts at least one second).
  const expires = Math.min(Math.floor(now / 1000) + LINK_TTL_S, Math.floor(expiry / 1000));
  if (expires <= Math.floor(now / 1000)) return null;
  const expires_at = new Date(expires * 1000).toISOString();
  if (isDevelopment(env)) {
    const space = row.objectKey.split("/")[1] ?? "";
    const token = await downloadToken(signingKey(sql, LINK_KEY), space, row.exportId, expires);
    return { url: `/v1/exports/${row.exportId}/download?token=${token}`, expires_at };
  }
  const endpoint = r2Endpoint(env, "download links");
  const url = await presignObject(endpoint, {
    method: "GET",
    objectKey: row.objectKey,
    signedAt: now,
    expiresSeconds: expires - Math.floor(now / 1000),
  });
  return { url, expires_at };
}

/** The name of the space's own key that signs development download tokens (`signing_keys`). */
const LINK_KEY = "export_link";

/**
 * The development download route: a token this space signed for this export and still in time,
 * and the export completed; its file's R2 key. A tampered token and an expired one are `401`.
 */
export async function openDownload(
  sql: SqlStorage,
  exportId: string,
  token: string,
  space: string,
  now: number,
): Promise<{ objectKey: string }> {
  const checked = await checkDownloadToken(signingKey(sql, LINK_KEY), space, exportId, token, Math.floor(now / 1000));
  if (checked === "invalid") throw new Problem("unauthenticated", "the download link is not valid");
  if (checked === "expired")
    throw new Problem("unauthenticated", "the download link has expired; read the export again for a new one");
  const row = requireLiveExport(sql, exportId, now);
  if (row.state !== "completed") throw new Problem("not_found", "no such export");
  return { objectKey: row.objectKey };
}
