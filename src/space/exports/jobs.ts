import type { ExportCounts } from "../../contract/exports";
import { deleteTimers, setTimer } from "../timers";
import { EXPORT_TTL_MS, scheduleExpiry } from "./expiry";
import { abortUpload, ExportFile, PART_BYTES } from "./file";
import { type ExportCursor, emptyCounts, readSlice, START } from "./lines";
import { type ExportRow, insertExport, readExport, updateExport } from "./records";

/** Lines one slice reads: a few milliseconds of the object's time. */
export const LINES_PER_SLICE = 500;
/** How long a `POST /v1/exports` writes the file itself before it leaves the rest to the `export.run` timer. */
export const INLINE_MS = 50;
/** A slice taken by the alarm holds its timer this long: if the object dies meanwhile, the export goes on after it. */
export const EXPORT_LEASE_MS = 60_000;
/** After a failed slice (R2 refused a write), when the export starts again. */
const RETRY_MS = 5_000;
/** Attempts from the start (a restart or a failure ends one); then the export is `failed`. */
const MAX_ATTEMPTS = 3;

interface Job {
  file: ExportFile;
  cursor: ExportCursor;
  counts: ExportCounts;
}

export interface ExportHost {
  sql: SqlStorage;
  bucket: R2Bucket;
  now: () => number;
}

/**
 * Writes exports (docs/api/privacy.md#export): a request writes slices at once for up to
 * `INLINE_MS` (a small subject is complete in its answer), then the `export.run` timer writes a
 * slice per alarm round, each a few hundred lines, so a large subject never holds the object
 * long nor sits whole in memory (at most one R2 part, 5 MiB). Where a job stands lives here, in
 * memory: after a restart the export starts again from its first line (a new attempt), and the
 * upload the lost attempt left is aborted.
 */
export class ExportJobs {
  #jobs = new Map<string, Job>();
  #busy = new Set<string>();
  /** Tests make slices small, and the request's share none, to see an export span many slices. */
  linesPerSlice = LINES_PER_SLICE;
  inlineMs = INLINE_MS;

  constructor(private readonly host: () => ExportHost) {}

  /** `POST /v1/exports`: the record, and as much of the file as `INLINE_MS` allows. */
  async start(subject: { space: string; rootId: string; members: readonly string[] }, requestedBy: string): Promise<ExportRow> {
    const { sql, now } = this.host();
    const row = insertExport(sql, subject, requestedBy, now());
    // Held until the request is done with it: an object that dies now leaves the export to the timer.
    setTimer(sql, { kind: "export.run", key: row.exportId, dueAt: now() + EXPORT_LEASE_MS, payload: null });
    const started = performance.now();
    while ((await this.step(row.exportId)) === "more" && performance.now() - started < this.inlineMs) {
      await scheduler.wait(0);
    }
    return readExport(sql, row.exportId) ?? row;
  }

  /** One slice of an export; its `export.run` timer is set again when more is left, else dropped. */
  async step(exportId: string): Promise<"more" | "done"> {
    if (this.#busy.has(exportId)) return "more";
    this.#busy.add(exportId);
    try {
      return await this.#step(exportId);
    } finally {
      this.#busy.delete(exportId);
    }
  }

  async #step(exportId: string): Promise<"more" | "done"> {
    const { sql, bucket, now } = this.host();
    const row = readExport(sql, exportId);
    if (row?.state !== "running") {
      // Erased (forget) or finished while a job was under way: its upload goes too.
      const job = this.#jobs.get(exportId);
      this.#jobs.delete(exportId);
      if (job?.file.uploadId) await abortUpload(bucket, job.file.key, job.file.uploadId);
      deleteTimers(sql, "export.run", [exportId]);
      return "done";
    }
    const job = this.#jobs.get(exportId) ?? (await this.#attempt(row));
    if (!job) return "done";
    try {
      const slice = readSlice(sql, subjectOf(row), job.cursor, this.linesPerSlice, PART_BYTES);
      job.file.append(slice.lines);
      job.cursor = slice.cursor;
      for (const [name, count] of Object.entries(slice.counts)) job.counts[name as keyof ExportCounts] += count;
      await job.file.flush();
      // Forget may have erased the export while a part was written.
      if (!readExport(sql, exportId)) return await this.#step(exportId);
      if (job.cursor.section === "end") return await this.#complete(row, job);
      updateExport(sql, exportId, { counts: job.counts, uploadId: job.file.uploadId });
      setTimer(sql, { kind: "export.run", key: exportId, dueAt: now(), payload: null });
      return "more";
    } catch (error) {
      // The next attempt starts from the first line; `MAX_ATTEMPTS` bounds them.
      this.#jobs.delete(exportId);
      if (job.file.uploadId) await abortUpload(bucket, job.file.key, job.file.uploadId);
      console.error(JSON.stringify({ message: "export slice failed", export_id: exportId, error: (error as Error).name }));
      setTimer(sql, { kind: "export.run", key: exportId, dueAt: now() + RETRY_MS, payload: null });
      return "done";
    }
  }

  /** A new attempt from the first line, or `failed` after `MAX_ATTEMPTS`; an earlier attempt's upload is aborted. */
  async #attempt(row: ExportRow): Promise<Job | null> {
    const { sql, bucket } = this.host();
    if (row.uploadId) await abortUpload(bucket, row.objectKey, row.uploadId);
    if (row.attempts >= MAX_ATTEMPTS) {
      updateExport(sql, row.exportId, { state: "failed", uploadId: null });
      deleteTimers(sql, "export.run", [row.exportId]);
      return null;
    }
    updateExport(sql, row.exportId, { attempts: row.attempts + 1, uploadId: null, counts: emptyCounts() });
    const job = { file: new ExportFile(bucket, row.objectKey), cursor: START, counts: emptyCounts() };
    this.#jobs.set(row.exportId, job);
    return job;
  }

  async #complete(row: ExportRow, job: Job): Promise<"done"> {
    const { sql, bucket, now } = this.host();
    const bytes = await job.file.close();
    this.#jobs.delete(row.exportId);
    deleteTimers(sql, "export.run", [row.exportId]);
    // Forget may have erased the export while the last part was written: the file goes too.
    if (!readExport(sql, row.exportId)) {
      await bucket.delete(row.objectKey);
      return "done";
    }
    const completedAt = now();
    updateExport(sql, row.exportId, { state: "completed", uploadId: null, counts: job.counts, bytes, completedAt });
    scheduleExpiry(sql, completedAt + EXPORT_TTL_MS);
    return "done";
  }
}

function subjectOf(row: ExportRow) {
  // `spaces/<space>/exports/<export_id>`
  const space = row.objectKey.split("/")[1] ?? "";
  return { exportId: row.exportId, space, rootId: row.profileId, members: row.members, createdAt: row.createdAt };
}
