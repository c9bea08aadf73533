import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  DownloadQuerySchema,
  ExportInputSchema,
  ExportParamsSchema,
  type ExportRecord,
  ExportSchema,
} from "../../contract/exports";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { Problem, unwrap } from "../../http/problem";
import { r2Endpoint } from "../../r2/presign";
import { isDevelopment } from "../../secrets";
import { spaceObject } from "../../space/address";
import { addressesSeenFrom } from "../address";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest, spaceOf } from "./space";

const EXPORT_BODY_LIMIT = 16 * 1024;

const PEOPLE =
  "A person with role `security` (or `admin`); a source key is `403 forbidden`. Recorded in the audit log. Masking does not apply: values are whole.";

const exportAnswer = (description: string) => ({
  description,
  content: { "application/json": { schema: ExportSchema } },
});

const createRoute_ = createRoute({
  method: "post",
  path: "/v1/exports",
  summary: "Export a subject's data",
  description: `Writes the subject's profile (and the profiles merged into it), handles, events and memory (episodes, facts, open items, promises, objects) as NDJSON to storage, one record per line. A small subject is written at once (\`201\`, \`completed\`, with its download link); a larger one is written on in slices (\`202\`, \`running\`): read \`GET /v1/exports/{export_id}\` until it is \`completed\`. An unknown handle or profile is \`404\`. ${PEOPLE}`,
  security: [{ personToken: [] }],
  request: { body: { content: { "application/json": { schema: ExportInputSchema } }, required: true } },
  responses: {
    201: exportAnswer("Completed at once, with its download link."),
    202: exportAnswer("Being written: `running`."),
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const readRoute = createRoute({
  method: "get",
  path: "/v1/exports/{export_id}",
  summary: "Read an export's status",
  description: `State, counts, times; once \`completed\`, a download link valid one hour, fresh with each read. ${PEOPLE}`,
  security: [{ personToken: [] }],
  request: { params: ExportParamsSchema },
  responses: { 200: exportAnswer("The export."), ...problems(401, 403, 404, 422, 429, 500, 503) },
});

const downloadRoute = createRoute({
  method: "get",
  path: "/v1/exports/{export_id}/download",
  summary: "Download an export (development links)",
  description:
    "What a development download link points at: no `Authorization`, the link's `token` is the credential (signed by the space, bound to the export, valid one hour). A tampered or expired token is `401`; an export erased or not completed is `404`. In production links are R2 presigned URLs and R2 serves the file. Each download is recorded in the audit log (actor kind `link`).",
  request: { params: ExportParamsSchema, query: DownloadQuerySchema },
  responses: {
    200: {
      description: "The file: one JSON object per line, `record` naming its kind.",
      content: { "application/x-ndjson": { schema: z.string() } },
    },
    ...problems(401, 404, 422, 429, 500, 503),
  },
});

export const exportRoutes = new OpenAPIHono<AppEnv>();

/** A development link is a path under the space's base address: made whole here, as the caller sees the service. */
function answered(c: Context<AppEnv>, record: ExportRecord): ExportRecord {
  if (!record.download?.url.startsWith("/")) return record;
  const { baseUrl } = addressesSeenFrom(new URL(c.req.url), c.env, spaceOf(c));
  return { ...record, download: { ...record.download, url: `${baseUrl}${record.download.url}` } };
}

documentedRoute(exportRoutes, createRoute_, async (c) => {
  // Checked first: production without R2's settings writes no file nobody could download.
  if (!isDevelopment(c.env)) r2Endpoint(c.env, "download links");
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, EXPORT_BODY_LIMIT);
  const record = unwrap(await space.createExport(credential, body, requestId));
  return c.json(answered(c, record), record.state === "completed" ? 201 : 202);
});

documentedRoute(exportRoutes, readRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const record = unwrap(await space.readExport(credential, c.req.param("export_id") ?? "", requestId));
  return c.json(answered(c, record), 200);
});

documentedRoute(exportRoutes, downloadRoute, async (c) => {
  const exportId = c.req.param("export_id") ?? "";
  const { token } = DownloadQuerySchema.parse(c.req.query());
  const space = spaceObject(c.env, spaceOf(c));
  const { objectKey } = unwrap(await space.openExportDownload(exportId, token, c.get("requestId")));
  const file = await c.env.FILES.get(objectKey);
  if (!file) throw new Problem("not_found", "no such export");
  return c.body(file.body, 200, {
    "Content-Type": "application/x-ndjson",
    "Content-Length": String(file.size),
    "Content-Disposition": `attachment; filename="export-${exportId}.ndjson"`,
    "Cache-Control": "no-store",
  });
});
