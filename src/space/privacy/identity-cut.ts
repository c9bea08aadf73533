import { deleteExports, exportsHolding } from "../exports/records";
import { forgetLinkage } from "../identity/linkage/pairs";
import { eraseImportRows } from "../imports/erasure";
import { eraseMedia } from "../media/erasure";
import type { ErasureCounts } from "./receipts";

/**
 * The part of an erasure done in the request's own transaction (docs/api/privacy.md "From the
 * request on"): the subject stops existing for every reader and every job. Its handles move to
 * `erasure_handles` (until the receipt; a batch naming one is stored as a tombstone), its
 * profiles leave `profiles` (every read by id or handle is `404` at once), and what identity and
 * memory keep per profile in a few indexed rows goes: links, suggestions, evidence, linkage,
 * compiled memory, queued compiles. What is large (events, sessions, search rows) is erased in
 * slices afterwards, by profile ids kept in `erasure_profiles`.
 */
export interface Subject {
  rootId: string;
  members: string[];
}

/** An export's file in R2, deleted by the object before the receipt is signed (`receipt-signer.ts`). */
export interface ErasedFile {
  objectKey: string;
  uploadId: string | null;
}

/** Cuts the subject loose; answers its export files and what it erased. */
export function cutSubject(
  sql: SqlStorage,
  receiptId: string,
  subject: Subject,
): { files: ErasedFile[]; counts: Partial<ErasureCounts> } {
  const members = JSON.stringify(subject.members);
  sql.exec("INSERT INTO erasure_profiles (profile_id, receipt_id) SELECT value, ? FROM json_each(?)", receiptId, members);
  const handles = sql
    .exec(
      `INSERT INTO erasure_handles (handle_id, receipt_id, type, scope, value)
       SELECT h.handle_id, ?, h.type, h.scope, h.value FROM json_each(?) m CROSS JOIN handles h WHERE h.profile_id = m.value
       RETURNING handle_id`,
      receiptId,
      members,
    )
    .toArray().length;
  const answers = forgetKeptAnswers(sql, receiptId, members);
  sql.exec("DELETE FROM handles WHERE profile_id IN (SELECT value FROM json_each(?))", members);
  const profiles = sql
    .exec("DELETE FROM profiles WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING profile_id", members)
    .toArray().length;
  const links = deleteBySides(sql, "links", ["person_id", "organization_id"], members, "link_id");
  const suggestions = deleteBySides(sql, "suggestions", ["profile_a", "profile_b"], members, "suggestion_id");
  const evidence = forgetEvidence(sql, members);
  // Its memory entries (one per fact, promise, question: thousands for a large subject) go in slices.
  const memory = countDeleted(
    sql,
    "DELETE FROM memories WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING 1",
    members,
  );
  for (const table of ["compile_queue", "compile_inbox", "model_queue"]) {
    sql.exec(`DELETE FROM ${table} WHERE profile_id IN (SELECT value FROM json_each(?))`, members);
  }
  // Exports of the subject: their records go now (no read or download link finds them, a job
  // writing one stops), their files in R2 before the receipt.
  const exported = exportsHolding(sql, subject.members);
  deleteExports(
    sql,
    exported.map((file) => file.exportId),
  );
  // Media under the subject or pointed to by its events: erased now (no event reaches them, no
  // upload goes in), their objects in R2 before the receipt (`deleteErasedMedia`).
  const media = eraseMedia(sql, subject.members);
  const importRows = eraseImportRows(sql, subject.members);
  return {
    files: exported.map(({ objectKey, uploadId }) => ({ objectKey, uploadId })),
    counts: {
      profiles,
      handles,
      links,
      suggestions,
      identity_evidence: evidence,
      memory_items: memory,
      exports: exported.length,
      media,
      import_rows: importRows,
      kept_answers: answers,
    },
  };
}

/**
 * What identity keeps about the profiles for suggestions: traits (names, postal codes, parts of
 * handles), their changes, co-occurrences, and the linkage job's copies, keys and pairs (each
 * pair's pattern counted down, as `markDirty` does). Safe to run again: the erasure's last slice
 * does, for anything a suggestion run under way wrote since.
 */
export function forgetEvidence(sql: SqlStorage, members: string): number {
  let erased = 0;
  erased += countDeleted(
    sql,
    "DELETE FROM profile_traits WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING 1",
    members,
  );
  erased += countDeleted(
    sql,
    "DELETE FROM trait_changes WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING 1",
    members,
  );
  erased += deleteBySides(sql, "co_occurrences", ["profile_a", "profile_b"], members, "profile_a");
  return erased + forgetLinkage(sql, JSON.parse(members) as string[]);
}

/** Deletes the rows naming any of `members` on either side, each side by its own statement (its index); counts them once. */
function deleteBySides(sql: SqlStorage, table: string, sides: readonly string[], members: string, id: string): number {
  const deleted = new Set<unknown>();
  for (const side of sides) {
    for (const row of sql.exec(
      `DELETE FROM ${table} WHERE ${side} IN (SELECT value FROM json_each(?)) RETURNING ${id} AS id, ${sides.join(" || ' ' || ")} AS pair`,
      members,
    )) {
      deleted.add(`${row.id} ${row.pair}`);
    }
  }
  return deleted.size;
}

/**
 * An identity write's kept answer can hold the subject's ids and whole handles (a link, a
 * suggestion): deleted with the cut, so that a replay answers nothing of the subject. The
 * erasure's last slice runs it again, for an erasure cut before this ran with the cut. A
 * handle's value counts only as a whole JSON string: a short value (a `system_id` of `1`) is
 * inside other callers' answers (an id, a date) and inside the erasure's own.
 */
export function forgetKeptAnswers(sql: SqlStorage, receiptId: string, members: string): number {
  return countDeleted(
    sql,
    `DELETE FROM idempotency_records WHERE
       EXISTS (SELECT 1 FROM json_each(?1) m WHERE instr(idempotency_records.answer, m.value) > 0)
       OR EXISTS (SELECT 1 FROM erasure_handles h WHERE h.receipt_id = ?2
         AND (instr(idempotency_records.answer, h.handle_id) > 0
           OR instr(lower(idempotency_records.answer), lower(json_quote(h.value))) > 0))
       RETURNING 1`,
    members,
    receiptId,
  );
}

function countDeleted(sql: SqlStorage, statement: string, ...values: string[]): number {
  return sql.exec(statement, ...values).toArray().length;
}
