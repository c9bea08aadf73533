import { eq } from "drizzle-orm";
import type { Space } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
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
  const list = { table: spaces, id: spaces.spaceId, idOf: (row: SpaceRow) => row.spaceId, view: spaceView };
  return listPage(db, list, eq(spaces.projectId, projectId), after, limit);
}

/** Every space of a tenant. */
export function tenantSpaces(db: ControlDb, tenantId: string): SpaceRow[] {
  return db.select().from(spaces).where(eq(spaces.tenantId, tenantId)).all();
}

/** The tenant's space, or `404`. */
export function requireSpace(db: ControlDb, tenantId: string, spaceId: string): SpaceRow {
  const row = db.select().from(spaces).where(eq(spaces.spaceId, spaceId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such space");
  return row;
}
