import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  type ImportCreated,
  ImportCreatedSchema,
  ImportParamsSchema,
  ImportQuerySchema,
  ImportStatusSchema,
} from "../../contract/imports";
import { problems } from "../../contract/problem";
import { unwrap } from "../../http/problem";
import type { ImportRequest } from "../../space/imports/request";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { storeImportFile } from "../imports/file-store";
import { dataRequest } from "./space";

const fileBody = (description: string) => ({
  description,
  content: {
    "text/csv": { schema: z.string().openapi({ format: "binary" }) },
    "application/x-ndjson": { schema: z.string().openapi({ format: "binary" }) },
  },
  required: true,
});

const importRoute = createRoute({
  method: "post",
  path: "/v1/ingest/files",
  summary: "Import a file (CSV identities or NDJSON history)",
  description:
    "The body is the file, up to 512 MB with its `Content-Length`: `text/csv` seeds identity (each record one `identify` item, method `system_import`), `application/x-ndjson` backfills history (each line one batch item). It is streamed to R2 and read in the background through the same checks as `POST /v1/batch`; follow it at `GET /v1/ingest/files/{import_id}`. Workers plans take request bodies up to 100 MB (Free, Pro), 200 MB (Business) or 500 MB (Enterprise): a larger file goes through `POST /v1/media/uploads` and is imported with `?media_ref=` and an empty body. Source key with scope `track`.",
  security: [{ sourceKey: [] }],
  request: {
    query: ImportQuerySchema,
    body: fileBody("The file, with `Content-Type` `text/csv` or `application/x-ndjson` (empty with `media_ref`)."),
  },
  responses: {
    202: {
      description: "The file is stored and queued for import.",
      content: { "application/json": { schema: ImportCreatedSchema } },
    },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const statusRoute = createRoute({
  method: "get",
  path: "/v1/ingest/files/{import_id}",
  summary: "Follow a file import",
  description:
    "`status` (`queued`, `running`, then `completed` or `failed` with a `reason`), the counts so far and the first 100 row errors, updated as the file is read. Source key with scope `track`, or a person with role `integration`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: ImportParamsSchema },
  responses: {
    200: { description: "The import's status.", content: { "application/json": { schema: ImportStatusSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const importRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(importRoutes, importRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const headers = c.req.raw.headers;
  const length = headers.get("content-length");
  const request: ImportRequest = {
    contentType: headers.get("content-type"),
    contentLength: length === null ? (c.req.raw.body === null ? 0 : null) : Number(length),
  };
  const mediaRef = c.req.query("media_ref");
  if (mediaRef !== undefined) {
    const outcome = await space.importUpload(credential, request, mediaRef);
    await c.req.raw.body?.cancel();
    const answer: ImportCreated = { import_id: unwrap(outcome) };
    return c.json(answer, 202);
  }
  const receiving = await space.receiveImport(credential, request);
  if (!receiving.ok) await c.req.raw.body?.cancel();
  const { importId, objectKey } = unwrap(receiving);
  const file = await storeImportFile(c.env.FILES, objectKey, c.req.raw.body, request).catch(async (error: unknown) => {
    await space.importReceived(importId, null);
    throw error;
  });
  unwrap(await space.importReceived(importId, file));
  const answer: ImportCreated = { import_id: importId };
  return c.json(answer, 202);
});

documentedRoute(importRoutes, statusRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  return c.json(unwrap(await space.readImport(credential, c.req.param("import_id") ?? "")), 200);
});
