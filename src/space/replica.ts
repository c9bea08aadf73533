import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { KeyMode } from "../auth/source-key";
import { type TokenCut, TokenCuts } from "../auth/token-cuts";
import type { Level, Scope } from "../contract/common";
import type { SpaceConfigValues } from "../contract/config";
import type { QuotaMetric, QuotaPeriod } from "../contract/quotas";
import type { QuotaShare } from "./limits/limits";
import { replicaQuotas } from "./limits/schema";
import { replicaConfig, replicaKeys, replicaSources, replicaTokenCuts, spaceRecord } from "./schema";

/**
 * The space's copy of what the ControlObject decides: the space, its sources, its keys (as
 * digests), its configuration, the tenant's cut person tokens and quotas (with this space's share). The ControlObject pushes every
 * change before it answers, so a revoked key or a cut token is refused on the very next request;
 * the copy is kept in SQLite so that it survives a restart of the object.
 */
export interface SpaceRecord {
  spaceId: string;
  name: string;
  tenantId: string;
  projectId: string;
  region: string;
}

export interface KeyRecord {
  keyId: string;
  sourceId: string;
  scopes: Scope[];
  mode: KeyMode;
  digest: string;
  status: "active" | "revoked";
  expiresAt: number | null;
}

export interface SourceRecord {
  sourceId: string;
  kind: string;
  verificationCeiling: Level;
  act: { operations: string[]; objectTypes: string[] };
}

export interface ConfigRecord {
  version: number;
  values: SpaceConfigValues;
}

/** Everything the space needs from the control plane, pushed whole after every change. */
export interface ReplicaSnapshot {
  space: SpaceRecord;
  keys: KeyRecord[];
  sources: SourceRecord[];
  config: ConfigRecord;
  tokenCuts: TokenCut[];
  quotas: QuotaShare[];
}

export interface Replica {
  space: SpaceRecord | null;
  keys: Map<string, KeyRecord>;
  sources: Map<string, SourceRecord>;
  config: ConfigRecord;
  tokenCuts: TokenCuts;
  quotas: Map<QuotaMetric, QuotaShare>;
}

type Db = DrizzleSqliteDODatabase<Record<string, unknown>>;

/** Before the first push: no space, so every credential is refused. */
export function emptyReplica(): Replica {
  return {
    space: null,
    keys: new Map(),
    sources: new Map(),
    config: { version: 0, values: {} },
    tokenCuts: new TokenCuts([]),
    quotas: new Map(),
  };
}

export function loadReplica(db: Db): Replica {
  const space = db.select().from(spaceRecord).get() ?? null;
  const keys = new Map<string, KeyRecord>();
  for (const row of db.select().from(replicaKeys).all()) {
    keys.set(row.keyId, {
      ...row,
      scopes: row.scopes as Scope[],
      mode: row.mode as KeyMode,
      status: row.status as KeyRecord["status"],
    });
  }
  const sources = new Map<string, SourceRecord>();
  for (const row of db.select().from(replicaSources).all()) {
    sources.set(row.sourceId, {
      sourceId: row.sourceId,
      kind: row.kind,
      verificationCeiling: row.verificationCeiling as Level,
      act: { operations: row.actOperations, objectTypes: row.actObjectTypes },
    });
  }
  const config = db.select().from(replicaConfig).where(eq(replicaConfig.id, 1)).get();
  return {
    space,
    keys,
    sources,
    config: config ? { version: config.version, values: config.values as SpaceConfigValues } : { version: 0, values: {} },
    tokenCuts: new TokenCuts(db.select().from(replicaTokenCuts).all()),
    quotas: new Map(
      db
        .select()
        .from(replicaQuotas)
        .all()
        .map((row) => [
          row.metric as QuotaMetric,
          { ...row, metric: row.metric as QuotaMetric, period: row.period as QuotaPeriod },
        ]),
    ),
  };
}

/**
 * Replaces the replica with a snapshot. Snapshots are whole, so a push that was lost is
 * repaired by the next one; a configuration older than the one held is kept out.
 */
export function applyReplicaSnapshot(db: Db, snapshot: ReplicaSnapshot): void {
  db.delete(spaceRecord).run();
  db.insert(spaceRecord).values(snapshot.space).run();
  db.delete(replicaKeys).run();
  for (const key of snapshot.keys) db.insert(replicaKeys).values(key).run();
  db.delete(replicaSources).run();
  for (const source of snapshot.sources) {
    db.insert(replicaSources)
      .values({
        sourceId: source.sourceId,
        kind: source.kind,
        verificationCeiling: source.verificationCeiling,
        actOperations: source.act.operations,
        actObjectTypes: source.act.objectTypes,
      })
      .run();
  }
  db.delete(replicaTokenCuts).run();
  for (const cut of snapshot.tokenCuts) db.insert(replicaTokenCuts).values(cut).run();
  db.delete(replicaQuotas).run();
  for (const quota of snapshot.quotas) db.insert(replicaQuotas).values(quota).run();
  const current = db.select().from(replicaConfig).where(eq(replicaConfig.id, 1)).get();
  if (!current || current.version <= snapshot.config.version) {
    const row = { id: 1, version: snapshot.config.version, values: snapshot.config.values };
    db.insert(replicaConfig).values(row).onConflictDoUpdate({ target: replicaConfig.id, set: row }).run();
  }
}

/** The configuration as replicated, for work the alarm runs (no request holds the object's copy there). */
export function replicatedConfig(sql: SqlStorage): SpaceConfigValues {
  const row = sql.exec<{ values: string }>('SELECT "values" FROM replica_config WHERE id = 1').toArray()[0];
  return row ? (JSON.parse(row.values) as SpaceConfigValues) : {};
}
