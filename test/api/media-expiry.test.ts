import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { StoredMediaSchema } from "../../src/contract/media";
import { EXPIRY_GRACE_MS } from "../../src/space/media/expiry";
import { mediaKey } from "../../src/space/media/keys";
import { UPLOAD_WINDOW_MS } from "../../src/space/media/reservations";
import type { SpaceObject } from "../../src/space/object";
import { query, spaceStub } from "../support/identity";
import { randomBytes, reserve, upload } from "../support/media";
import { later } from "../support/memory";
import { createSpace, json, type Space } from "../support/seed";

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
    expect(await expiryTimers(space)).toEqual([]);
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
