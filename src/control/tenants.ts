import type { TenantCreated } from "../contract/control";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { insertPerson, personView } from "./people";
import { tenants } from "./schema";

/** A tenant and its first `admin` person (DESIGN 3.3), in one transaction. */
export function createTenant(
  db: ControlDb,
  input: { name: string; admin: { email: string; name?: string | undefined } },
  adminPasswordHash: string,
  now: number,
): TenantCreated {
  return db.transaction(() => {
    const tenant = { tenantId: uuidv7(now), name: input.name, createdAt: now };
    db.insert(tenants).values(tenant).run();
    const admin = insertPerson(db, tenant.tenantId, { ...input.admin, roles: ["admin"] }, adminPasswordHash, now);
    return {
      tenant: { tenant_id: tenant.tenantId, name: tenant.name, created_at: iso(now) },
      admin: personView(admin),
    };
  });
}
