import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { StoredMediaSchema, UploadReservationSchema } from "../../src/contract/media";
import { routedRequest } from "../../src/edge/address";
import { app } from "../../src/edge/app";
import { importUploadKey, signUploadGrant } from "../../src/edge/media/upload-token";
import { deleteErasedMedia, eraseMedia } from "../../src/space/media/erasure";
import { EXPIRY_GRACE_MS, LATE_UPLOAD_MS } from "../../src/space/media/expiry";
import { mediaKey } from "../../src/space/media/keys";
import { UPLOAD_WINDOW_MS } from "../../src/space/media/reservations";
import type { SpaceObject } from "../../src/space/object";
import { createSource, expectProblem, lookup, lookupResponse, personToken, query, spaceStub } from "../support/identity";
import { randomBytes, reserve, reserveResponse, sha256Hex, storedObject, upload } from "../support/media";
import { later } from "../support/memory";
import { erasureOf, forget, forgotten, receiptResponse } from "../support/privacy";
import { batch, call, createKey, createSpace, json, message, OPERATOR_TOKEN, type Space } from "../support/seed";

const HOUR = 3_600_000;

interface MediaRow {
  status: string;
  profile_id: string | null;
  size_bytes: number;
  [column: string]: SqlStorageValue;
}

async function mediaRow(space: Space, mediaRef: string): Promise<MediaRow | undefined> {
  return (await query<MediaRow>(space, "SELECT * FROM media WHERE media_ref = ?", mediaRef))[0];
}

/** A stored upload of `bytes`. */
async function uploaded(space: Space, bytes: Uint8Array, extra: Record<string, unknown> = {}) {
  const reservation = await reserve(space, bytes, extra);
  StoredMediaSchema.parse(await json(await upload(reservation, bytes), 200));
  return reservation;
}

async function moveClock(space: Space, by: number) {
  await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
    instance.clock = { now: () => Date.now() + by };
  });
}

describe("POST /v1/media/uploads: the reservation", () => {
  it("answers media_ref, upload_url, upload_headers and expires_at in an hour, and keeps the reservation", async () => {
    const space = await createSpace();
    const bytes = randomBytes(1000);
    const before = Date.now();
    const reservation = await reserve(space, bytes);
    expect(reservation.upload_url).toBe(`http://service.test/spaces/${space.name}/v1/media/uploads/${reservation.media_ref}`);
    expect(Object.keys(reservation.upload_headers).sort()).toEqual(
      ["Content-Length", "Content-Type", "X-Upload-Token", "x-amz-checksum-sha256", "x-amz-content-sha256"].sort(),
    );
    expect(reservation.upload_headers["Content-Length"]).toBe("1000");
    expect(reservation.upload_headers["Content-Type"]).toBe("audio/ogg");
    expect(reservation.upload_headers["x-amz-content-sha256"]).toBe(reservation.sha256);
    const digest = Uint8Array.from(atob(reservation.upload_headers["x-amz-checksum-sha256"] ?? ""), (c) => c.charCodeAt(0));
    expect([...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("")).toBe(reservation.sha256);
    const expires = Date.parse(reservation.expires_at);
    expect(expires).toBeGreaterThan(before + HOUR - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + HOUR);
    expect(await mediaRow(space, reservation.media_ref)).toMatchObject({
      status: "reserved",
      size_bytes: 1000,
      profile_id: null,
    });
  });

  it("keeps a reservation with a subject under the subject's profile, created for a handle the space did not know", async () => {
    const space = await createSpace();
    const subject = { type: "email", value: "Media.Owner@Example.com" };
    const reservation = await reserve(space, randomBytes(10), { subject });
    const profile = await lookup(space, subject);
    expect((await mediaRow(space, reservation.media_ref))?.profile_id).toBe(profile.profile_id);
    // A known handle: the same profile.
    const again = await reserve(space, randomBytes(10), { subject: { type: "email", value: "media.owner@example.com" } });
    expect((await mediaRow(space, again.media_ref))?.profile_id).toBe(profile.profile_id);
  });

  it("takes 1 byte to 500 MB, a lower-case hex SHA-256, a media type, and refuses anything else naming the field", async () => {
    const space = await createSpace();
    const good = { content_type: "video/mp4", size_bytes: 500_000_000, sha256: "a".repeat(64) };
    UploadReservationSchema.parse(await json(await reserveResponse(space, good), 201));
    UploadReservationSchema.parse(await json(await reserveResponse(space, { ...good, size_bytes: 1 }), 201));
    const refused: [Record<string, unknown>, string][] = [
      [{ ...good, size_bytes: 0 }, "size_bytes"],
      [{ ...good, size_bytes: 500_000_001 }, "size_bytes"],
      [{ ...good, size_bytes: 1.5 }, "size_bytes"],
      [{ ...good, sha256: "A".repeat(64) }, "sha256"],
      [{ ...good, sha256: "a".repeat(63) }, "sha256"],
      [{ ...good, content_type: "video" }, "content_type"],
      [{ ...good, content_type: "video/mp4\r\nx-evil: 1" }, "content_type"],
      [{ ...good, content_type: 'text/plain; charset="utf-8"' }, "content_type"],
      [{ ...good, subject: { type: "phone_e164", value: "+1" } }, "subject.value"],
      [{ ...good, extra: 1 }, "body"],
      [{ content_type: "video/mp4", sha256: "a".repeat(64) }, "size_bytes"],
    ];
    for (const [body, field] of refused) {
      const problem = await expectProblem(await reserveResponse(space, body), 422, "invalid_input");
      expect(problem.detail, JSON.stringify(body)).toContain(`${field}: `);
    }
    expect(await query(space, "SELECT count(*) AS n FROM media")).toEqual([{ n: 2 }]);
  });

  it("needs scope track, or a person with integration", async () => {
    const space = await createSpace();
    const noTrack = await createKey(space.tenant.token, space.sourceId, ["context"]);
    const body = { content_type: "image/png", size_bytes: 5, sha256: "b".repeat(64) };
    await expectProblem(await reserveResponse(space, body, noTrack.key), 403, "scope_missing");
    await expectProblem(await reserveResponse(space, body, await personToken(space, ["review"])), 403, "forbidden");
    UploadReservationSchema.parse(await json(await reserveResponse(space, body, await personToken(space, ["integration"])), 201));
    await expectProblem(await reserveResponse(space, body, "cms_live_bogus"), 401, "unauthenticated");
  });

  it("refuses a reservation over the tenant's media quota with 429, and counts stored media in usage", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "media_bytes", limit: 1000, period: "month" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    await uploaded(space, randomBytes(600));
    const problem = await expectProblem(
      await reserveResponse(space, { content_type: "image/png", size_bytes: 500, sha256: "c".repeat(64) }),
      429,
      "rate_limited",
    );
    expect(problem.detail).toContain("media");
    const usage = await runInDurableObject(spaceStub(space), (instance: SpaceObject) => instance.usage());
    expect(usage.media_bytes.used).toBe(600);
  });

  it("counts reservations not yet uploaded against the quota, and answers Retry-After an hour", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "media_bytes", limit: 1000, period: "month" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    const reservation = (size: number, mark: string) => ({
      content_type: "image/png",
      size_bytes: size,
      sha256: mark.repeat(64),
    });
    UploadReservationSchema.parse(await json(await reserveResponse(space, reservation(600, "d")), 201));
    const response = await reserveResponse(space, reservation(500, "e"));
    await expectProblem(response, 429, "rate_limited");
    expect(response.headers.get("retry-after")).toBe("3600");
    UploadReservationSchema.parse(await json(await reserveResponse(space, reservation(400, "f")), 201));
  });
});

describe("POST /v1/media/uploads with an Idempotency-Key", () => {
  const reserveWithKey = (space: Space, body: unknown, key: string, token = space.key) =>
    call("POST", `/spaces/${space.name}/v1/media/uploads`, { token, body, headers: { "idempotency-key": key } });
  const body = (size: number, mark = "a") => ({ content_type: "image/png", size_bytes: size, sha256: mark.repeat(64) });

  it("answers a retry with the first reservation, counted once against the quota; another body is 409", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "media_bytes", limit: 1000, period: "month" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    const first = UploadReservationSchema.parse(await json(await reserveWithKey(space, body(600), "upload-1"), 201));
    // The retry of a request that timed out: the same reservation, where a second would pass the quota.
    const again = UploadReservationSchema.parse(await json(await reserveWithKey(space, body(600), "upload-1"), 201));
    expect(again).toEqual(first);
    expect(await query(space, "SELECT media_ref FROM media")).toEqual([{ media_ref: first.media_ref }]);
    await expectProblem(await reserveWithKey(space, body(600, "b"), "upload-1"), 409, "conflict");
    // Without a key, each request is a reservation of its own.
    await expectProblem(await reserveResponse(space, body(600)), 429, "rate_limited");
  });

  it("keeps the key per caller, checks it after the credential, and forgets the answer with the subject", async () => {
    const space = await createSpace();
    const integration = await personToken(space, ["integration"]);
    const mine = UploadReservationSchema.parse(await json(await reserveWithKey(space, body(10), "shared-key"), 201));
    const theirs = UploadReservationSchema.parse(
      await json(await reserveWithKey(space, body(10), "shared-key", integration), 201),
    );
    expect(theirs.media_ref).not.toBe(mine.media_ref);
    await expectProblem(await reserveWithKey(space, body(10), "x".repeat(257), "cms_live_bogus"), 401, "unauthenticated");
    const tooLong = await expectProblem(await reserveWithKey(space, body(10), "x".repeat(257)), 422, "invalid_input");
    expect(tooLong.detail).toContain("header.idempotency-key");
    const empty = await expectProblem(await reserveWithKey(space, body(10), ""), 422, "invalid_input");
    expect(empty.detail).toContain("header.idempotency-key: required");

    // A reservation under a subject: its kept answer names the subject's profile, and goes with it.
    const subject = { type: "phone_e164", value: "+15555550133" };
    const under = { ...body(20, "c"), subject };
    const kept = UploadReservationSchema.parse(await json(await reserveWithKey(space, under, "under-subject"), 201));
    await forgotten(space, await personToken(space, ["security"]), { handle: subject });
    const fresh = UploadReservationSchema.parse(await json(await reserveWithKey(space, under, "under-subject"), 201));
    expect(fresh.media_ref).not.toBe(kept.media_ref);
  });
});

describe("PUT upload_url (development store): exactly the reserved bytes, once", () => {
  it("streams the upload into R2 under spaces/<space>/media/<media_ref> with its type and SHA-256, and marks it stored", async () => {
    const space = await createSpace();
    const bytes = randomBytes(300_000);
    const reservation = await reserve(space, bytes);
    const stored = StoredMediaSchema.parse(await json(await upload(reservation, bytes), 200));
    expect(stored).toMatchObject({ media_ref: reservation.media_ref, size_bytes: bytes.byteLength, sha256: reservation.sha256 });
    const object = await env.FILES.get(mediaKey(space.name, reservation.media_ref));
    expect(object?.size).toBe(bytes.byteLength);
    expect(object?.httpMetadata?.contentType).toBe("audio/ogg");
    expect(await sha256Hex(new Uint8Array(await (object as R2ObjectBody).arrayBuffer()))).toBe(reservation.sha256);
    expect((await mediaRow(space, reservation.media_ref))?.status).toBe("stored");
  });

  it("refuses headers that are not those of the reservation, naming them, and stores nothing", async () => {
    const space = await createSpace();
    const bytes = randomBytes(64);
    const reservation = await reserve(space, bytes);
    const wrong: [Record<string, string | null>, string][] = [
      [{ "Content-Type": "audio/mpeg" }, "header.content-type: not_as_reserved"],
      [{ "x-amz-checksum-sha256": null }, "header.x-amz-checksum-sha256: required"],
      [{ "x-amz-content-sha256": "0".repeat(64) }, "header.x-amz-content-sha256: not_as_reserved"],
    ];
    for (const [headers, detail] of wrong) {
      const problem = await expectProblem(await upload(reservation, bytes, headers), 422, "invalid_input");
      expect(problem.detail).toContain(detail);
      expect(await storedObject(space, reservation.media_ref)).toBeNull();
    }
    expect((await mediaRow(space, reservation.media_ref))?.status).toBe("reserved");
    // The reservation still takes the right upload.
    StoredMediaSchema.parse(await json(await upload(reservation, bytes), 200));
  });

  it("refuses a body of another length, and bytes of another hash, leaving no object; the right bytes then go in", async () => {
    const space = await createSpace();
    const bytes = randomBytes(2048);
    const reservation = await reserve(space, bytes);
    const longer = await expectProblem(await upload(reservation, randomBytes(2049)), 422, "invalid_input");
    expect(longer.detail).toMatch(/content-length|length/);
    const shorter = await expectProblem(await upload(reservation, bytes.subarray(0, 100)), 422, "invalid_input");
    expect(shorter.detail).toMatch(/content-length|length/);
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    const other = randomBytes(2048);
    const problem = await expectProblem(await upload(reservation, other), 422, "invalid_input");
    expect(problem.detail).toBe("body: not_the_reserved_sha256");
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    expect((await mediaRow(space, reservation.media_ref))?.status).toBe("reserved");
    StoredMediaSchema.parse(await json(await upload(reservation, bytes), 200));
  });

  it("refuses a second upload to one reservation with 409, and keeps the first", async () => {
    const space = await createSpace();
    const bytes = randomBytes(512);
    const reservation = await uploaded(space, bytes);
    const first = await storedObject(space, reservation.media_ref);
    await expectProblem(await upload(reservation, bytes), 409, "conflict");
    expect((await storedObject(space, reservation.media_ref))?.uploaded.getTime()).toBe(first?.uploaded.getTime());
  });

  it("refuses an expired reservation, a token of another upload, a forged or missing token with 401, storing nothing", async () => {
    const space = await createSpace();
    const bytes = randomBytes(128);
    const reservation = await reserve(space, bytes);
    const other = await reserve(space, randomBytes(128));
    const key = await importUploadKey("test-upload-secret");
    const grant = {
      space: space.name,
      mediaRef: reservation.media_ref,
      contentType: "audio/ogg",
      sizeBytes: 128,
      sha256: reservation.sha256,
      expiresAt: Date.now() - 1,
    };
    // The good token with its signature's last character changed only in the bits base64 leaves unused.
    const good = reservation.upload_headers["X-Upload-Token"] ?? "";
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const unused = alphabet[alphabet.indexOf(good.slice(-1)) ^ 1] ?? "";
    const tokens = [
      `${good.slice(0, -1)}${unused}`,
      await signUploadGrant(key, grant),
      other.upload_headers["X-Upload-Token"] ?? "",
      await signUploadGrant(await importUploadKey("another secret"), { ...grant, expiresAt: Date.now() + HOUR }),
      `${reservation.upload_headers["X-Upload-Token"]}x`,
      "not.a.token",
    ];
    for (const token of tokens) {
      await expectProblem(await upload(reservation, bytes, { "X-Upload-Token": token }), 401, "unauthenticated");
    }
    await expectProblem(await upload(reservation, bytes, { "X-Upload-Token": null }), 401, "unauthenticated");
    // The token is good, but the space's clock says the reservation has expired.
    await moveClock(space, HOUR + 1000);
    const expired = await expectProblem(await upload(reservation, bytes), 401, "unauthenticated");
    expect(expired.detail).toContain("expired");
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
  });

  it("answers 404 for a reservation the space does not hold", async () => {
    const space = await createSpace();
    const bytes = randomBytes(16);
    const reservation = await reserve(space, bytes);
    await query(space, "DELETE FROM media WHERE media_ref = ?", reservation.media_ref);
    await expectProblem(await upload(reservation, bytes), 404, "not_found");
  });
});

describe("media routes in production", () => {
  it("answers 503 to a reservation without R2's settings and reserves nothing; the development store is 404", async () => {
    const space = await createSpace();
    // Every secret a production deployment needs, but not R2's account and bucket (variables).
    const production = { ...env, ENVIRONMENT: "production", R2_ACCESS_KEY_ID: "key-id", R2_SECRET_ACCESS_KEY: "secret" };
    const send = (path: string, init: RequestInit) =>
      app.fetch(routedRequest(new Request(`http://${space.name}.local.memory.localhost${path}`, init), production), production);
    const headers = { authorization: `Bearer ${space.key}`, "content-type": "application/json" };
    const reservation = JSON.stringify({ content_type: "image/png", size_bytes: 5, sha256: "a".repeat(64) });
    expect((await json(await send("/v1/media/uploads", { method: "POST", headers, body: reservation }), 503)).code).toBe(
      "unavailable",
    );
    // The caller is checked first: a key that is no key of the space is 401, one without `track` 403.
    const unknown = `${space.key.slice(0, -4)}${space.key.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    await expectProblem(
      await send("/v1/media/uploads", {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${unknown}` },
        body: reservation,
      }),
      401,
      "unauthenticated",
    );
    const noTrack = await createKey(space.tenant.token, space.sourceId, ["context"]);
    await expectProblem(
      await send("/v1/media/uploads", {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${noTrack.key}` },
        body: reservation,
      }),
      403,
      "scope_missing",
    );
    expect(await query(space, "SELECT media_ref FROM media")).toEqual([]);
    // Other routes work: only what needs R2 is out.
    expect((await send("/v1/whoami", { headers })).status).toBe(200);

    // The development store's address (what a development reservation answers) is no route there.
    const stored = await reserve(space, randomBytes(5));
    expect(stored.upload_url.endsWith(`/v1/media/uploads/${stored.media_ref}`)).toBe(true);
    const put = await send(`/v1/media/uploads/${stored.media_ref}`, {
      method: "PUT",
      headers: stored.upload_headers,
      body: randomBytes(5),
    });
    expect((await json(put, 404)).code).toBe("not_found");
  });
});

describe("POST /v1/batch: events that point to media", () => {
  it("accepts an event naming a stored upload with its SHA-256, and notes the reference by profile", async () => {
    const space = await createSpace();
    const bytes = randomBytes(256);
    const reservation = await uploaded(space, bytes);
    const item = message({
      content: { type: "audio", media_ref: reservation.media_ref, media_sha256: reservation.sha256 },
    });
    expect(await json(await batch(space, [item]), 200)).toEqual({ accepted: 1, duplicates: 0, errors: [] });
    const references = await query<{ media_ref: string; profile_id: string }>(space, "SELECT * FROM media_references");
    const [stored] = await query<{ profile_id: string }>(space, "SELECT profile_id FROM items");
    expect(references).toEqual([expect.objectContaining({ media_ref: reservation.media_ref, profile_id: stored?.profile_id })]);
    // Sent again: a duplicate, not an error.
    expect(await json(await batch(space, [item]), 200)).toEqual({ accepted: 0, duplicates: 1, errors: [] });
  });

  it("rejects, item by item, a mismatched hash, an upload not made, an unknown reference and one of another space", async () => {
    const space = await createSpace();
    const elsewhere = await createSpace();
    const stored = await uploaded(space, randomBytes(100));
    const waiting = await reserve(space, randomBytes(100));
    const foreign = await uploaded(elsewhere, randomBytes(100));
    const media = (ref: string, sha: string) => message({ content: { type: "image", media_ref: ref, media_sha256: sha } });
    const items = [
      media(stored.media_ref, stored.sha256),
      media(stored.media_ref, "0".repeat(64)),
      media(waiting.media_ref, waiting.sha256),
      media("no-such-media", "1".repeat(64)),
      media(foreign.media_ref, foreign.sha256),
      message({ content: { type: "image", media_ref: stored.media_ref } }),
      message(),
    ];
    const answer = await json<{ accepted: number; errors: { index: number; code: string; detail: string }[] }>(
      await batch(space, items),
      207,
    );
    expect(answer.accepted).toBe(2);
    expect(answer.errors).toEqual([
      { index: 1, code: "invalid_input", detail: "content.media_sha256: not_the_uploaded_hash" },
      { index: 2, code: "invalid_input", detail: "content.media_ref: not_uploaded" },
      { index: 3, code: "not_found", detail: "content.media_ref: no_such_media" },
      { index: 4, code: "not_found", detail: "content.media_ref: no_such_media" },
      { index: 5, code: "invalid_input", detail: expect.stringContaining("media_ref_and_media_sha256_go_together") },
    ]);
  });

  it("holds content.media_ref to the rule of every media_ref (1 to 128 characters), naming the field", async () => {
    const space = await createSpace();
    const media = (ref: string) => message({ content: { type: "file", media_ref: ref, media_sha256: "2".repeat(64) } });
    const answer = await json<{ errors: { index: number; code: string; detail: string }[] }>(
      await batch(space, [media("r".repeat(128)), media("r".repeat(129))]),
      207,
    );
    expect(answer.errors).toEqual([
      { index: 0, code: "not_found", detail: "content.media_ref: no_such_media" },
      { index: 1, code: "invalid_input", detail: expect.stringContaining("content.media_ref: too_big") },
    ]);
  });

  it("finds bytes a presigned upload put in R2 without the Worker: the reservation becomes stored at the first event", async () => {
    const space = await createSpace();
    const bytes = randomBytes(4096);
    const reservation = await reserve(space, bytes);
    const item = () => message({ content: { type: "file", media_ref: reservation.media_ref, media_sha256: reservation.sha256 } });
    expect((await json<{ errors: unknown[] }>(await batch(space, [item()]), 207)).errors).toHaveLength(1);
    // What R2 does with a presigned PUT: the object, checked against the signed SHA-256.
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), bytes, { sha256: reservation.sha256 });
    expect(await json(await batch(space, [item()]), 200)).toMatchObject({ accepted: 1 });
    expect((await mediaRow(space, reservation.media_ref))?.status).toBe("stored");
  });

  it("does not take bytes of another length in R2 for a reservation", async () => {
    const space = await createSpace();
    const bytes = randomBytes(100);
    const reservation = await reserve(space, bytes);
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), randomBytes(99));
    const item = message({ content: { type: "file", media_ref: reservation.media_ref, media_sha256: reservation.sha256 } });
    const answer = await json<{ errors: { detail: string }[] }>(await batch(space, [item]), 207);
    expect(answer.errors[0]?.detail).toBe("content.media_ref: not_uploaded");
  });

  it("lets a second source's events point to media another source of the space uploaded", async () => {
    const space = await createSpace();
    const reservation = await uploaded(space, randomBytes(10));
    const second = await createSource(space, ["track"]);
    const item = message({ content: { type: "file", media_ref: reservation.media_ref, media_sha256: reservation.sha256 } });
    expect(await json(await batch(space, [item], second.key), 200)).toMatchObject({ accepted: 1 });
  });
});

describe("POST /v1/forget reaches media", () => {
  it("deletes from R2 the files under the subject and those its events point to, counts them in the receipt, and keeps the others'", async () => {
    const space = await createSpace();
    const subject = { type: "phone_e164", value: "+15555550131" };
    const other = { type: "phone_e164", value: "+15555550132" };
    const under = await uploaded(space, randomBytes(30), { subject });
    const pointedTo = await uploaded(space, randomBytes(31));
    const theirs = await uploaded(space, randomBytes(32));
    const pointing = (handle: typeof subject, media: { media_ref: string; sha256: string }) =>
      message({ handles: [handle], content: { type: "audio", media_ref: media.media_ref, media_sha256: media.sha256 } });
    expect(await json(await batch(space, [pointing(subject, pointedTo), pointing(other, theirs)]), 200)).toMatchObject({
      accepted: 2,
    });
    const receipt = await forgotten(space, await personToken(space, ["security"]), { handle: subject });
    expect(receipt.counts.media).toBe(2);
    const listed = await env.FILES.list({ prefix: `spaces/${space.name}/media/` });
    expect(listed.objects.map((object) => object.key)).toEqual([mediaKey(space.name, theirs.media_ref)]);
    expect(await query(space, "SELECT media_ref, status FROM media")).toEqual([
      { media_ref: theirs.media_ref, status: "stored" },
    ]);
    for (const gone of [under, pointedTo]) {
      const item = pointing(other, gone);
      const answer = await json<{ errors: { code: string }[] }>(await batch(space, [item]), 207);
      expect(answer.errors[0]?.code).toBe("not_found");
    }
  });
});

describe("POST /v1/forget reaches media: uploads that race it, R2 that fails it", () => {
  it("deletes the bytes of a presigned upload that reached R2 after the erasure, once the reservation's window is over, and later", async () => {
    const space = await createSpace();
    const subject = { type: "phone_e164", value: "+15555550141" };
    const bytes = randomBytes(64);
    const reservation = await reserve(space, bytes, { subject });
    const receipt = await forgotten(space, await personToken(space, ["security"]), { handle: subject });
    expect(receipt.counts.media).toBe(1);
    // What R2 does with a presigned PUT already on its way: the object, checked against the signed SHA-256.
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), bytes, { sha256: reservation.sha256 });
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + 1_000);
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    expect(await query(space, "SELECT media_ref FROM media")).toEqual([]);
    // An upload slower than the grace: its bytes land later still, and go at the last look.
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), bytes, { sha256: reservation.sha256 });
    await later(space, LATE_UPLOAD_MS);
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'media.expiry'")).toEqual([]);
  });

  it("answers 202 running while R2 refuses the deletes, and the signing timer deletes the files and signs once R2 answers", async () => {
    const space = await createSpace();
    const subject = { type: "phone_e164", value: "+15555550142" };
    const file = await uploaded(space, randomBytes(48), { subject });
    // The object's R2 binding (the test's, in this pool) refuses every delete until restored.
    const refusing = await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
      const bucket = (instance as unknown as { env: { FILES: R2Bucket } }).env.FILES;
      return vi.spyOn(bucket, "delete").mockRejectedValue(new Error("R2 unavailable"));
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const token = await personToken(space, ["security"]);
    let receiptId = "";
    try {
      const erasure = await forget(space, token, { handle: subject });
      if (erasure.status !== 202) throw new Error("the erasure was signed although R2 kept the file");
      receiptId = erasure.receiptId;
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("receipt signing failed"));
      expect(logged.mock.calls.flat().join(" ")).not.toContain(subject.value);
      expect(await storedObject(space, file.media_ref)).not.toBeNull();
      // Reads of the subject are already 404, whatever R2 does.
      await expectProblem(await lookupResponse(space, subject), 404, "not_found");
      await later(space, 11_000);
      expect((await erasureOf(await receiptResponse(space, token, receiptId))).status).toBe(202);
    } finally {
      refusing.mockRestore();
      logged.mockRestore();
    }
    await later(space, 11_000);
    const done = await erasureOf(await receiptResponse(space, token, receiptId));
    expect(done.status).toBe(200);
    if (done.status === 200) expect(done.receipt.counts.media).toBe(1);
    expect(await storedObject(space, file.media_ref)).toBeNull();
    expect(await query(space, "SELECT media_ref FROM media")).toEqual([]);
  });
});

describe("forget's part of media (src/space/media/erasure.ts)", () => {
  it("erases the files reserved under the subject's profiles or pointed to by their events, in R2 too, and no other", async () => {
    const space = await createSpace();
    const subject = { type: "phone_e164", value: "+15555550123" };
    const other = { type: "phone_e164", value: "+15555550124" };
    const underSubject = await uploaded(space, randomBytes(50), { subject });
    const pointedTo = await uploaded(space, randomBytes(60));
    const notUploaded = await reserve(space, randomBytes(70), { subject });
    const theirs = await uploaded(space, randomBytes(80), { subject: other });
    const unrelated = await uploaded(space, randomBytes(90));
    const pointing = (handle: typeof subject, media: { media_ref: string; sha256: string }) =>
      message({ handles: [handle], content: { type: "file", media_ref: media.media_ref, media_sha256: media.sha256 } });
    expect(await json(await batch(space, [pointing(subject, pointedTo), pointing(other, theirs)]), 200)).toMatchObject({
      accepted: 2,
    });
    const { profile_id: profileId } = await lookup(space, subject);
    const erased = await runInDurableObject(spaceStub(space), async (_instance: SpaceObject, state) => {
      const sql = state.storage.sql;
      const count = eraseMedia(sql, [profileId]);
      return { count, deleted: await deleteErasedMedia(sql, env.FILES, space.name) };
    });
    expect(erased).toEqual({ count: 3, deleted: 3 });
    for (const gone of [underSubject, pointedTo, notUploaded]) {
      expect(await storedObject(space, gone.media_ref)).toBeNull();
      expect(await mediaRow(space, gone.media_ref)).toBeUndefined();
    }
    for (const kept of [theirs, unrelated]) {
      expect(await storedObject(space, kept.media_ref)).not.toBeNull();
      expect((await mediaRow(space, kept.media_ref))?.status).toBe("stored");
    }
    // Every object left under the space's media prefix is one of the files kept.
    const listed = await env.FILES.list({ prefix: `spaces/${space.name}/media/` });
    expect(listed.objects.map((object) => object.key).sort()).toEqual(
      [theirs, unrelated].map((media) => mediaKey(space.name, media.media_ref)).sort(),
    );
    expect(await query(space, "SELECT media_ref FROM media_references")).toEqual([{ media_ref: theirs.media_ref }]);
    // An event pointing to an erased file: as if it never existed.
    const answer = await json<{ errors: { code: string }[] }>(await batch(space, [pointing(other, pointedTo)]), 207);
    expect(answer.errors[0]?.code).toBe("not_found");
  });

  it("an erased reservation takes no upload, and a file marked erased is not counted as held", async () => {
    const space = await createSpace();
    const subject = { type: "email", value: "erased.upload@example.com" };
    const bytes = randomBytes(40);
    const reservation = await reserve(space, bytes, { subject });
    const { profile_id: profileId } = await lookup(space, subject);
    await runInDurableObject(spaceStub(space), (_instance: SpaceObject, state) => eraseMedia(state.storage.sql, [profileId]));
    await expectProblem(await upload(reservation, bytes), 404, "not_found");
    expect(await storedObject(space, reservation.media_ref)).toBeNull();
    const usage = await runInDurableObject(spaceStub(space), (instance: SpaceObject) => instance.usage());
    expect(usage.media_bytes.used).toBe(0);
  });
});
