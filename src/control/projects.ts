import { eq } from "drizzle-orm";
import type { Project } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
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
  const list = { table: projects, id: projects.projectId, idOf: (row: ProjectRow) => row.projectId, view: projectView };
  return listPage(db, list, eq(projects.tenantId, tenantId), after, limit);
}

/** The tenant's project, or `404`: another tenant's project does not exist for the caller. */
export function requireProject(db: ControlDb, tenantId: string, projectId: string): ProjectRow {
  const row = db.select().from(projects).where(eq(projects.projectId, projectId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such project");
  return row;
}
