import { eq } from "drizzle-orm";
import { QUOTA_METRICS, type Quota, type QuotaMetric, type QuotaPeriod } from "../contract/quotas";
import { Problem } from "../http/problem";
import type { QuotaShare } from "../space/limits/limits";
import type { ControlDb } from "./db";
import { quotas, tenants } from "./schema";

function requireTenant(db: ControlDb, tenantId: string): void {
  if (!db.select({ id: tenants.tenantId }).from(tenants).where(eq(tenants.tenantId, tenantId)).get()) {
    throw new Problem("not_found", "no such tenant");
  }
}

/** Sets one quota of a tenant, replacing the one of the same metric; answers the record as given. */
export function putQuota(db: ControlDb, quota: Quota, now: number): Quota {
  requireTenant(db, quota.tenant_id);
  const row = { tenantId: quota.tenant_id, metric: quota.metric, limit: quota.limit, period: quota.period, updatedAt: now };
  db.insert(quotas)
    .values(row)
    .onConflictDoUpdate({ target: [quotas.tenantId, quotas.metric], set: row })
    .run();
  return quota;
}

/** The tenant's quotas, in the order of the metrics. */
export function tenantQuotas(db: ControlDb, tenantId: string): Quota[] {
  const rows = db.select().from(quotas).where(eq(quotas.tenantId, tenantId)).all();
  const order = (metric: string) => QUOTA_METRICS.indexOf(metric as QuotaMetric);
  return rows
    .sort((a, b) => order(a.metric) - order(b.metric))
    .map((row) => ({
      tenant_id: row.tenantId,
      metric: row.metric as QuotaMetric,
      limit: row.limit,
      period: row.period as QuotaPeriod,
    }));
}

export function listQuotas(db: ControlDb, tenantId: string): Quota[] {
  requireTenant(db, tenantId);
  return tenantQuotas(db, tenantId);
}

/**
 * What each of the tenant's `spaces` spaces may use: an even part of every quota, rounded down,
 * so that the spaces together never pass the tenant's limit without asking one another.
 */
export function quotaShares(db: ControlDb, tenantId: string, spaces: number): QuotaShare[] {
  return tenantQuotas(db, tenantId).map((quota) => ({
    metric: quota.metric,
    period: quota.period,
    limit: quota.limit,
    share: Math.floor(quota.limit / Math.max(1, spaces)),
  }));
}
