import type { Hook } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { authorize, type RoutePolicy } from "../../auth/policy";
import type { AuditTargetType, ControlAuditAction } from "../../contract/audit";
import { controlObject } from "../../control/address";
import { Problem, unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { presentPerson, requireOperator } from "../credentials";
import { jsonBody } from "../json-body";
import { invalidInput } from "../validation";

/**
 * What a control route records of a person the edge refuses on it (docs/api/privacy.md#audit):
 * the route's action in the tenant's control log, and the path's `{id}` as a target of type
 * `target` (kept only when it is an id of the service's own syntax, as every target).
 */
export interface RouteAudit {
  action: ControlAuditAction;
  target?: AuditTargetType;
}

/** The requests whose person `personOnly` has verified, with the route's audit (null: none). */
const verified = new WeakMap<Context, RouteAudit | null>();

/**
 * Route middleware: a person token holding one of the policy's roles, kept as `c.var.person`.
 * A person lacking the role is refused only after the ControlObject has checked the token, so an
 * ended token is `401` whatever its roles (`refuse`); with `audit`, the refusal is recorded. A
 * credential that is no person (a source key `403`, anything else `401`) names nobody.
 */
export function personOnly(policy: RoutePolicy, audit?: RouteAudit): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const person = await presentPerson(c);
    c.set("person", person);
    verified.set(c, audit ?? null);
    try {
      authorize(person, policy);
    } catch (error) {
      await refuse(c, error);
    }
    await next();
  };
}

/** `jsonBody` for person routes: a body it refuses (`422`) goes through `refuse`. */
export const jsonInput: MiddlewareHandler<AppEnv> = async (c, next) => {
  let read = false;
  try {
    await jsonBody(c, async () => {
      read = true;
      await next();
    });
  } catch (error) {
    if (read) throw error;
    await refuse(c, error);
  }
};

/** The control routes' validation hook: `invalidInput`'s `422`, through `refuse` on a person route. */
export const refusedInput: Hook<unknown, AppEnv, string, Promise<void>> = async (result, c) => {
  try {
    invalidInput(result, c);
  } catch (error) {
    await refuse(c, error);
  }
};

/**
 * Throws a refusal of the edge. On a person route, a role the person lacks or input the edge could
 * not take is answered only after the ControlObject has checked the token (the edge verifies only
 * its signature and expiry): a cut token is answered `401` instead. On an audited route the
 * object records the refusal as it checks; on another, it only checks. A request that passes
 * needs no such call: the route's own call to the object checks the token.
 */
async function refuse(c: Context<AppEnv>, error: unknown): Promise<never> {
  const audit = verified.get(c);
  if (audit === undefined || !(error instanceof Problem) || (error.code !== "forbidden" && error.code !== "invalid_input")) {
    throw error;
  }
  const control = controlObject(c.env);
  if (!audit) {
    // `me` checks the token and reads the person, nothing else.
    unwrap(await control.me(c.get("person")));
    throw error;
  }
  // Only the path's id: it is typed by the caller too, and the object keeps it only if it is one of ours.
  const id = audit.target ? c.req.param("id") : undefined;
  const targets = audit.target && id ? [{ type: audit.target, id }] : [];
  const refusal = { code: error.code, detail: error.detail };
  unwrap(await control.refused(c.get("person"), audit.action, targets, refusal, c.get("requestId")));
  throw error;
}

/** Route middleware for platform operations. */
export const operatorOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireOperator(c);
  await next();
};
