import { correctionsOf } from "./corrections";
import { derivationsAbout, latestStatements, questionById, type Subjects, subjectsOf } from "./derivations";
import { factEntry, LIST_LIMIT, type MemoryEntry, objectEntries, questionEntry } from "./memory-view";

interface EntryRow {
  profile_id: string;
  kind: MemoryEntry["kind"];
  subject: string;
  key: string;
  at: number;
  listed: number;
  view: string | null;
  open_item: string | null;
  [column: string]: SqlStorageValue;
}

/**
 * Compiles again the entries of a root profile's memory about the subjects touched, from its
 * members' derivations: O(subjects touched), whatever the size of the profile's history.
 */
export function writeEntries(sql: SqlStorage, rootId: string, members: readonly string[], touched: Subjects, now: number): void {
  const cleared: [MemoryEntry["kind"], string][] = [];
  const facts = [...touched.facts].map((key) => ({ key, statements: latestStatements(sql, members, key) }));
  const objects = [...touched.objects].map((subject) => ({
    subject,
    changes: derivationsAbout(sql, members, "object", subject),
    promises: derivationsAbout(sql, members, "promise", subject),
  }));
  const questions = [...touched.questions].flatMap((id) => questionById(sql, members, id) ?? []);
  const corrections = correctionsOf(sql, [
    ...facts.flatMap(({ statements }) => statements.map((statement) => statement.id)),
    ...objects.flatMap(({ changes }) => changes.map((change) => change.id)),
    ...questions.map((question) => question.id),
  ]);
  const entries: MemoryEntry[] = [];
  for (const { key, statements } of facts) {
    cleared.push(["fact", key]);
    const entry = factEntry(key, statements, corrections);
    if (entry) entries.push(entry);
  }
  for (const { subject, changes, promises } of objects) {
    cleared.push(["object", subject], ["promise", subject]);
    entries.push(...objectEntries(subject, changes, promises, now, corrections));
  }
  for (const id of touched.questions) cleared.push(["question", id]);
  for (const question of questions) entries.push(questionEntry(question, corrections));
  for (const [kind, subject] of cleared) {
    sql.exec("DELETE FROM memory_entries WHERE profile_id = ? AND kind = ? AND subject = ?", rootId, kind, subject);
  }
  if (entries.length === 0) return;
  sql.exec(
    `INSERT INTO memory_entries (profile_id, kind, subject, key, at, listed, open_at, view, open_item)
     SELECT ?1, e.value ->> 0, e.value ->> 1, e.value ->> 2, e.value ->> 3, e.value ->> 4, e.value ->> 5, e.value ->> 6, e.value ->> 7
     FROM json_each(?2) e`,
    rootId,
    JSON.stringify(
      entries.map((entry) => [
        entry.kind,
        entry.subject,
        entry.key,
        entry.at,
        entry.listed ? 1 : 0,
        entry.openItem ? Date.parse(entry.openItem.opened_at) : null,
        entry.view ? JSON.stringify(entry.view) : null,
        entry.openItem ? JSON.stringify(entry.openItem) : null,
      ]),
    ),
  );
}

/**
 * Compiles a root profile's memory entries from scratch: after a merge or an undo changed its
 * members. Drops what the members held as roots of their own.
 */
export function rebuildEntries(sql: SqlStorage, rootId: string, members: readonly string[], now: number): void {
  sql.exec(
    "DELETE FROM memory_entries WHERE profile_id IN (SELECT value FROM json_each(?))",
    JSON.stringify([...new Set([rootId, ...members])]),
  );
  const subjects = subjectsOf(sql, members);
  if (subjects.facts.size + subjects.objects.size + subjects.questions.size > 0) {
    writeEntries(sql, rootId, members, subjects, now);
  }
}

/**
 * What `memoryFrom` needs of root profiles' entries, by root: every fact, and the newest
 * `LIST_LIMIT` open objects, promises and open items, each through its index, for all the roots
 * in one statement: a compile slice writes the memory of every root its sessions touched, and four
 * statements per root were a third of its time.
 */
export function listedEntriesOf(sql: SqlStorage, rootIds: readonly string[]): Map<string, MemoryEntry[]> {
  const byRoot = new Map<string, Map<string, EntryRow>>();
  if (rootIds.length === 0) return new Map();
  const newest = (where: string, order: string) =>
    `SELECT e.* FROM json_each(?1) r CROSS JOIN memory_entries e ON e.rowid IN (
       SELECT x.rowid FROM memory_entries x WHERE x.profile_id = r.value AND ${where} ORDER BY ${order} LIMIT ?2)`;
  const rows = sql.exec<EntryRow>(
    `SELECT e.* FROM json_each(?1) r CROSS JOIN memory_entries e ON e.profile_id = r.value AND e.kind = 'fact'
     UNION ALL ${newest("x.kind = 'object' AND x.listed = 1", "x.at DESC, x.key")}
     UNION ALL ${newest("x.kind = 'promise' AND x.listed = 1", "x.at DESC, x.key")}
     UNION ALL ${newest("x.open_at IS NOT NULL", "x.open_at DESC, x.key")}`,
    JSON.stringify(rootIds),
    LIST_LIMIT,
  );
  for (const row of rows) {
    const entries = byRoot.get(row.profile_id) ?? new Map<string, EntryRow>();
    byRoot.set(row.profile_id, entries);
    // An open object may come twice: as an object and as an open item.
    entries.set(`${row.kind}\n${row.subject}\n${row.key}`, row);
  }
  return new Map(
    [...byRoot].map(([rootId, entries]) => [
      rootId,
      [...entries.values()].map(
        (row) =>
          ({
            kind: row.kind,
            subject: row.subject,
            key: row.key,
            at: row.at,
            listed: row.listed === 1,
            view: row.view === null ? null : JSON.parse(row.view),
            openItem: row.open_item === null ? null : JSON.parse(row.open_item),
          }) as MemoryEntry,
      ),
    ]),
  );
}
