import type { PersonActor } from "../auth/person-token";
import type { Env } from "../env";
import type { EdgeSecrets } from "./secrets";

/** What the edge keeps per request. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    secrets: EdgeSecrets;
    /** Set on control routes by `personOnly`. */
    person: PersonActor;
  };
}
