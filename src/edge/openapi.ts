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
  uploadToken: {
    type: "apiKey",
    in: "header",
    name: "X-Upload-Token",
    description: "The development store's upload token, from a reservation's `upload_headers`.",
  },
} as const;

/** Where a reader of the document finds both APIs: the defaults of `{base_url}` and `{control_url}`. */
export interface Addresses {
  baseUrl: string;
  controlUrl: string;
}

/** The addresses of `npm run dev` on its default port: the document as committed for the typed client. */
export const CANONICAL: Addresses = {
  baseUrl: "http://127.0.0.1:8787/spaces/demo",
  controlUrl: "http://127.0.0.1:8787/control",
};

function serversFor({ baseUrl, controlUrl }: Addresses) {
  return {
    dataServer: [{ url: "{base_url}", description: "Data API of one space", variables: { base_url: { default: baseUrl } } }],
    controlServer: [{ url: "{control_url}", description: "Control API", variables: { control_url: { default: controlUrl } } }],
  };
}

/**
 * The document with the servers' defaults of the address it is read from, so that a tool that
 * loads it calls the service it came from (on any port, space or host).
 */
export function documentAt(document: Document, addresses: Addresses): Document {
  const { dataServer, controlServer } = serversFor(addresses);
  const paths: NonNullable<Document["paths"]> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const data = item.servers?.[0]?.url === "{base_url}";
    paths[path] = { ...item, servers: data ? dataServer : controlServer };
  }
  return { ...document, servers: dataServer, paths };
}

/**
 * One OpenAPI 3.1 document for both APIs. Their paths share `/v1`, so each path names its own
 * server: `{base_url}` for the data API, `{control_url}` for the control API.
 */
export function openApiDocument(data: OpenAPIHono<AppEnv>, control: OpenAPIHono<AppEnv>): Document {
  const config = { openapi: "3.1.0", info: { title: "Customer Memory Service", version: "1.0.0" } };
  const dataDoc = data.getOpenAPI31Document(config);
  const controlDoc = control.getOpenAPI31Document(config);
  const { dataServer, controlServer } = serversFor(CANONICAL);
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
