import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import { type UploadReservationInput, UploadReservationInputSchema } from "../../contract/media";
import { type BodyInput, parseJsonBody } from "../../http/body";
import { parseOrRefuse } from "../../http/issues";
import { type Outcome, outcomeOf, Problem } from "../../http/problem";
import type { IdempotencyRequest } from "../../idempotency";
import { type Caller, callerScope } from "../access";
import type { SpaceRequests } from "../requests";
import { arrivedInR2 } from "./arrivals";
import { expiredReservations, scheduleExpiry, settleExpired } from "./expiry";
import { mediaKey } from "./keys";
import { completeUpload, type MediaRecord, reservationForUpload, reserveMedia } from "./reservations";

/** The media routes of a space: reservations, and the development store's two steps (docs/api/media.md). */
export class MediaRequests {
  #space: SpaceRequests;

  constructor(space: SpaceRequests) {
    this.#space = space;
  }

  /**
   * `POST /v1/media/uploads`: the reservation, under its subject if it names one; the edge signs
   * where its bytes go. `storeReady`: whether this deployment has a store for the bytes (the edge
   * knows); without one the answer is `503`, once the caller is checked. With an `Idempotency-Key`
   * a retry gets the first reservation back instead of a second one.
   */
  reserveMedia(
    credential: PresentedCredential,
    body: BodyInput,
    { idempotency, storeReady }: { idempotency: IdempotencyRequest | null; storeReady: boolean },
  ): Promise<Outcome<MediaRecord>> {
    const space = this.#space;
    const input = () => {
      if (!storeReady) throw new Problem("unavailable", "media uploads are not configured", { "Retry-After": "60" });
      return parseOrRefuse(UploadReservationInputSchema, parseJsonBody(body));
    };
    const reserve = (caller: Caller, now: number, reservation: UploadReservationInput) => {
      const by = { reservedBy: callerScope(caller), sourceId: caller.source?.sourceId ?? null };
      const share = space.replica().quotas.get("media_bytes")?.share ?? null;
      const record = reserveMedia(space.sql, reservation, by, now, share);
      scheduleExpiry(space.sql, record);
      return record;
    };
    if (idempotency) return space.idempotent(credential, POLICIES.media, idempotency, reserve, input);
    return space.admitted(
      credential,
      POLICIES.media,
      (caller, now) => {
        const reservation = input();
        return space.db.transaction(() => reserve(caller, now, reservation));
      },
      "write",
    );
  }

  /**
   * Expired reservations (their timers fired): stored if R2 holds their bytes, else deleted
   * (`expiry.ts`). Bytes of a reservation forget erased go too: a presigned upload that raced the
   * erasure reached R2 after forget deleted its key. R2 failing stops nothing else of the alarm's
   * round: it is logged, and the held timers fire again.
   */
  async settleExpired(refs: readonly string[]): Promise<void> {
    const space = this.#space;
    try {
      const { waiting, erased } = expiredReservations(space.sql, refs);
      const arrived = new Set(await arrivedInR2(space.env.FILES, space.spaceName(), waiting));
      // Bytes R2 would not have taken for the reservation (another length or hash) go with it.
      const refused = [...waiting.filter((record) => !arrived.has(record.mediaRef)).map((record) => record.mediaRef), ...erased];
      if (refused.length > 0) await space.env.FILES.delete(refused.map((ref) => mediaKey(space.spaceName(), ref)));
      space.db.transaction(() => settleExpired(space.sql, refs, { arrived, refused }, space.now()));
    } catch (error) {
      const at = (error as Error).stack?.split("\n")[1]?.trim() ?? null;
      console.error(
        JSON.stringify({ message: "media settlement failed", reservations: refs.length, error: (error as Error).name, at }),
      );
    }
  }

  /** The development store, before it streams an upload into R2 (the edge checked its token): the reservation, if it takes one. */
  reservationForUpload(mediaRef: string): Promise<Outcome<MediaRecord>> {
    return outcomeOf(() => reservationForUpload(this.#space.sql, mediaRef, this.#space.now()));
  }

  /** The development store, once R2 holds the bytes: the reservation is stored; a second upload that raced the first is `409`. */
  uploadStored(mediaRef: string): Promise<Outcome<MediaRecord>> {
    return outcomeOf(() => completeUpload(this.#space.sql, mediaRef, this.#space.now()));
  }
}
