import { env, SELF } from "cloudflare:test";
import { type UploadReservation, UploadReservationSchema } from "../../src/contract/media";
import { mediaKey } from "../../src/space/media/keys";
import { call, json, type Space } from "./seed";

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** `size` bytes that differ from run to run. */
export function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += 65_536) crypto.getRandomValues(bytes.subarray(at, Math.min(size, at + 65_536)));
  return bytes;
}

export function reserveResponse(space: Space, body: unknown, token = space.key): Promise<Response> {
  return call("POST", `/spaces/${space.name}/v1/media/uploads`, { token, body });
}

/** A reservation of exactly these bytes (and their hash), parsed with the route's answer schema. */
export async function reserve(
  space: Space,
  bytes: Uint8Array,
  extra: Record<string, unknown> = {},
  token = space.key,
): Promise<UploadReservation & { sha256: string }> {
  const sha256 = await sha256Hex(bytes);
  const body = { content_type: "audio/ogg", size_bytes: bytes.byteLength, sha256, ...extra };
  const answer = UploadReservationSchema.parse(await json(await reserveResponse(space, body, token), 201));
  return { ...answer, sha256 };
}

/** The `PUT` of a reservation's procedure: its URL, its headers (changed by `headers`: null drops one), these bytes. */
export function upload(
  reservation: UploadReservation,
  bytes: BodyInit,
  headers: Record<string, string | null> = {},
): Promise<Response> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...reservation.upload_headers, ...headers })) {
    if (value !== null) sent[name] = value;
  }
  return SELF.fetch(reservation.upload_url, { method: "PUT", headers: sent, body: bytes });
}

/** The object R2 holds for a reservation, if any. */
export function storedObject(space: Space, mediaRef: string) {
  return env.FILES.head(mediaKey(space.name, mediaRef));
}
