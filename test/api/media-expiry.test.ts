import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { StoredMediaSchema, UploadReservationSchema } from "../../src/contract/media";
import { EXPORT_TTL_MS } from "../../src/space/exports/expiry";
import { EXPIRY_GRACE_MS, LATE_UPLOAD_MS } from "../../src/space/media/expiry";
import { mediaKey } from "../../src/space/media/keys";
import { UPLOAD_WINDOW_MS } from "../../src/space/media/reservations";
import type { SpaceObject } from "../../src/space/object";
import { expectNoPersonalData, expectProblem, notePersonalData, personToken, phone, query, spaceStub } from "../support/identity";
import { randomBytes, reserve, reserveResponse, upload } from "../support/media";
import { later, moveClock } from "../support/memory";
import { batch, call, createSpace, json, message, OPERATOR_TOKEN, type Space } from "../support/seed";

const mediaRows = (space: Space, mediaRef: string) =>
  query<{ status: string }>(space, "SELECT status FROM media WHERE media_ref = ?", mediaRef);
const expiryTimers = (space: Space) => query(space, "SELECT key FROM timers WHERE kind = 'media.expiry'");
const usedBytes = async (space: Space) =>
  (await runInDurableObject(spaceStub(space), (instance: SpaceObject) => instance.usage())).media_bytes.used;

describe("expired media reservations (src/space/media/expiry.ts)", () => {
  it("deletes a reservation never uploaded once its window and the grace are over, not before", async () => {
    const space = await createSpace();
    const reservation = await reserve(space, randomBytes(100));
    expect(await expiryTimers(space)).toHaveLength(1);
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS - 60_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([{ status: "reserved" }]);
    await later(space, 120_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([]);
    // One more look is due, for bytes an upload slower than the grace may still bring.
    expect(await expiryTimers(space)).toHaveLength(1);
    await later(space, LATE_UPLOAD_MS);
    expect(await expiryTimers(space)).toEqual([]);
  });

  it("counts a reservation against the quota until it is settled, past its expires_at too (an upload may still land)", async () => {
    const space = await createSpace();
    const quota = { tenant_id: space.tenant.tenantId, metric: "media_bytes", limit: 1000, period: "month" };
    await json(await call("PUT", "/control/v1/quotas", { operator: OPERATOR_TOKEN, body: quota }), 200);
    await reserve(space, randomBytes(600));
    await moveClock(space, UPLOAD_WINDOW_MS + 60_000);
    await expectProblem(
      await reserveResponse(space, { content_type: "image/png", size_bytes: 500, sha256: "d".repeat(64) }),
      429,
      "rate_limited",
    );
    // Settled without bytes: it counts no more.
    await later(space, EXPIRY_GRACE_MS);
    UploadReservationSchema.parse(
      await json(await reserveResponse(space, { content_type: "image/png", size_bytes: 500, sha256: "d".repeat(64) }), 201),
    );
  });

  it("deletes the bytes of an upload slower than the grace, which land after the reservation went, at a last look", async () => {
    const space = await createSpace();
    const bytes = randomBytes(100);
    const reservation = await reserve(space, bytes);
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + 1_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([]);
    // What R2 does with a presigned PUT that started in time and ends now.
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), bytes, { sha256: reservation.sha256 });
    await later(space, LATE_UPLOAD_MS);
    expect(await env.FILES.head(mediaKey(space.name, reservation.media_ref))).toBeNull();
    expect(await expiryTimers(space)).toEqual([]);
  });

  it("goes on with the alarm's other work when R2 fails the settlement, logs it without personal data, and settles later", async () => {
    const space = await createSpace();
    const subject = "+15555550153";
    notePersonalData(subject);
    await json(await batch(space, [message({ handles: [phone(subject)] })]), 200);
    const security = await personToken(space, ["security"]);
    const exported = await json<{ export_id: string }>(
      await call("POST", `/spaces/${space.name}/v1/exports`, { token: security, body: { handle: phone(subject) } }),
      201,
    );
    const reservation = await reserve(space, randomBytes(100), { subject: phone(subject) });
    // The object's R2 binding fails every read until restored: the settlement cannot look.
    const failing = await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
      const bucket = (instance as unknown as { env: { FILES: R2Bucket } }).env.FILES;
      return vi.spyOn(bucket, "head").mockRejectedValue(new Error("R2 unavailable"));
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      // Both due in one round: the export's expiry after the media settlement.
      await later(space, EXPORT_TTL_MS + 1_000);
      expect(await query(space, "SELECT export_id FROM exports WHERE export_id = ?", exported.export_id)).toEqual([]);
      expect(await mediaRows(space, reservation.media_ref)).toEqual([{ status: "reserved" }]);
      const failures = logged.mock.calls.map(([line]) => String(line)).filter((line) => line.includes("media settlement failed"));
      expect(failures.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({ message: "media settlement failed", error: "Error", at: expect.any(String) }),
      );
      expectNoPersonalData(failures.join(" "));
    } finally {
      failing.mockRestore();
      logged.mockRestore();
    }
    // The look is tried again once its hold is over.
    await later(space, 5 * 60_000 + 1_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([]);
  });

  it("keeps as stored, and counts against the quota, bytes a presigned upload put in R2 that no event points to", async () => {
    const space = await createSpace();
    const bytes = randomBytes(700);
    const reservation = await reserve(space, bytes);
    // What R2 does with a presigned PUT: the object, checked against the signed SHA-256.
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), bytes, { sha256: reservation.sha256 });
    expect(await usedBytes(space)).toBe(0);
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + 1_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([{ status: "stored" }]);
    expect(await usedBytes(space)).toBe(700);
    expect(await expiryTimers(space)).toEqual([]);
  });

  it("does not take bytes of another length in R2: the reservation goes, and the object with it", async () => {
    const space = await createSpace();
    const reservation = await reserve(space, randomBytes(100));
    await env.FILES.put(mediaKey(space.name, reservation.media_ref), randomBytes(99));
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + 1_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([]);
    expect(await env.FILES.head(mediaKey(space.name, reservation.media_ref))).toBeNull();
  });

  it("leaves a stored upload as it is", async () => {
    const space = await createSpace();
    const bytes = randomBytes(300);
    const reservation = await reserve(space, bytes);
    StoredMediaSchema.parse(await json(await upload(reservation, bytes), 200));
    await later(space, UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + 1_000);
    expect(await mediaRows(space, reservation.media_ref)).toEqual([{ status: "stored" }]);
    expect(await usedBytes(space)).toBe(300);
    expect(await expiryTimers(space)).toEqual([]);
  });
});
