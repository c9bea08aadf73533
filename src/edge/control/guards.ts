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

/** The audited route of a request whose person `personOnly` has verified. */
const audits = new WeakMap<Context, RouteAudit>();

/**
 * Route middleware: a person token holding one of the policy's roles, kept as `c.var.person`.
 * With `audit`, a person lacking the role is recorded before the `403` (`refuse`); a credential
 * that is no person (a source key `403`, anything else `401`) names nobody and is not.
 */
export function personOnly(policy: RoutePolicy, audit?: RouteAudit): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const person = await presentPerson(c);
    c.set("person", person);
    if (audit) audits.set(c, audit);
    try {
      authorize(person, policy);
    } catch (error) {
      await refuse(c, error);
    }
    await next();
  };
}

/** `jsonBody` for person routes: a body it refuses (`422`) is recorded first on an audited route. */
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

/** The control routes' validation hook: `invalidInput`'s `422`, recorded first on an audited route. */
export const refusedInput: Hook<unknown, AppEnv, string, Promise<void>> = async (result, c) => {
  try {
    invalidInput(result, c);
  } catch (error) {
    await refuse(c, error);
  }
};

/**
 * Throws a refusal of the edge. On an audited route (a person verified, `personOnly` with an
 * audit) a role the person lacks or input the edge could not take is first recorded by the
 * ControlObject, which checks the token before it records: a cut token is answered `401` instead.
 */
async function refuse(c: Context<AppEnv>, error: unknown): Promise<never> {
  const audit = audits.get(c);
  if (!audit || !(error instanceof Problem) || (error.code !== "forbidden" && error.code !== "invalid_input")) throw error;
  // Only the path's id: it is typed by the caller too, and the object keeps it only if it is one of ours.
  const id = audit.target ? c.req.param("id") : undefined;
  const targets = audit.target && id ? [{ type: audit.target, id }] : [];
  const refusal = { code: error.code, detail: error.detail };
  unwrap(await controlObject(c.env).refused(c.get("person"), audit.action, targets, refusal, c.get("requestId")));
  throw error;
}

/** Route middleware for platform operations. */
export const operatorOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireOperator(c);
  await next();
};
