/**
 * The API reference at `/docs`: rendered on the server from the OpenAPI document, so it works
 * offline and loads nothing from elsewhere.
 */
interface Operation {
  summary?: string;
  description?: string;
  responses?: Record<string, { description?: string }>;
}

/** An endpoint the OpenAPI document does not hold (its body is not one of the API's schemas), such as MCP. */
export interface OtherEndpoint {
  method: string;
  url: string;
  summary: string;
  description: string;
  /** Listed below the description, each a name and what it does. */
  items: { name: string; text: string }[];
}

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

export function referencePage(document: { paths?: Record<string, unknown> }, others: OtherEndpoint[] = []): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const { servers, ...operations } = item as Record<string, unknown> & { servers?: { url: string }[] };
    for (const [method, value] of Object.entries(operations)) {
      const operation = value as Operation;
      const responses = Object.entries(operation.responses ?? {})
        .map(([status, response]) => `<li><code>${status}</code> ${escapeHtml(response.description ?? "")}</li>`)
        .join("");
      sections.push(
        `<section><h2><code>${method.toUpperCase()} ${escapeHtml(servers?.[0]?.url ?? "")}${escapeHtml(path)}</code></h2>` +
          `<p><strong>${escapeHtml(operation.summary ?? "")}</strong></p><p>${escapeHtml(operation.description ?? "")}</p>` +
          `<ul>${responses}</ul></section>`,
      );
    }
  }
  for (const endpoint of others) {
    const items = endpoint.items
      .map((item) => `<li><code>${escapeHtml(item.name)}</code> ${escapeHtml(item.text)}</li>`)
      .join("");
    sections.push(
      `<section><h2><code>${escapeHtml(endpoint.method)} ${escapeHtml(endpoint.url)}</code></h2>` +
        `<p><strong>${escapeHtml(endpoint.summary)}</strong></p><p>${escapeHtml(endpoint.description)}</p><ul>${items}</ul></section>`,
    );
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Customer Memory Service API</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}section{border-top:1px solid #ddd;padding:.5rem 0}h2{font-size:1rem}</style>
</head><body><h1>Customer Memory Service API</h1><p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>${sections.join("")}</body></html>`;
}
