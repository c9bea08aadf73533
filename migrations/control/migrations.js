import m0000 from "./0000_init.sql";
import m0001 from "./0001_person_token_cuts.sql";
import m0002 from "./0002_quotas.sql";
import m0003 from "./0003_audit_log.sql";
import m0004 from "./0004_owed_pushes.sql";
import m0005 from "./0005_login_failure_digests.sql";
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
  },
};
