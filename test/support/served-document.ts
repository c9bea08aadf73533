import { type Schema, SchemaSet } from "./json-schema";
import { call, json, type Space } from "./seed";

/** The methods an OpenAPI path item can hold. */
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

/** One operation of the served document, its schemas adopted into the document's set. */
export interface Operation {
  /** Upper case: `POST`. */
  method: string;
  /** As documented: `/v1/profiles/{id}`. */
  path: string;
  /** The control API (the path's server is `{control_url}`) or a space's data API. */
  api: "control" | "data";
  parameters: Parameter[];
  /** The JSON request body, if the operation takes one. */
  body: Schema | null;
  /** The media type of a file the operation takes as its body instead of JSON (its first declared), if it does. */
  fileType: string | null;
  /** The first security scheme's name: `sourceKey`, `personToken`, `operatorToken`. */
  security: string | null;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

export interface ServedDocument {
  set: SchemaSet;
  operations: Operation[];
}

/** `GET /v1/openapi.json`, read into its operations: what clients and models see. */
export async function servedDocument(): Promise<ServedDocument> {
  const document = await json<{
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  }>(await call("GET", "/v1/openapi.json"), 200);
  const set = new SchemaSet(document.components.schemas);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const server = (item.servers as { url: string }[] | undefined)?.[0]?.url;
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const content = (operation.requestBody as { content?: Record<string, { schema: unknown }> } | undefined)?.content;
      const body = content?.["application/json"]?.schema;
      const security = (operation.security as Record<string, unknown>[] | undefined)?.[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        api: server === "{control_url}" ? "control" : "data",
        parameters: ((operation.parameters as Parameter[] | undefined) ?? []).map((parameter) => ({
          ...parameter,
          schema: set.adopt(parameter.schema),
        })),
        body: body ? set.adopt(body) : null,
        fileType: content && !body ? (Object.keys(content)[0] ?? null) : null,
        security: security ? (Object.keys(security)[0] ?? null) : null,
        responses: set.adopt(operation.responses) as Operation["responses"],
      });
    }
  }
  return { set, operations };
}

/** Where an operation's path goes: after `/control`, or after the space's `/spaces/<name>`. */
export function prefixOf(api: Operation["api"], space: Space): string {
  return api === "control" ? "/control" : `/spaces/${space.name}`;
}
