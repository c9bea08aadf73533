import { desc, eq } from "drizzle-orm";
import type { KeyMode } from "../auth/source-key";
import type { Level, Scope } from "../contract/common";
import type { SpaceConfigValues } from "../contract/config";
import type { ReplicaSnapshot } from "../space/replica";
import type { ControlDb } from "./db";
import { quotaShares } from "./quotas";
import { configs, keys, sources } from "./schema";
import { type SpaceRow, tenantSpaces } from "./spaces";
import { tenantCuts } from "./token-cuts";

/** What the space's object must hold to admit requests: built from the control tables. */
export function spaceSnapshot(db: ControlDb, space: SpaceRow, now: number): ReplicaSnapshot {
  const config = db
    .select()
    .from(configs)
    .where(eq(configs.spaceId, space.spaceId))
    .orderBy(desc(configs.version))
    .limit(1)
    .get();
  return {
    space: {
      spaceId: space.spaceId,
      name: space.name,
      tenantId: space.tenantId,
      projectId: space.projectId,
      region: space.region,
    },
    keys: db
      .select()
      .from(keys)
      .where(eq(keys.spaceId, space.spaceId))
      .all()
      .map((row) => ({
        keyId: row.keyId,
        sourceId: row.sourceId,
        scopes: row.scopes as Scope[],
        mode: row.mode as KeyMode,
        digest: row.digest,
        status: row.status as "active" | "revoked",
        expiresAt: row.expiresAt,
      })),
    sources: db
      .select()
      .from(sources)
      .where(eq(sources.spaceId, space.spaceId))
      .all()
      .map((row) => ({
        sourceId: row.sourceId,
        kind: row.kind,
        verificationCeiling: row.verificationCeiling as Level,
        act: { operations: row.actOperations, objectTypes: row.actObjectTypes },
      })),
    config: config ? { version: config.version, values: config.values as SpaceConfigValues } : { version: 0, values: {} },
    tokenCuts: tenantCuts(db, space.tenantId, now),
    quotas: quotaShares(db, space.tenantId, tenantSpaces(db, space.tenantId).length),
  };
}
