import type { Env } from "../env";

/**
 * Production addresses name the space in the host (DESIGN 3.1): `<space>.<region>.<BASE_HOST>`
 * is served as `/spaces/<space>/…` and `control.<BASE_HOST>` as `/control/…`. Any other host
 * (localhost, tests) uses those paths directly.
 */
export function routedRequest(request: Request, env: Env): Request {
  const url = new URL(request.url);
  const suffix = `.${env.BASE_HOST}`;
  if (!url.hostname.endsWith(suffix)) return request;
  const labels = url.hostname.slice(0, -suffix.length).split(".");
  let prefix: string | undefined;
  if (labels.length === 1 && labels[0] === "control") prefix = "/control";
  else if (labels.length === 2 && labels[0]) prefix = `/spaces/${labels[0]}`;
  if (!prefix || url.pathname === "/v1/openapi.json" || url.pathname === "/docs") return request;
  url.pathname = `${prefix}${url.pathname}`;
  return new Request(url, request);
}
