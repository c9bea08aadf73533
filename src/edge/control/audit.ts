import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { ControlAudit } from "../../contract/audit";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { personOnly, refusedInput } from "./guards";

const auditRoute = createRoute({
  method: "get",
  path: "/v1/control-audit",
  summary: "Read the tenant's control-plane audit log",
  description:
    "Every governance action of the tenant's control plane, oldest first: logins (`auth.login`, and `auth.login_refused` under the person an e-mail names), logouts, people created, changed and removed, projects, spaces and sources created, keys created, rotated and revoked, configuration versions, and reads of this log; each with who, what (target ids), when, the request id and the outcome. Ids only, never personal data; no route changes or deletes it. What happens inside a space (profile reads, verdicts, exports) is in that space's `GET /v1/audit` (data API); the two logs are one shape, this one at its own path because the document lists both APIs' paths together. Filters: `from` (included), `to` (excluded), `actor`, `action`. Role `security` (or `admin`).",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.security, { action: "audit.read" })] as const,
  request: { query: ControlAudit.query },
  responses: {
    200: { description: "A page of entries.", content: { "application/json": { schema: ControlAudit.page } } },
    ...problems(401, 403, 422, 500, 503),
  },
});

export const controlAuditRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput }).openapi(auditRoute, async (c) =>
  c.json(unwrap(await controlObject(c.env).readAudit(c.get("person"), c.req.valid("query"), c.get("requestId"))), 200),
);
