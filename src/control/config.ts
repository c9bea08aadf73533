import { and, desc, eq } from "drizzle-orm";
import type { SpaceConfigValues } from "../contract/config";
import { Problem } from "../http/problem";
import { type ControlDb, iso } from "./db";
import { configs } from "./schema";

export interface ConfigView {
  space_id: string;
  version: number;
  values: SpaceConfigValues;
  updated_at: string | null;
  updated_by: string | null;
}

type ConfigRow = typeof configs.$inferSelect;

function configView(spaceId: string, row: ConfigRow | undefined): ConfigView {
  if (!row) return { space_id: spaceId, version: 0, values: {}, updated_at: null, updated_by: null };
  return {
    space_id: spaceId,
    version: row.version,
    values: row.values as SpaceConfigValues,
    updated_at: iso(row.updatedAt),
    updated_by: row.updatedBy,
  };
}

/** The current configuration, or version `version`. Version 0 is the defaults a space starts with. */
export function getConfig(db: ControlDb, spaceId: string, version?: number): ConfigView {
  if (version === undefined) {
    const row = db.select().from(configs).where(eq(configs.spaceId, spaceId)).orderBy(desc(configs.version)).limit(1).get();
    return configView(spaceId, row);
  }
  if (version === 0) return configView(spaceId, undefined);
  const row = db
    .select()
    .from(configs)
    .where(and(eq(configs.spaceId, spaceId), eq(configs.version, version)))
    .get();
  if (!row) throw new Problem("not_found", "no such configuration version");
  return configView(spaceId, row);
}

/** Every PUT stores a whole new version (DESIGN 3.11). */
export function putConfig(db: ControlDb, spaceId: string, values: SpaceConfigValues, personId: string, now: number): ConfigView {
  const current = getConfig(db, spaceId);
  const row: ConfigRow = { spaceId, version: current.version + 1, values, updatedAt: now, updatedBy: personId };
  db.insert(configs).values(row).run();
  return configView(spaceId, row);
}
