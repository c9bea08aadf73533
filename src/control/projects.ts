import { and, asc, eq, gt } from "drizzle-orm";
import type { Project } from "../contract/control";
import { pageFrom } from "../http/cursor";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { projects } from "./schema";

type ProjectRow = typeof projects.$inferSelect;

function projectView(row: ProjectRow): Project {
  return { project_id: row.projectId, tenant_id: row.tenantId, name: row.name, created_at: iso(row.createdAt) };
}

export function createProject(db: ControlDb, tenantId: string, name: string, now: number): Project {
  const row = { projectId: uuidv7(now), tenantId, name, createdAt: now };
  db.insert(projects).values(row).run();
  return projectView(row);
}

export function listProjects(db: ControlDb, tenantId: string, after: string | null, limit: number) {
  const rows = db
    .select()
    .from(projects)
    .where(and(eq(projects.tenantId, tenantId), after ? gt(projects.projectId, after) : undefined))
    .orderBy(asc(projects.projectId))
    .limit(limit + 1)
    .all();
  const page = pageFrom(rows, limit, (row) => row.projectId);
  return { data: page.data.map(projectView), next_cursor: page.next_cursor };
}

/** The tenant's project, or `404`: another tenant's project does not exist for the caller. */
export function requireProject(db: ControlDb, tenantId: string, projectId: string): ProjectRow {
  const row = db.select().from(projects).where(eq(projects.projectId, projectId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such project");
  return row;
}
