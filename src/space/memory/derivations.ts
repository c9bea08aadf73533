import type { Derivation } from "./derivation";

/** The subjects a change touched, by what their entries are: fact keys, objects, question ids. */
export interface Subjects {
  facts: Set<string>;
  objects: Set<string>;
  questions: Set<string>;
}

export const noSubjects = (): Subjects => ({ facts: new Set(), objects: new Set(), questions: new Set() });

export function addSubjects(into: Subjects, from: Subjects): void {
  for (const key of from.facts) into.facts.add(key);
  for (const subject of from.objects) into.objects.add(subject);
  for (const id of from.questions) into.questions.add(id);
}

function addSubject(into: Subjects, derivation: { type: Derivation["type"]; subject: string; id: string }): void {
  if (derivation.type === "fact") into.facts.add(derivation.subject);
  else if (derivation.type === "question") into.questions.add(derivation.id);
  else into.objects.add(derivation.subject);
}

export interface DerivationRow {
  id: string;
  type: Derivation["type"];
  item_id: string;
  source_id: string;
  subject: string;
  occurred_at: number;
  seq: number;
  body: string;
  [column: string]: SqlStorageValue;
}

const derivationOf = (row: DerivationRow) =>
  ({
    id: row.id,
    type: row.type,
    itemId: row.item_id,
    sourceId: row.source_id,
    subject: row.subject,
    occurredAt: row.occurred_at,
    seq: row.seq,
    body: JSON.parse(row.body),
  }) as Derivation;

/** What sessions derived as stored, by session (each of `sessionIds` has an entry), in one statement. */
export function storedDerivations(sql: SqlStorage, sessionIds: readonly string[]): Map<string, DerivationRow[]> {
  const bySession = new Map<string, DerivationRow[]>(sessionIds.map((id) => [id, []]));
  if (bySession.size === 0) return bySession;
  for (const row of sql.exec<DerivationRow & { session_id: string }>(
    "SELECT d.* FROM json_each(?) j CROSS JOIN derivations d WHERE d.session_id = j.value",
    JSON.stringify([...bySession.keys()]),
  )) {
    const rows = bySession.get(row.session_id) ?? [];
    rows.push(row);
    bySession.set(row.session_id, rows);
  }
  return bySession;
}

/**
 * Replaces what one session derived (`stored`: its rows as `storedDerivations` read them), writing only what changed: a session compiled again after
 * a late "thanks" derives what it derived before. Adds to `touched` the subjects of what it no
 * longer derives, derives anew or derives otherwise: the entries a compile must write again.
 */
export function replaceDerivations(
  sql: SqlStorage,
  session: { sessionId: string; profileId: string },
  derivations: readonly Derivation[],
  touched: Subjects,
  stored: readonly DerivationRow[],
): void {
  const before = new Map<string, { row: DerivationRow; written: string }>();
  for (const row of stored) {
    before.set(row.id, { row, written: writtenAs(row.profile_id as string, row) });
  }
  const rows: DerivationRow[] = [];
  for (const derivation of derivations) {
    const row: DerivationRow = {
      id: derivation.id,
      type: derivation.type,
      item_id: derivation.itemId,
      source_id: derivation.sourceId,
      subject: derivation.subject,
      occurred_at: derivation.occurredAt,
      seq: derivation.seq,
      body: JSON.stringify(derivation.body),
    };
    const same = before.get(row.id)?.written === writtenAs(session.profileId, row);
    if (!same) {
      rows.push(row);
      addSubject(touched, derivation);
      const old = before.get(row.id);
      if (old) addSubject(touched, old.row);
    }
    before.delete(row.id);
  }
  for (const { row } of before.values()) addSubject(touched, row);
  if (before.size > 0) {
    sql.exec("DELETE FROM derivations WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify([...before.keys()]));
  }
  if (rows.length === 0) return;
  sql.exec(
    `INSERT OR REPLACE INTO derivations (id, type, profile_id, session_id, item_id, source_id, subject, occurred_at, seq, body)
     SELECT d.value ->> 0, d.value ->> 1, ?1, ?2, d.value ->> 2, d.value ->> 3, d.value ->> 4, d.value ->> 5, d.value ->> 6, d.value ->> 7
     FROM json_each(?3) d`,
    session.profileId,
    session.sessionId,
    JSON.stringify(rows.map((d) => [d.id, d.type, d.item_id, d.source_id, d.subject, d.occurred_at, d.seq, d.body])),
  );
}

/** A derivation's row as written, to tell an unchanged one. */
const writtenAs = (profileId: string, row: DerivationRow) =>
  JSON.stringify([profileId, row.type, row.item_id, row.source_id, row.subject, row.occurred_at, row.seq, row.body]);

/** Every subject the members' derivations have: what a whole rebuild of their memory writes. */
export function subjectsOf(sql: SqlStorage, members: readonly string[]): Subjects {
  const subjects = noSubjects();
  const rows = sql.exec<{ type: Derivation["type"]; subject: string; id: string }>(
    "SELECT d.type, d.subject, d.id FROM json_each(?) m CROSS JOIN derivations d WHERE d.profile_id = m.value",
    JSON.stringify(members),
  );
  for (const row of rows) addSubject(subjects, row);
  return subjects;
}

/** The members' derivations of one type about one subject (an object's changes, the promises about it). */
export function derivationsAbout<T extends Derivation["type"]>(
  sql: SqlStorage,
  members: readonly string[],
  type: T,
  subject: string,
): Extract<Derivation, { type: T }>[] {
  return sql
    .exec<DerivationRow>(
      "SELECT d.* FROM json_each(?) m CROSS JOIN derivations d WHERE d.profile_id = m.value AND d.type = ? AND d.subject = ?",
      JSON.stringify(members),
      type,
      subject,
    )
    .toArray()
    .map((row) => derivationOf(row) as Extract<Derivation, { type: T }>);
}

/**
 * The last statement of a fact key by each member, by `(occurred_at, seq)` through the index:
 * a key restated 50,000 times costs one step per member, not 50,000.
 */
export function latestStatements(
  sql: SqlStorage,
  members: readonly string[],
  key: string,
): Extract<Derivation, { type: "fact" }>[] {
  return members.flatMap((member) =>
    sql
      .exec<DerivationRow>(
        `SELECT * FROM derivations WHERE profile_id = ? AND type = 'fact' AND subject = ?
         ORDER BY occurred_at DESC, seq DESC LIMIT 1`,
        member,
        key,
      )
      .toArray()
      .map((row) => derivationOf(row) as Extract<Derivation, { type: "fact" }>),
  );
}

/** A question the members asked, by its id. */
export function questionById(
  sql: SqlStorage,
  members: readonly string[],
  id: string,
): Extract<Derivation, { type: "question" }> | null {
  const row = sql.exec<DerivationRow>("SELECT * FROM derivations WHERE id = ? AND type = 'question'", id).toArray()[0];
  return row && members.includes(row.profile_id as string)
    ? (derivationOf(row) as Extract<Derivation, { type: "question" }>)
    : null;
}

/** One derivation by its id (a `fact_id`, an `open_item_id`), with the profile whose session derived it. */
export function derivationById(sql: SqlStorage, id: string): { derivation: Derivation; profileId: string } | null {
  const row = sql.exec<DerivationRow>("SELECT * FROM derivations WHERE id = ?", id).toArray()[0];
  return row ? { derivation: derivationOf(row), profileId: row.profile_id as string } : null;
}
