import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { IdempotencyKeyHeaderSchema } from "../../contract/common";
import {
  MediaRefParamsSchema,
  type StoredMedia,
  StoredMediaSchema,
  type UploadReservation,
  UploadReservationInputSchema,
  UploadReservationSchema,
} from "../../contract/media";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { outcomeOf, Problem, unwrap } from "../../http/problem";
import { isDevelopment } from "../../secrets";
import { spaceObject } from "../../space/address";
import { mediaKey } from "../../space/media/keys";
import type { MediaRecord } from "../../space/media/reservations";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { idempotencyOf } from "../idempotency";
import { checkUploadHeaders, grantOf, putUpload } from "../media/development-store";
import { developmentStoreKey, uploadStore, uploadTarget } from "../media/upload-target";
import { dataRequest, spaceOf } from "./space";

const RESERVATION_BODY_LIMIT = 16 * 1024;

const reserveRoute = createRoute({
  method: "post",
  path: "/v1/media/uploads",
  summary: "Reserve a media upload",
  description:
    "Large bytes never pass through a batch. Reserve (`content_type`, `size_bytes` up to 500 MB, `sha256`, optionally the `subject` the file is about), `PUT` the bytes to `upload_url` with exactly `upload_headers` before `expires_at` (one hour), then send an event with `content.media_ref` and `content.media_sha256`. The store refuses other bytes, another length, other headers, a second upload and an expired reservation. Send an `Idempotency-Key` to retry safely. A `subject` being erased is `404`. Source key with scope `track`, or a person with role `integration`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: {
    headers: z.object({
      "idempotency-key": IdempotencyKeyHeaderSchema.optional().openapi({
        description:
          "Optional: 1 to 256 visible ASCII characters, spaces allowed between them. Kept 24 hours per caller (source key or person) with the hash of the request: a retry with the same key returns the first reservation (the same `media_ref`, counted once against the media quota); the same key with another request is `409 conflict`; without it each request is a new reservation.",
      }),
    }),
    body: { content: { "application/json": { schema: UploadReservationInputSchema } }, required: true },
  },
  responses: {
    201: { description: "The reservation.", content: { "application/json": { schema: UploadReservationSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

const uploadRoute = createRoute({
  method: "put",
  path: "/v1/media/uploads/{media_ref}",
  summary: "Upload a reserved file (development store)",
  description:
    "Under `npm run dev` and in tests, where local R2 has no S3 API, the `upload_url` of a reservation is this route, which holds an upload to R2's rules: every header of `upload_headers` with exactly its value (`X-Upload-Token`, signed and expiring with the reservation, authorizes it; never the source key), exactly `size_bytes` bytes hashing to `sha256`. The body is streamed into R2, never held. A refused upload stores nothing; a reservation takes one upload. In production `upload_url` is a presigned URL of R2 itself, and this route is `404`.",
  security: [{ uploadToken: [] }],
  request: {
    params: MediaRefParamsSchema,
    body: {
      description: "The bytes, exactly `size_bytes` of them, with the reserved `Content-Type`.",
      content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } },
      required: true,
    },
  },
  responses: {
    200: { description: "The file, stored.", content: { "application/json": { schema: StoredMediaSchema } } },
    ...problems(401, 404, 409, 422, 500, 503),
  },
});

export const mediaRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(mediaRoutes, reserveRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, RESERVATION_BODY_LIMIT);
  // Optional on this route; one sent is checked by the space's object, an empty one too.
  const key = c.req.header("idempotency-key");
  const idempotency = key === undefined ? null : await idempotencyOf(c, key, body.status === "ok" ? body.text : "");
  // Production without R2's settings reserves nothing nobody could upload to: `503`, after the caller is checked.
  const store = await outcomeOf(() => uploadStore(c.env, c.get("secrets").uploadKey));
  const record = unwrap(await space.reserveMedia(credential, body, { idempotency, storeReady: store.ok }));
  const target = await uploadTarget(unwrap(store), spaceOf(c), record, { url: new URL(c.req.url), env: c.env });
  const answer: UploadReservation = { media_ref: record.mediaRef, ...target, expires_at: iso(record.expiresAt) };
  return c.json(answer, 201);
});

documentedRoute(mediaRoutes, uploadRoute, async (c) => {
  if (!isDevelopment(c.env)) throw new Problem("not_found", "no such route: uploads go to R2's presigned URL");
  const name = spaceOf(c);
  const mediaRef = c.req.param("media_ref") ?? "";
  const headers = c.req.raw.headers;
  const grant = await grantOf(headers, developmentStoreKey(c.get("secrets").uploadKey), { space: name, mediaRef }, Date.now());
  checkUploadHeaders(headers, grant);
  const space = spaceObject(c.env, name);
  unwrap(await space.reservationForUpload(mediaRef));
  const key = mediaKey(name, mediaRef);
  await putUpload(c.env.FILES, key, c.req.raw.body, grant);
  const stored = await space.uploadStored(mediaRef);
  // Forget erased the reservation while its bytes came in: they go too.
  if (!stored.ok && stored.problem.code === "not_found") await c.env.FILES.delete(key);
  return c.json(storedMedia(unwrap(stored)), 200);
});

function storedMedia(record: MediaRecord): StoredMedia {
  return {
    media_ref: record.mediaRef,
    size_bytes: record.sizeBytes,
    sha256: record.sha256,
    stored_at: iso(record.storedAt ?? record.reservedAt),
  };
}

const iso = (at: number) => new Date(at).toISOString();
