import { auditPage } from "../audit/log";
import type { PersonActor } from "../auth/person-token";
import type { ControlAuditPage, ControlAuditQuery } from "../contract/audit";
import type { SpaceConfigValues } from "../contract/config";
import type { Quota, Usage } from "../contract/quotas";
import { type Outcome, outcomeOf } from "../http/problem";
import { spaceObject } from "../space/address";
import { type ConfigView, getConfig, putConfig } from "./config";
import { listQuotas, putQuota, tenantQuotas } from "./quotas";
import type { ControlRequests } from "./requests";
import { requireSpace, tenantSpaces } from "./spaces";
import { tenantUsage } from "./usage";

/** A space's configuration, the tenant's quotas and usage, and the control plane's audit log (docs/api/control.md). */
export class SettingsRequests {
  #control: ControlRequests;

  constructor(control: ControlRequests) {
    this.#control = control;
  }

  getConfig(actor: PersonActor, spaceId: string, version?: number): Promise<Outcome<ConfigView>> {
    const control = this.#control;
    return control.as(actor, () => {
      requireSpace(control.db, actor.tenantId, spaceId);
      return getConfig(control.db, spaceId, version);
    });
  }

  putConfig(
    actor: PersonActor,
    spaceId: string,
    values: SpaceConfigValues,
    requestId: string | null,
  ): Promise<Outcome<ConfigView>> {
    const control = this.#control;
    return control.recorded(
      actor,
      { action: "config.update", requestId, targets: [{ type: "space", id: spaceId }] },
      () =>
        control.as(actor, () =>
          control.db.transaction(() => {
            control.owe([requireSpace(control.db, actor.tenantId, spaceId)]);
            return putConfig(control.db, spaceId, values, actor.personId, control.now());
          }),
        ),
      () => control.push([requireSpace(control.db, actor.tenantId, spaceId)]),
    );
  }

  /** The control API's `GET /v1/audit`: the tenant's control-plane log, oldest first; the read itself is a row of it. */
  readAudit(actor: PersonActor, query: ControlAuditQuery, requestId: string | null): Promise<Outcome<ControlAuditPage>> {
    const control = this.#control;
    return control.recorded(actor, { action: "audit.read", requestId }, () =>
      control.as(actor, () =>
        // This log holds control-plane actions only.
        control.paged(
          "audit",
          query.cursor,
          (cursor) => auditPage(control.sql, { ...query, cursor }, actor.tenantId) as ControlAuditPage,
        ),
      ),
    );
  }

  /** Platform operation: sets a tenant's quota, in force in every space of the tenant before it answers. */
  putQuota(quota: Quota): Promise<Outcome<Quota>> {
    const control = this.#control;
    return outcomeOf(async () => {
      const answer = control.db.transaction(() => {
        control.oweTenant(quota.tenant_id);
        return putQuota(control.db, quota, control.now());
      });
      await control.pushTenant(quota.tenant_id);
      return answer;
    });
  }

  listQuotas(tenantId: string): Promise<Outcome<{ data: Quota[] }>> {
    return outcomeOf(() => ({ data: listQuotas(this.#control.db, tenantId) }));
  }

  /** The actor's tenant's usage, asked of each of its spaces now. */
  usage(actor: PersonActor): Promise<Outcome<Usage>> {
    const control = this.#control;
    return control.as(actor, async () => {
      const spaces = await Promise.all(
        tenantSpaces(control.db, actor.tenantId).map(async (space) => ({
          spaceId: space.spaceId,
          usage: await spaceObject(control.env, space.name).usage(),
        })),
      );
      return tenantUsage(actor.tenantId, tenantQuotas(control.db, actor.tenantId), spaces, control.now());
    });
  }
}
