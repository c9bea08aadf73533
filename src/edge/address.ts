import type { Env } from "../env";
import type { Addresses } from "./openapi";

type Address = { api: "control" } | { api: "data"; space: string; region: string };

/** What a production host names: `<space>.<region>.<BASE_HOST>` or `control.<BASE_HOST>`; null elsewhere. */
export function addressOf(hostname: string, env: Env): Address | null {
  const suffix = `.${env.BASE_HOST}`;
  if (!hostname.endsWith(suffix)) return null;
  const labels = hostname.slice(0, -suffix.length).split(".");
  if (labels.length === 1 && labels[0] === "control") return { api: "control" };
  const [space, region] = labels;
  if (labels.length === 2 && space && region) return { api: "data", space, region };
  return null;
}

/**
 * Production addresses name the space in the host (DESIGN 3.1): `<space>.<region>.<BASE_HOST>`
 * is served as `/spaces/<space>/…` and `control.<BASE_HOST>` as `/control/…`. Any other host
 * (localhost, tests) uses those paths directly.
 */
export function routedRequest(request: Request, env: Env): Request {
  const url = new URL(request.url);
  const address = addressOf(url.hostname, env);
  if (!address || url.pathname === "/v1/openapi.json" || url.pathname === "/docs") return request;
  url.pathname = `${address.api === "control" ? "/control" : `/spaces/${address.space}`}${url.pathname}`;
  return new Request(url, request);
}

/**
 * Where both APIs are, as seen from a request's URL: the servers of the document it reads. On a
 * space's production host, that space and `control.<BASE_HOST>`; on the control host, a space
 * of this region; elsewhere the path prefixes of that origin (`space`: the one in the path).
 */
export function addressesSeenFrom(url: URL, env: Env, space = "demo"): Addresses {
  const address = addressOf(url.hostname, env);
  const port = url.port ? `:${url.port}` : "";
  if (address?.api === "data") return { baseUrl: url.origin, controlUrl: `${url.protocol}//control.${env.BASE_HOST}${port}` };
  if (address?.api === "control") {
    return { baseUrl: `${url.protocol}//${space}.${env.REGION}.${env.BASE_HOST}${port}`, controlUrl: url.origin };
  }
  return { baseUrl: `${url.origin}/spaces/${space}`, controlUrl: `${url.origin}/control` };
}
