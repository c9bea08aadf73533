import m0000 from "./0000_init.sql";
import m0001 from "./0001_identity.sql";
import m0002 from "./0002_memory.sql";
import m0003 from "./0003_memory_entries.sql";
import m0004 from "./0004_navigation.sql";
import m0005 from "./0005_search.sql";
import m0006 from "./0006_session_and_queue_order.sql";
import m0007 from "./0007_open_sessions.sql";
import m0008 from "./0008_items_without_time_index.sql";
import m0009 from "./0009_compile_queue_by_profile.sql";
import m0010 from "./0010_timers_by_key.sql";
import m0011 from "./0011_conversation_first_keys.sql";
import m0012 from "./0012_compile_inbox.sql";
import m0013 from "./0013_session_inbox.sql";
import m0014 from "./0014_handle_sightings.sql";
import m0015 from "./0015_session_events.sql";
import m0016 from "./0016_inbox_folds.sql";
import m0017 from "./0017_served_contexts_current.sql";
import m0018 from "./0018_search_stems.sql";
import m0019 from "./0019_linkage.sql";
import m0020 from "./0020_suggestion_patterns.sql";
import m0021 from "./0021_linkage_profiles.sql";
import m0022 from "./0022_search_turns.sql";
import m0023 from "./0023_model_summaries.sql";
import m0024 from "./0024_person_token_cuts_scoped_answers.sql";
import m0025 from "./0025_quotas_and_rate_limits.sql";
import m0026 from "./0026_audit_and_exports.sql";
import m0027 from "./0027_erasures.sql";
import m0028 from "./0028_media.sql";
import m0029 from "./0029_imports.sql";
import m0030 from "./0030_linkage_ids.sql";
import m0031 from "./0031_search_backlog.sql";
import m0032 from "./0032_item_mentions.sql";
import m0033 from "./0033_export_expiry.sql";
import m0034 from "./0034_linkage_text_keys.sql";
import m0035 from "./0035_control_items.sql";
import m0036 from "./0036_control_items_by_time.sql";
import m0037 from "./0037_search_turn_rows.sql";
import journal from "./meta/_journal.json";

export default {
  journal,
  migrations: {
    m0000,
    m0001,
    m0002,
    m0003,
    m0004,
    m0005,
    m0006,
    m0007,
    m0008,
    m0009,
    m0010,
    m0011,
    m0012,
    m0013,
    m0014,
    m0015,
    m0016,
    m0017,
    m0018,
    m0019,
    m0020,
    m0021,
    m0022,
    m0023,
    m0024,
    m0025,
    m0026,
    m0027,
    m0028,
    m0029,
    m0030,
    m0031,
    m0032,
    m0033,
    m0034,
    m0035,
    m0036,
    m0037,
  },
};
