import { METRIC_PERIOD, type MetricUsage, QUOTA_METRICS, type Quota, type Usage } from "../contract/quotas";
import type { SpaceUsage } from "../space/limits/limits";
import { periodStart } from "../space/limits/periods";
import { iso } from "./db";

/** A tenant's usage per metric: its spaces' figures summed, beside the quota. */
export function tenantUsage(
  tenantId: string,
  quotas: Quota[],
  spaces: { spaceId: string; usage: SpaceUsage }[],
  now: number,
): Usage {
  const metrics = QUOTA_METRICS.map((metric): MetricUsage => {
    const period = METRIC_PERIOD[metric];
    const perSpace = spaces.map(({ spaceId, usage }) => ({ space_id: spaceId, used: usage[metric].used }));
    return {
      metric,
      period,
      period_start: iso(periodStart(period, now)),
      used: perSpace.reduce((sum, space) => sum + space.used, 0),
      limit: quotas.find((quota) => quota.metric === metric)?.limit ?? null,
      spaces: perSpace,
    };
  });
  return { tenant_id: tenantId, measured_at: iso(now), metrics };
}
