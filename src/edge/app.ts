import { OpenAPIHono } from "@hono/zod-openapi";
import { Problem } from "../http/problem";
import { problemResponse } from "../http/render";
import { addressesSeenFrom } from "./address";
import type { AppEnv } from "./context";
import { controlAuditRoutes } from "./control/audit";
import { authRoutes } from "./control/auth";
import { configRoutes } from "./control/config";
import { keyRoutes } from "./control/keys";
import { peopleRoutes } from "./control/people";
import { projectRoutes } from "./control/projects";
import { quotaRoutes } from "./control/quotas";
import { sourceRoutes } from "./control/sources";
import { tenantRoutes } from "./control/tenants";
import { auditRoutes } from "./data/audit";
import { batchRoutes } from "./data/batch";
import { contextRoutes } from "./data/context";
import { exportRoutes } from "./data/exports";
import { feedbackRoutes } from "./data/feedback";
import { historyRoutes } from "./data/history";
import { identityRoutes } from "./data/identity";
import { importRoutes } from "./data/imports";
import { mcpReference, mcpRoutes } from "./data/mcp";
import { measurementRoutes } from "./data/measurement";
import { mediaRoutes } from "./data/media";
import { memoryStatsRoutes } from "./data/memory-stats";
import { privacyRoutes } from "./data/privacy";
import { profileRoutes } from "./data/profiles";
import { searchRoutes } from "./data/search";
import { timelineRoutes } from "./data/timeline";
import { whoamiRoutes } from "./data/whoami";
import { documentAt, openApiDocument } from "./openapi";
import { referencePage } from "./reference-page";
import { requestContext } from "./request-context";
import { RouteTable } from "./route-table";
import { edgeSecrets } from "./secrets";
import { invalidInput } from "./validation";

/** Data API of one space, mounted at `/spaces/:space` (hosts `<space>.<region>.<BASE_HOST>` are rewritten to it). */
const dataApi = new OpenAPIHono<AppEnv>({ defaultHook: invalidInput })
  .route("/", batchRoutes)
  .route("/", whoamiRoutes)
  .route("/", profileRoutes)
  .route("/", contextRoutes)
  .route("/", searchRoutes)
  .route("/", historyRoutes)
  .route("/", timelineRoutes)
  .route("/", feedbackRoutes)
  .route("/", memoryStatsRoutes)
  .route("/", measurementRoutes)
  .route("/", identityRoutes)
  .route("/", exportRoutes)
  .route("/", auditRoutes)
  .route("/", privacyRoutes)
  .route("/", mediaRoutes)
  .route("/", importRoutes);

/** Control API, mounted at `/control` (host `control.<BASE_HOST>` is rewritten to it). */
const controlApi = new OpenAPIHono<AppEnv>({ defaultHook: invalidInput })
  .route("/", tenantRoutes)
  .route("/", authRoutes)
  .route("/", peopleRoutes)
  .route("/", projectRoutes)
  .route("/", sourceRoutes)
  .route("/", keyRoutes)
  .route("/", configRoutes)
  .route("/", quotaRoutes)
  .route("/", controlAuditRoutes);

export const DATA_PREFIX = "/spaces/:space";
export const CONTROL_PREFIX = "/control";

const document = openApiDocument(dataApi, controlApi);
const page = referencePage(document, [mcpReference]);

const routes = new RouteTable();
routes.addApi(DATA_PREFIX, dataApi);
routes.addApi(CONTROL_PREFIX, controlApi);
// MCP (JSON-RPC over POST) is no OpenAPI path; GET and DELETE on it are 405, a query is refused.
routes.add(DATA_PREFIX, "/mcp", "POST", new Set());
for (const path of ["/v1/openapi.json", "/docs"]) {
  for (const prefix of ["", DATA_PREFIX, CONTROL_PREFIX]) routes.add(prefix, path, "GET");
}

export const app = new OpenAPIHono<AppEnv>({ defaultHook: invalidInput });

app.use(requestContext);
app.use(async (c, next) => {
  c.set("secrets", await edgeSecrets(c.env));
  await next();
});
// The method and path are answered before any route runs: an unknown path is `404`, `OPTIONS` is
// `204` with `Allow`, a method the path does not have is `405` with the same `Allow`, and only then
// are the query's parameter names checked (part of the address: named nowhere).
app.use(async (c, next) => {
  const resolution = routes.resolve(c.req.method, c.req.path);
  switch (resolution.outcome) {
    case "not_found":
      throw new Problem("not_found", "no such route");
    case "options":
      return c.body(null, 204, { Allow: resolution.allow });
    case "method_not_allowed":
      throw new Problem("method_not_allowed", "this method is not allowed here; see Allow", { Allow: resolution.allow });
    case "route": {
      const query = new URL(c.req.url).searchParams;
      if (resolution.query && query.size > 0) {
        for (const name of query.keys()) {
          if (!resolution.query.has(name)) throw new Problem("invalid_input", "query: unknown_field");
        }
      }
      await next();
    }
  }
});

for (const prefix of ["", DATA_PREFIX, CONTROL_PREFIX]) {
  app.get(`${prefix}/v1/openapi.json`, (c) =>
    c.json(documentAt(document, addressesSeenFrom(new URL(c.req.url), c.env, c.req.param("space")))),
  );
  app.get(`${prefix}/docs`, (c) => c.html(page));
}
app.route(DATA_PREFIX, dataApi);
app.route(DATA_PREFIX, mcpRoutes);
app.route(CONTROL_PREFIX, controlApi);

// Reached only if the router and the table above disagree: the table's answer all the same.
app.notFound((c) => {
  const allowed = routes.allowed(c.req.path);
  const problem =
    allowed.length > 0
      ? new Problem("method_not_allowed", "this method is not allowed here; see Allow", { Allow: allowed.join(", ") })
      : new Problem("not_found", "no such route");
  return problemResponse(problem, c.get("requestId"), c.env.ERRORS_URL);
});

app.onError((error, c) => {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  if (error instanceof Problem) return problemResponse(error, requestId, c.env.ERRORS_URL);
  // The error's class and where it was thrown; not its message, which can quote input
  // (a SyntaxError quotes the text it failed on).
  console.error(JSON.stringify({ request_id: requestId, error: error.name, at: error.stack?.split("\n")[1]?.trim() ?? null }));
  return problemResponse(new Problem("internal_error", "unexpected failure; retry with backoff"), requestId, c.env.ERRORS_URL);
});
