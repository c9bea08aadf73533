import { eq } from "drizzle-orm";
import type { Level } from "../contract/common";
import { maximumCeiling, type SOURCE_KINDS, type Source, type SourceInput } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
import { sources } from "./schema";

export type SourceRow = typeof sources.$inferSelect;
type SourceKind = (typeof SOURCE_KINDS)[number];

/** The ceiling asked for (the input schema keeps it within the kind's), else the kind's highest. */
function ceilingOf(input: SourceInput): Level {
  return input.verification_ceiling ?? maximumCeiling(input.kind, input.otp ?? false);
}

export function sourceView(row: SourceRow): Source {
  return {
    source_id: row.sourceId,
    space_id: row.spaceId,
    name: row.name,
    kind: row.kind as SourceKind,
    verification_ceiling: row.verificationCeiling as Level,
    otp: row.otp,
    act: { operations: row.actOperations, object_types: row.actObjectTypes },
    mapping: row.mapping,
    created_at: iso(row.createdAt),
  };
}

export function insertSource(
  db: ControlDb,
  space: { tenantId: string; spaceId: string },
  input: SourceInput,
  now: number,
): SourceRow {
  const row: SourceRow = {
    sourceId: uuidv7(now),
    tenantId: space.tenantId,
    spaceId: space.spaceId,
    name: input.name,
    kind: input.kind,
    verificationCeiling: ceilingOf(input),
    otp: input.otp ?? false,
    actOperations: input.act?.operations ?? [],
    actObjectTypes: input.act?.object_types ?? [],
    mapping: input.mapping ?? null,
    createdAt: now,
  };
  db.insert(sources).values(row).run();
  return row;
}

export function listSources(db: ControlDb, spaceId: string, after: string | null, limit: number) {
  const list = { table: sources, id: sources.sourceId, idOf: (row: SourceRow) => row.sourceId, view: sourceView };
  return listPage(db, list, eq(sources.spaceId, spaceId), after, limit);
}

export function requireSource(db: ControlDb, tenantId: string, sourceId: string): SourceRow {
  const row = db.select().from(sources).where(eq(sources.sourceId, sourceId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such source");
  return row;
}
