import { eq } from "drizzle-orm";
import { LEVELS, type Level } from "../contract/common";
import type { SOURCE_KINDS, Source, SourceInput } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
import { sources } from "./schema";

export type SourceRow = typeof sources.$inferSelect;
type SourceKind = (typeof SOURCE_KINDS)[number];

/** Ceilings by kind (DESIGN 3.3): agents stop at V2, desks and systems of record reach V4. */
const DEFAULT_CEILING: Record<SourceKind, Level> = { agent: "V2", system: "V4", human_desk: "V4", analyst: "V0" };

/**
 * The verification ceiling a source gets: the one asked for, if the source may have it.
 * V3 needs a source that runs OTP; V4 is for human desks and systems of record.
 */
function ceilingOf(input: SourceInput): Level {
  const kindCeiling = DEFAULT_CEILING[input.kind];
  const allowed = input.otp && LEVELS.indexOf(kindCeiling) < LEVELS.indexOf("V3") ? "V3" : kindCeiling;
  const asked = input.verification_ceiling ?? allowed;
  if (LEVELS.indexOf(asked) > LEVELS.indexOf(allowed)) {
    throw new Problem("invalid_input", `verification_ceiling: above what a source of this kind may declare (${allowed})`);
  }
  return asked;
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
