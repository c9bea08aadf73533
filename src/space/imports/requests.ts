import type { PresentedCredential } from "../../auth/credential";
import { POLICIES } from "../../auth/policy";
import type { ImportStatus } from "../../contract/imports";
import { type Outcome, outcomeOf, Problem } from "../../http/problem";
import { importMessage } from "../../queues/messages";
import type { Caller } from "../access";
import { mediaCheckOf } from "../media/batch-media";
import { MediaCheck } from "../media/references";
import type { SpaceRequests } from "../requests";
import { CHUNK_RECORDS, type ImportChunk, ingestChunk } from "./chunks";
import { importerOf, KEY_GONE } from "./importer";
import { importKey } from "./keys";
import {
  dropReceiving,
  endImport,
  fileReceived,
  type ImportPlan,
  type ImportRow,
  importUpload,
  planOf,
  receiveFile,
  requireImport,
  stallImport,
  startReading,
  statusOf,
} from "./records";
import { checkedBodyImport, checkedUploadImport, type ImportRequest } from "./request";
import { uploadToImport } from "./uploads";
import {
  RECEIVE_WINDOW_MS,
  STALLED,
  sendFailed,
  unwatchImport,
  watchAgain,
  watchEnded,
  watchImport,
  watchVerdict,
} from "./watch";

/** An import waiting for its file: where the edge streams it. */
export interface ReceivingImport {
  importId: string;
  objectKey: string;
}

/**
 * The file import routes of a space and the queue reader's calls (docs/api/imports.md): the edge
 * and the reader hold the bytes, the space holds the import's state and stores its records.
 */
export class ImportRequests {
  #space: SpaceRequests;
  /** Tells the compiler's pacing that events were written (as a batch does). */
  #wrote: () => void;

  constructor(space: SpaceRequests, wrote: () => void) {
    this.#space = space;
    this.#wrote = wrote;
  }

  /**
   * `POST /v1/ingest/files` with the file as its body: admitted, then the request's form checked,
   * then an import that waits for the edge to stream the file to R2.
   */
  receiveImport(credential: PresentedCredential, request: ImportRequest): Promise<Outcome<ReceivingImport>> {
    const space = this.#space;
    return space.admitted(
      credential,
      POLICIES.importFile,
      (caller, now) => {
        const format = checkedBodyImport(request);
        const row = space.db.transaction(() => {
          const received = receiveFile(space.sql, space.spaceName(), format, keyIdOf(caller), now);
          watchImport(space.sql, received.import_id, "receiving", now);
          return received;
        });
        return { importId: row.import_id, objectKey: row.object_key };
      },
      "events",
    );
  }

  /**
   * The edge stored the file whole: queued, and its message sent; or it never arrived whole (null).
   * A file that took longer than `RECEIVE_WINDOW_MS` arrives after its watch dropped the import:
   * what R2 stored of it is deleted, and the request is refused (no `import_id` that answers `404`).
   */
  async importReceived(importId: string, file: { sha256: string; sizeBytes: number } | null): Promise<Outcome<null>> {
    const space = this.#space;
    return outcomeOf(async () => {
      const queued = space.db.transaction(() => {
        if (file === null) {
          dropReceiving(space.sql, importId);
          unwatchImport(space.sql, importId);
          return false;
        }
        if (!fileReceived(space.sql, importId, file)) return false;
        watchImport(space.sql, importId, "queued", space.now());
        return true;
      });
      await space.armAlarm();
      if (queued) {
        await this.#send(importId);
      } else if (file !== null) {
        await space.env.FILES.delete(importKey(space.spaceName(), importId));
        throw new Problem("invalid_input", TOO_SLOW);
      }
      return null;
    });
  }

  /**
   * Sends a queued import's message. The import is committed before: a send that fails is not the
   * caller's error, so the request is answered as queued, and the watch sends the message again
   * after `SEND_RETRY_MS` (not after `STALL_MS`).
   */
  async #send(importId: string): Promise<void> {
    const space = this.#space;
    try {
      await space.env.IMPORTS.send(importMessage(space.spaceName(), importId));
    } catch {
      sendFailed(space.sql, importId, space.now());
      await space.armAlarm();
    }
  }

  /** `POST /v1/ingest/files?media_ref=`: a stored upload, queued for import. */
  async importUpload(credential: PresentedCredential, request: ImportRequest, mediaRef: string): Promise<Outcome<string>> {
    const space = this.#space;
    const created = await space.admitted(
      credential,
      POLICIES.importFile,
      async (caller, now) => {
        const format = checkedUploadImport(request);
        const file = await uploadToImport(space.sql, space.env.FILES, space.spaceName(), { mediaRef, format }, space.now);
        return space.db.transaction(() => {
          const importId = importUpload(space.sql, file, format, keyIdOf(caller), now).import_id;
          watchImport(space.sql, importId, "queued", now);
          return importId;
        });
      },
      "events",
    );
    if (created.ok) await this.#send(created.value);
    return created;
  }

  /** `GET /v1/ingest/files/{import_id}`. */
  readImport(credential: PresentedCredential, importId: string): Promise<Outcome<ImportStatus>> {
    const sql = this.#space.sql;
    return this.#space.admitted(credential, POLICIES.importRead, () => statusOf(sql, requireImport(sql, importId)));
  }

  /** The reader takes an import (`src/queues/imports.ts`): where its reading stands, or null when there is nothing to read. */
  startImport(importId: string): Promise<Outcome<ImportPlan | null>> {
    const space = this.#space;
    return outcomeOf(async () => {
      const now = space.now();
      const row = startReading(space.sql, importId, now);
      if (!row) return null;
      if (importerOf(space.replica(), row.key_id, now)) return planOf(row);
      await this.#ended(() => endImport(space.sql, importId, { at: row.offset_byte, failure: KEY_GONE }, now));
      return null;
    });
  }

  /** A chunk of an import's file, stored as a batch is, with the import's offset (`chunks.ts`); other requests go between its slices. */
  importChunk(importId: string, chunk: ImportChunk): Promise<Outcome<{ stale: boolean }>> {
    const space = this.#space;
    return outcomeOf(async () => {
      const now = space.now();
      const row = requireImport(space.sql, importId);
      const caller = importerOf(space.replica(), row.key_id, now);
      if (!caller) {
        await this.#ended(() => endImport(space.sql, importId, { at: row.offset_byte, failure: KEY_GONE }, now));
        return { stale: true };
      }
      const texts = chunk.records.flatMap((record) => ("text" in record ? [record.text] : []));
      const media = texts.some((text) => text.includes('"media_ref"'))
        ? await mediaCheckOf(space.sql, space.env.FILES, space.spaceName(), { items: texts.map(parsedOrNull) }, () => now)
        : MediaCheck.none;
      const context = { intake: space.intake, caller, importId, now, config: space.replica().config.values, media };
      const slices = ingestChunk(context, chunk, Math.min(CHUNK_RECORDS, space.requestPacing.chunkItems(performance.now())));
      for (let step = slices.next(); ; step = slices.next()) {
        if (step.done) {
          this.#wrote();
          space.limits.eventsAccepted(step.value.accepted, now);
          await space.armAlarm();
          return { stale: step.value.stale };
        }
        // Committed: the next read sees these events in `live`.
        space.hot.apply(step.value);
        await scheduler.wait(0);
      }
    });
  }

  /** The reader reached the file's end at byte `at` (completed), or stops with a `failure`; the import's own file leaves R2. */
  endImport(importId: string, end: { at: number; failure: string | null }): Promise<Outcome<null>> {
    const space = this.#space;
    return outcomeOf(async () => {
      await this.#ended(() => endImport(space.sql, importId, end, space.now()));
      return null;
    });
  }

  /**
   * Every way an import ends goes through here (completed, failed for its file, its key, its
   * reader giving up, `stalled`): `end` changes its status (null: it had ended already), and then
   * its own file leaves R2: customer data is kept no longer than its import runs. A media upload
   * it read (`own_file = 0`) stays, under media's rules. The watch is kept, due in minutes, until
   * the delete is done, so that a delete that fails, or an object that restarts before it, is
   * done again by the watch (`watchVerdict`: `delete`).
   */
  async #ended(end: () => ImportRow | null): Promise<void> {
    const space = this.#space;
    const ended = space.db.transaction(() => {
      const row = end();
      if (row?.own_file) watchEnded(space.sql, row.import_id, space.now());
      else if (row) unwatchImport(space.sql, row.import_id);
      return row;
    });
    if (!ended?.own_file) return;
    await space.armAlarm();
    await this.#deleteFile(ended);
  }

  /** Deletes an ended import's own file, then its watch. */
  async #deleteFile(row: ImportRow): Promise<void> {
    await this.#space.env.FILES.delete(row.object_key);
    unwatchImport(this.#space.sql, row.import_id);
  }

  /**
   * Due watches (`watch.ts`), after the alarm's round: a file that never arrived is dropped with
   * whatever of it reached R2; an import nobody progressed has its message sent again, up to
   * `MAX_RESENDS` times, then fails `stalled` (its own file leaves R2).
   */
  async actOnWatches(watches: readonly { importId: string; payload: unknown }[]): Promise<void> {
    const space = this.#space;
    for (const { importId, payload } of watches) {
      const verdict = watchVerdict(space.sql, importId, payload);
      switch (verdict.act) {
        case "none":
          unwatchImport(space.sql, importId);
          break;
        case "delete":
          await this.#deleteFile(verdict.row);
          break;
        case "drop":
          await space.env.FILES.delete(verdict.row.object_key);
          space.db.transaction(() => {
            dropReceiving(space.sql, importId);
            unwatchImport(space.sql, importId);
          });
          break;
        case "resend":
          // The try counts whether or not the send goes through: a queue that stays down fails the import `stalled`.
          watchAgain(space.sql, importId, verdict.resends, space.now());
          await space.env.IMPORTS.send(importMessage(space.spaceName(), importId)).catch(() => undefined);
          break;
        case "fail":
          await this.#ended(() => stallImport(space.sql, importId, STALLED, space.now()));
          break;
      }
    }
  }
}

/** Why a file that arrived after its import's receive window is refused. */
export const TOO_SLOW = `body: not_received_within_${RECEIVE_WINDOW_MS / 3_600_000}_hours`;

const keyIdOf = (caller: Caller) => (caller.principal.kind === "key" ? caller.principal.keyId : "");

/** A record's item for the media check, which reads references before items are checked. */
function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
