import type { Env } from "../env";

/** The deployment's one control object. */
export function controlObject(env: Env) {
  return env.CONTROL.get(env.CONTROL.idFromName("control"));
}
