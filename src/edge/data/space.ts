import type { Context } from "hono";
import type { PresentedCredential } from "../../auth/credential";
import { Problem } from "../../http/problem";
import { spaceObject } from "../../space/address";
import type { AppEnv } from "../context";
import { presentCredential } from "../credentials";

/** The space a data request addresses: the `:space` of `/spaces/:space`, where hosts are rewritten too. */
export function spaceOf(c: Context<AppEnv>): string {
  const space = c.req.param("space");
  if (!space) throw new Problem("not_found", "no such route");
  return space;
}

/**
 * The start of every data route: the space's object, the credential as far as the edge checks
 * it, and the request's id (governance routes hand it to the audit log).
 */
export async function dataRequest(
  c: Context<AppEnv>,
): Promise<{ space: ReturnType<typeof spaceObject>; credential: PresentedCredential; requestId: string }> {
  const name = spaceOf(c);
  return { space: spaceObject(c.env, name), credential: await presentCredential(c, name), requestId: c.get("requestId") };
}
