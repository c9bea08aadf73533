import type { Context } from "hono";
import { Problem } from "../../http/problem";
import type { AppEnv } from "../context";

/** The space a data request addresses: the `:space` of `/spaces/:space`, where hosts are rewritten too. */
export function spaceOf(c: Context<AppEnv>): string {
  const space = c.req.param("space");
  if (!space) throw new Problem("not_found", "no such route");
  return space;
}
