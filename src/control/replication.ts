import { and, desc, eq, sql } from "drizzle-orm";
import type { KeyMode } from "../auth/source-key";
import type { Level, Scope } from "../contract/common";
import type { SpaceConfigValues } from "../contract/config";
import type { ReplicaSnapshot } from "../space/replica";
import type { ControlDb } from "./db";
import { quotaShares } from "./quotas";
import { configs, keys, owedPushes, sources, spaces } from "./schema";
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

/**
 * Marks, in the transaction of a change, the spaces that must receive their records again: a mark
 * outlives a push that fails and a restart, until a push taken after the change lands.
 */
export function owePushes(db: ControlDb, owed: readonly SpaceRow[]): void {
  for (const space of owed) {
    db.insert(owedPushes)
      .values({ spaceId: space.spaceId, version: 1 })
      .onConflictDoUpdate({ target: owedPushes.spaceId, set: { version: sql`${owedPushes.version} + 1` } })
      .run();
  }
}

/** The mark a push taken now settles (undefined: nothing owed). */
export function owedVersion(db: ControlDb, spaceId: string): number | undefined {
  return db.select({ version: owedPushes.version }).from(owedPushes).where(eq(owedPushes.spaceId, spaceId)).get()?.version;
}

/** A push landed: the mark it carried goes, unless a later change marked the space again. */
export function settlePush(db: ControlDb, spaceId: string, version: number): void {
  db.delete(owedPushes)
    .where(and(eq(owedPushes.spaceId, spaceId), eq(owedPushes.version, version)))
    .run();
}

/** Every space still owed a push. */
export function owedSpaces(db: ControlDb): SpaceRow[] {
  return db
    .select({ space: spaces })
    .from(owedPushes)
    .innerJoin(spaces, eq(spaces.spaceId, owedPushes.spaceId))
    .all()
    .map((row) => row.space);
}
