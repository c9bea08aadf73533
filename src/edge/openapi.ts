import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context";

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

const SECURITY_SCHEMES = {
  sourceKey: {
    type: "http",
    scheme: "bearer",
    description: "Source key `<prefix>_<live|test>_<region>_<space>_<key_id>_<secret>`.",
  },
  personToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Person token from `POST /v1/auth/login`." },
  operatorToken: { type: "apiKey", in: "header", name: "X-Service-Operator-Token" },
} as const;

/**
 * One OpenAPI 3.1 document for both APIs. Their paths share `/v1`, so each path names its own
 * server: `{base_url}` for the data API, `{control_url}` for the control API.
 */
export function openApiDocument(data: OpenAPIHono<AppEnv>, control: OpenAPIHono<AppEnv>): Document {
  const config = { openapi: "3.1.0", info: { title: "Customer Memory Service", version: "1.0.0" } };
  const dataDoc = data.getOpenAPI31Document(config);
  const controlDoc = control.getOpenAPI31Document(config);
  const dataServer = [
    {
      url: "{base_url}",
      description: "Data API of one space",
      variables: { base_url: { default: "http://127.0.0.1:8787/spaces/demo" } },
    },
  ];
  const controlServer = [
    {
      url: "{control_url}",
      description: "Control API",
      variables: { control_url: { default: "http://127.0.0.1:8787/control" } },
    },
  ];
  const paths: NonNullable<Document["paths"]> = {};
  for (const [path, item] of Object.entries(dataDoc.paths ?? {})) paths[path] = { ...item, servers: dataServer };
  for (const [path, item] of Object.entries(controlDoc.paths ?? {})) {
    if (paths[path]) throw new Error(`path ${path} is in both APIs`);
    paths[path] = { ...item, servers: controlServer };
  }
  return {
    ...dataDoc,
    info: {
      ...config.info,
      description:
        "Data API (one space, at `{base_url}`) and control API (at `{control_url}`). Errors are `application/problem+json`.",
    },
    servers: dataServer,
    paths,
    components: {
      schemas: { ...dataDoc.components?.schemas, ...controlDoc.components?.schemas },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
