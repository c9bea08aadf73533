import type { MiddlewareHandler } from "hono";
import type { RoutePolicy } from "../../auth/policy";
import type { AppEnv } from "../context";
import { requireOperator, requirePerson } from "../credentials";

/** Route middleware: a person token holding one of the policy's roles, kept as `c.var.person`. */
export function personOnly(policy: RoutePolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("person", await requirePerson(c, policy));
    await next();
  };
}

/** Route middleware for platform operations. */
export const operatorOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireOperator(c);
  await next();
};
