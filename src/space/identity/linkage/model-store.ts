import { defaultModel, type Model } from "./weights";

/**
 * The space's linkage model (`linkage_model`, one row): the weights the last run of the
 * suggestions job estimated, and how many profiles have a blocking key.
 */
interface ModelRow {
  model: string | null;
  profiles: number;
  [column: string]: SqlStorageValue;
}

function row(sql: SqlStorage): ModelRow {
  return (
    sql.exec<ModelRow>("SELECT model, profiles FROM linkage_model WHERE id = 1").toArray()[0] ?? { model: null, profiles: 0 }
  );
}

/** The weights in force: the last estimate, or the documented defaults before the first run. */
export function currentModel(sql: SqlStorage): Model {
  const { model } = row(sql);
  return model === null ? defaultModel() : (JSON.parse(model) as Model);
}

export function keyedProfiles(sql: SqlStorage): number {
  return row(sql).profiles;
}

/** Adds to the count of profiles with a key (a profile's first keys, or its last ones gone). */
export function countKeyedProfiles(sql: SqlStorage, delta: number): void {
  if (delta === 0) return;
  sql.exec(
    "INSERT INTO linkage_model (id, profiles) VALUES (1, ?1) ON CONFLICT (id) DO UPDATE SET profiles = profiles + ?1",
    delta,
  );
}

export function saveModel(sql: SqlStorage, model: Model, now: number): void {
  sql.exec(
    "INSERT INTO linkage_model (id, model, estimated_at) VALUES (1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET model = ?1, estimated_at = ?2",
    JSON.stringify({ m: model.m, u: model.u, lambda: model.lambda }),
    now,
  );
}
