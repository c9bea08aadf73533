import type { Env } from "../env";

/** The object that owns a space, by the space's name (the name its host and keys carry). */
export function spaceObject(env: Env, name: string) {
  return env.SPACE.get(env.SPACE.idFromName(name));
}
