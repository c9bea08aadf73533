import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Profiles: one per subject the space knows. A merged profile points at the profile it joined
 * (`merged_into`, the tree of merges) and keeps `root_id`, the profile that answers for it now,
 * so any id resolves in one step. `seq` orders profiles by age: the older survives a merge.
 * Owned by `profiles.ts`.
 */
export const profiles = sqliteTable(
  "profiles",
  {
    seq: integer("seq").primaryKey(),
    profileId: text("profile_id").notNull(),
    subjectKind: text("subject_kind").notNull(),
    mergedInto: text("merged_into"),
    rootId: text("root_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [uniqueIndex("profiles_profile_id").on(table.profileId), index("profiles_root_id").on(table.rootId)],
);

/**
 * Handles: `(type, scope, normalized value)`, each owned by one profile (the profile it joined,
 * never rewritten by a merge: a merge moves the profile, so an undo gives every handle back).
 * Owned by `handle-store.ts`.
 */
export const handles = sqliteTable(
  "handles",
  {
    handleId: text("handle_id").primaryKey(),
    type: text("type").notNull(),
    scope: text("scope").notNull(),
    value: text("value").notNull(),
    profileId: text("profile_id").notNull(),
    status: text("status").notNull(),
    level: text("level").notNull(),
    firstSeen: integer("first_seen").notNull(),
    lastSeen: integer("last_seen").notNull(),
    /** The sources that wrote it (a JSON array), so a `vendor` person sees only their sources' handles. */
    sources: text("sources", { mode: "json" }).notNull().$type<string[]>(),
  },
  (table) => [
    uniqueIndex("handles_identity").on(table.type, table.scope, table.value),
    index("handles_profile_id").on(table.profileId),
  ],
);

/**
 * Seen times that batches widened since the last fold into `handles` (min and max are all a fold
 * needs, so rows only append): a batch writes a few pages at the table's end instead of a row of
 * `handles` at a random place per handle it met. Owned by `handle-store.ts`.
 */
export const handleSightings = sqliteTable("handle_sightings", {
  seq: integer("seq").primaryKey(),
  handleId: text("handle_id").notNull(),
  firstSeen: integer("first_seen").notNull(),
  lastSeen: integer("last_seen").notNull(),
});

/** Objects (`order` `o-1`) and the profile they were first seen with, to resolve events about an object alone. Owned by `objects.ts`. */
export const objectOwners = sqliteTable(
  "object_owners",
  {
    objectType: text("object_type").notNull(),
    objectId: text("object_id").notNull(),
    profileId: text("profile_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.objectType, table.objectId] })],
);

/** Every merge with its evidence; `undone_at` once split back. Owned by `merges.ts`. */
export const merges = sqliteTable(
  "merges",
  {
    mergeId: text("merge_id").primaryKey(),
    survivorId: text("survivor_id").notNull(),
    absorbedId: text("absorbed_id").notNull(),
    method: text("method").notNull(),
    itemId: text("item_id"),
    sourceId: text("source_id"),
    personId: text("person_id"),
    createdAt: integer("created_at").notNull(),
    undoneAt: integer("undone_at"),
  },
  (table) => [index("merges_survivor").on(table.survivorId), index("merges_absorbed").on(table.absorbedId)],
);

/** The highest verification level a conversation or task reached (`verify`). Owned by `verification.ts`. */
export const verificationLevels = sqliteTable(
  "verification_levels",
  {
    targetKind: text("target_kind").notNull(),
    targetId: text("target_id").notNull(),
    level: text("level").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.targetKind, table.targetId] })],
);

/** Links between a person and an account or partner. Owned by `links.ts`. */
export const links = sqliteTable(
  "links",
  {
    linkId: text("link_id").primaryKey(),
    personId: text("person_id").notNull(),
    organizationId: text("organization_id").notNull(),
    kind: text("kind").notNull(),
    role: text("role"),
    /** The source whose key created the link; null when a person did. */
    sourceId: text("source_id"),
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    endedAt: integer("ended_at"),
  },
  (table) => [index("links_person").on(table.personId), index("links_organization").on(table.organizationId)],
);

/**
 * Evidence for suggestions: every value a profile's system events gave each trait
 * (`linkage/traits.ts`), with the memory time it was last given (the latest value counts, the
 * others are alternatives). Owned by `evidence.ts`.
 */
export const profileTraits = sqliteTable(
  "profile_traits",
  {
    seq: integer("seq").primaryKey(),
    profileId: text("profile_id").notNull(),
    trait: text("trait").notNull(),
    value: text("value").notNull(),
    notedAt: integer("noted_at").notNull().default(0),
  },
  (table) => [uniqueIndex("profile_traits_value").on(table.profileId, table.trait, table.value)],
);

/**
 * Profiles whose traits changed since the suggestions job last read them, appended by batches
 * (no index: a batch writes a page at the table's end). Owned by `evidence.ts`.
 */
export const traitChanges = sqliteTable("trait_changes", {
  seq: integer("seq").primaryKey(),
  profileId: text("profile_id").notNull(),
});

/** Profiles that met in one event (their handles did), counted. Owned by `evidence.ts`. */
export const coOccurrences = sqliteTable(
  "co_occurrences",
  {
    profileA: text("profile_a").notNull(),
    profileB: text("profile_b").notNull(),
    handleA: text("handle_a").notNull(),
    handleB: text("handle_b").notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.profileA, table.profileB] })],
);

/**
 * Blocking keys of each profile with traits (`linkage/blocking.ts`), by the profile's linkage id:
 * profiles sharing a key are compared. A key that came to be held by more than `MAX_BLOCK`
 * profiles keeps one row, `lid` 0, and no members. `WITHOUT ROWID` (raw SQL in migration `0034`):
 * a key's members are one range of the primary key. Owned by `linkage/pairs.ts`.
 */
export const linkageKeys = sqliteTable(
  "linkage_keys",
  {
    key: text("key").notNull(),
    lid: integer("lid").notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.lid] })],
);

/**
 * Each profile the job compares, by a linkage id (`lid`, an integer, so that keys and pairs are
 * small rows): its traits (`TraitSet` JSON, the latest values first; null for a profile known
 * only from meetings) and its keys, so that a comparison reads one row per profile and a
 * change finds the keys to replace. Owned by `linkage/pairs.ts`.
 */
export const linkageProfiles = sqliteTable(
  "linkage_profiles",
  {
    lid: integer("lid").primaryKey({ autoIncrement: true }),
    profileId: text("profile_id").notNull(),
    traits: text("traits"),
    keys: text("keys").notNull().default("[]"),
  },
  (table) => [uniqueIndex("linkage_profiles_profile_id").on(table.profileId)],
);

/** The profiles (linkage ids) a run of the suggestions job compares again. Owned by `linkage/pairs.ts`. */
export const linkageDirty = sqliteTable("linkage_dirty", {
  lid: integer("lid").primaryKey(),
});

/**
 * Every candidate pair of profiles by linkage id (`a` < `b`) with its comparison pattern
 * (`linkage/comparisons.ts`) and how many events their handles met in. `WITHOUT ROWID`, index on
 * `b`. Owned by `linkage/pairs.ts`.
 */
export const linkagePairs = sqliteTable(
  "linkage_pairs",
  {
    a: integer("a").notNull(),
    b: integer("b").notNull(),
    pattern: text("pattern").notNull(),
    meetings: integer("meetings").notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.a, table.b] }), index("linkage_pairs_b").on(table.b)],
);

/** How many candidate pairs have each pattern: what EM estimates m from. Owned by `linkage/pairs.ts`. */
export const linkagePatterns = sqliteTable("linkage_patterns", {
  pattern: text("pattern").primaryKey(),
  pairs: integer("pairs").notNull(),
});

/**
 * One row: the weights the last run estimated (m, u, prior; null before the first), and how many
 * profiles have a blocking key (the pairs EM's prior is over). Owned by `linkage/model-store.ts`.
 */
export const linkageModel = sqliteTable("linkage_model", {
  id: integer("id").primaryKey(),
  model: text("model", { mode: "json" }),
  profiles: integer("profiles").notNull().default(0),
  estimatedAt: integer("estimated_at"),
});

/** Candidate pairs for review. Owned by `suggestions.ts`. */
export const suggestions = sqliteTable(
  "suggestions",
  {
    suggestionId: text("suggestion_id").primaryKey(),
    profileA: text("profile_a").notNull(),
    profileB: text("profile_b").notNull(),
    handleA: text("handle_a").notNull(),
    handleB: text("handle_b").notNull(),
    score: real("score").notNull(),
    /** The comparison pattern of the pair's best member pair, for `features`; at dismissal, the evidence a return must beat. */
    pattern: text("pattern").notNull().default(""),
    coOccurrences: integer("co_occurrences").notNull(),
    status: text("status").notNull(),
    /** The run of the job that last found the pair (its start): an open suggestion no run finds again is withdrawn. */
    run: integer("run").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("suggestions_pair").on(table.profileA, table.profileB),
    index("suggestions_status_run").on(table.status, table.run),
  ],
);

/** The last finished run of each offline job, for operators and the benchmark. Owned by `suggestion-job.ts`. */
export const jobRuns = sqliteTable("job_runs", {
  job: text("job").primaryKey(),
  startedAt: integer("started_at").notNull(),
  finishedAt: integer("finished_at").notNull(),
  slices: integer("slices").notNull(),
  maxSliceMs: real("max_slice_ms").notNull(),
});
