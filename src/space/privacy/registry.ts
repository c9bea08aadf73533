/**
 * Every table of a space's database, and whether it can hold a subject's data (a handle, a text,
 * a value a customer gave, anything compiled from those) and how forget reaches it
 * (docs/api/privacy.md "One rule for every store"). A table that is not here fails
 * `test/object/forget-registry.test.ts`, which reads the tables from `sqlite_master`: a new store
 * is declared here, with its reach, before it can land. Retention reaches the event-derived
 * tables per session (`session-erasure.ts`), the same tables forget's steps reach by the chunk.
 */
export type Reach =
  /** Holds a subject's data: `how` names what erases it (a module and step of `privacy/`). */
  | { holds: "subject"; how: string }
  /** Holds nothing of any subject: ids, counts, the service's own state. */
  | { holds: "nothing"; reason: string };

const subject = (how: string): Reach => ({ holds: "subject", how });
const nothing = (reason: string): Reach => ({ holds: "nothing", reason });
const shadow = (table: string): Reach =>
  subject(
    `FTS5 shadow table of \`${table}\`: its rows go with \`${table}\`'s, and the deleted rows' terms with the merge that follows (session-erasure.ts purgeSearchStep)`,
  );

export const SPACE_TABLES: Readonly<Record<string, Reach>> = {
  // Intake
  items: subject(
    "tombstoned (session-erasure.ts tombstoneItems): events through its sessions (erasure-steps.ts `events`), every other item of its profiles by the partial index `items_profile_not_event` (`items`); other subjects' items noted in `item_mentions` scrubbed of its handles (`mentions`); items that end or hand over sessions of its conversations and tasks (`items_control_*`): tombstoned where only its profiles had sessions, their `reason` dropped where other customers share the conversation (conversation-erasure.ts, `sessions`); arrivals during the erasure stored as tombstones (arrivals.ts)",
  ),
  // Identity
  profiles: subject("deleted in the request (identity-cut.ts cutSubject)"),
  handles: subject("deleted in the request (identity-cut.ts cutSubject), kept in `erasure_handles` until the receipt"),
  handle_sightings: subject("deleted by handle id (erasure-steps.ts `tidy`)"),
  object_owners: subject("deleted by profile, rowid ranges (erasure-steps.ts `owners`)"),
  merges: nothing("ids, methods and times only: merges and undos on record keep ids (docs/api/privacy.md)"),
  verification_levels: subject(
    "levels of conversations and tasks only its profiles had sessions in, with its sessions (erasure-steps.ts `sessions`); a shared conversation keeps its level",
  ),
  links: subject("deleted in the request, either side (identity-cut.ts cutSubject)"),
  profile_traits: subject("deleted in the request and again at `tidy` (identity-cut.ts forgetEvidence)"),
  trait_changes: subject("deleted in the request and again at `tidy` (identity-cut.ts forgetEvidence)"),
  co_occurrences: subject("deleted in the request and again at `tidy` (identity-cut.ts forgetEvidence)"),
  linkage_profiles: subject("traits as the job compares them: deleted (identity-cut.ts forgetEvidence)"),
  linkage_keys: subject("blocking keys (phonetic codes, postal codes): deleted (identity-cut.ts forgetEvidence)"),
  linkage_pairs: subject("pairs with the subject, their patterns counted down (identity-cut.ts forgetEvidence)"),
  linkage_dirty: subject("deleted (identity-cut.ts forgetEvidence)"),
  linkage_patterns: nothing("how many pairs have each comparison pattern: aggregate counts, counted down as pairs go"),
  linkage_model: nothing("the estimated weights (m, u, prior) and how many profiles have a blocking key: aggregates"),
  suggestions: subject("deleted in the request and again at `tidy`, either side (identity-cut.ts, erasure-steps.ts)"),
  job_runs: nothing("when offline jobs last ran, their slices"),
  idempotency_records: subject(
    "kept answers naming its ids or handles: deleted with the cut and again at `tidy` (identity-cut.ts)",
  ),
  // Memory
  sessions: subject("deleted once its events are erased (erasure-steps.ts `sessions`)"),
  session_inbox: subject("folded before each slice (session-erasure.ts foldInboxes), then as `sessions`"),
  session_events: subject("deleted with its events (erasure-steps.ts `events`)"),
  item_placements: subject("folded before each slice (session-erasure.ts foldInboxes), then as `session_events`"),
  conversation_aliases: subject(
    "aliases of conversations only its profiles had sessions in (erasure-steps.ts `sessions`); a shared conversation keeps its aliases",
  ),
  compile_inbox: subject("deleted in the request and with its sessions (identity-cut.ts, erasure-steps.ts `sessions`)"),
  compile_queue: subject("deleted in the request and with each session; a compile skips profiles being erased"),
  episodes: subject("deleted with its session (erasure-steps.ts `sessions`)"),
  derivations: subject("deleted by profile (erasure-steps.ts `derived`), and any left with its session (`sessions`)"),
  memory_entries: subject("deleted by profile (erasure-steps.ts `memory`)"),
  memories: subject("deleted in the request (identity-cut.ts cutSubject)"),
  corrections: subject(
    "feedback on what its sessions derived: deleted with what it names (erasure-steps.ts `derived`, `sessions`)",
  ),
  model_summaries: subject("deleted with its session (erasure-steps.ts `sessions`)"),
  model_queue: subject("deleted in the request and with each session"),
  model_calls: nothing("model calls per day and outcome: aggregate counts"),
  // Measurement
  served_contexts: subject("etags served for its profiles: deleted by rowid ranges (erasure-steps.ts `served`)"),
  context_uses: nothing("agent turns per day and source: aggregate counts"),
  // Search
  search_index: subject("rows under its profile tokens: messages, episodes, facts (erasure-steps.ts `search`)"),
  search_index_data: shadow("search_index"),
  search_index_idx: shadow("search_index"),
  search_index_content: shadow("search_index"),
  search_index_docsize: shadow("search_index"),
  search_index_config: nothing("FTS5's settings of `search_index`"),
  search_stems: subject("the same rowids as `search_index` (session-erasure.ts deleteSearchRows)"),
  search_stems_data: shadow("search_stems"),
  search_stems_idx: shadow("search_stems"),
  search_stems_content: shadow("search_stems"),
  search_stems_docsize: shadow("search_stems"),
  search_stems_config: nothing("FTS5's settings of `search_stems`"),
  search_turns: subject("each erased event's stems, by seq (erasure-steps.ts `events`)"),
  search_reindex: nothing("where the stemming of old rows stands: two rowids"),
  search_backlog: nothing("messages not indexed yet: seqs and profile ids; indexed before an erasure starts (erasures.ts)"),
  // The object's runtime
  timers: subject("payloads name profile ids (promise due dates): deleted with the session and at `tidy`"),
  inbox_folds: nothing("a random generation per inbox"),
  signing_keys: nothing("the object's own random keys"),
  // Privacy
  erasures: nothing("receipts: ids, counts, times, the keyed hash of the handles, a signature"),
  erasure_profiles: nothing("profile ids while an erasure runs (random ids); deleted when it completes"),
  erasure_handles: subject("the handles while their erasure runs, for the receipt's hash: deleted when it completes"),
  item_mentions: subject(
    "notes of its handles named in other subjects' items: deleted as those items are scrubbed (erasure-steps.ts `mentions`)",
  ),
  receipt_keys: nothing("the space's receipt-signing keys"),
  // Exports and the audit log
  exports: subject(
    "exports holding its profiles: deleted in the request (identity-cut.ts cutSubject), their files in R2 before the receipt (receipt-signer.ts)",
  ),
  export_profiles: subject("with their exports (identity-cut.ts cutSubject)"),
  // Media
  media: subject(
    "files reserved under its profiles or pointed to by their events: `erased` in the request, type, hash and subject cleared (media/erasure.ts eraseMedia, from identity-cut.ts), their R2 objects and then rows deleted before the receipt (deleteErasedMedia)",
  ),
  media_references: subject("every reference to a file it erases, and its events' (media/erasure.ts eraseMedia)"),
  // Imports
  imports: nothing("file imports: ids, R2 keys, column-free status, counts and offsets; never a value of the file"),
  import_errors: nothing("row numbers, codes and details that name fields and rules, never a value (imports/records.ts)"),
  import_rows: subject("deleted by profile in the request (imports/erasure.ts eraseImportRows, from identity-cut.ts)"),
  audit_log: nothing("who did what to which ids, when: ids only, never a handle or a text (src/audit/log.ts)"),
  // Replica of the control plane
  space_record: nothing("the space: id, name, tenant, project, region"),
  replica_keys: nothing("key records: ids, scopes, digests"),
  replica_sources: nothing("sources: kinds and what they may do"),
  replica_config: nothing("the configuration in force"),
  replica_token_cuts: nothing("person tokens cut before their expiry: ids and times"),
  replica_quotas: nothing("the tenant's quotas and this space's share: metrics and numbers"),
  // Quotas and rate limits
  rate_buckets: nothing("token buckets by space, key id or person id: numbers"),
  usage_counts: nothing("what the space used per metric and period: aggregate counts"),
  // Migrations
  __drizzle_migrations: nothing("which migrations ran"),
};

/** Tables of the platform (`_cf_*`) and of SQLite itself (`sqlite_*`): not the service's. */
export const isPlatformTable = (name: string) => name.startsWith("_cf_") || name.startsWith("sqlite_");
