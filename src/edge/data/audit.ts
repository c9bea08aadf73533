import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { SpaceAudit } from "../../contract/audit";
import { problems } from "../../contract/problem";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

const auditRoute = createRoute({
  method: "get",
  path: "/v1/audit",
  summary: "Read the space's audit log",
  description:
    "Every governance read and write of this space, oldest first: people's profile reads and lookups, suggestion verdicts, merge undos, exports (created, read, downloaded) and reads of this log, each with who (person or key id), what (action, target ids), when, the request id and the outcome (`ok` or the problem code it was refused with). Ids only, never personal data; no route changes or deletes it. Control-plane actions (logins, people, keys, configuration) are in the control API's `GET /v1/control-audit`. Filters: `from` (included), `to` (excluded), `actor`, `action`. A person with role `security` (or `admin`); a source key is `403 forbidden`.",
  security: [{ personToken: [] }],
  request: { query: SpaceAudit.query },
  responses: {
    200: { description: "A page of entries.", content: { "application/json": { schema: SpaceAudit.page } } },
    ...problems(401, 403, 422, 429, 500, 503),
  },
});

export const auditRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(auditRoutes, auditRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const query = SpaceAudit.query.parse(c.req.query());
  return c.json(unwrap(await space.readAudit(credential, query, requestId)), 200);
});
