import { and, asc, eq, gt } from "drizzle-orm";
import type { Space } from "../contract/control";
import { pageFrom } from "../http/cursor";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { spaces } from "./schema";

export type SpaceRow = typeof spaces.$inferSelect;
/** A space as the control plane knows it; the edge adds `base_url`, which depends on the host asked. */
export type SpaceView = Omit<Space, "base_url">;

export function spaceView(row: SpaceRow): SpaceView {
  return {
    space_id: row.spaceId,
    tenant_id: row.tenantId,
    project_id: row.projectId,
    name: row.name,
    region: row.region,
    created_at: iso(row.createdAt),
  };
}

/** Space names are unique: they are the first label of the space's host name. */
export function insertSpace(
  db: ControlDb,
  project: { tenantId: string; projectId: string },
  name: string,
  region: string,
  now: number,
): SpaceRow {
  if (db.select({ id: spaces.spaceId }).from(spaces).where(eq(spaces.name, name)).get()) {
    throw new Problem("conflict", "a space with this name exists");
  }
  const row: SpaceRow = {
    spaceId: uuidv7(now),
    tenantId: project.tenantId,
    projectId: project.projectId,
    name,
    region,
    createdAt: now,
  };
  db.insert(spaces).values(row).run();
  return row;
}

export function listSpaces(db: ControlDb, projectId: string, after: string | null, limit: number) {
  const rows = db
    .select()
    .from(spaces)
    .where(and(eq(spaces.projectId, projectId), after ? gt(spaces.spaceId, after) : undefined))
    .orderBy(asc(spaces.spaceId))
    .limit(limit + 1)
    .all();
  const page = pageFrom(rows, limit, (row) => row.spaceId);
  return { data: page.data.map(spaceView), next_cursor: page.next_cursor };
}

/** The tenant's space, or `404`. */
export function requireSpace(db: ControlDb, tenantId: string, spaceId: string): SpaceRow {
  const row = db.select().from(spaces).where(eq(spaces.spaceId, spaceId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such space");
  return row;
}
