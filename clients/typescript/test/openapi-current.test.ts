import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import committed from "../openapi.json";

/**
 * The committed types are what the current document generates, in two halves: here, that the
 * document the Worker serves is the committed openapi.json; in Node (`npm run client:check`,
 * run by the root `npm test` before vitest), that openapi.json generates src/schema.ts exactly.
 */

/** JSON pointers where `a` and `b` differ (at most `limit`). */
function differences(a: unknown, b: unknown, at = "", limit = 20, out: string[] = []): string[] {
  if (out.length >= limit) return out;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) {
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(at || "/");
    return out;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    differences(left[key], right[key], `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, limit, out);
  }
  return out;
}

describe("typed client: generated from the current OpenAPI document", () => {
  it("serves the document that clients/typescript/openapi.json holds (else run `npm run client:generate`)", async () => {
    // Read where `npm run dev` serves it: the servers' defaults name the address it is read from.
    const response = await SELF.fetch("http://127.0.0.1:8787/v1/openapi.json");
    expect(response.status).toBe(200);
    const served = await response.json();
    expect(differences(served, committed)).toEqual([]);
    // Key order too: the snapshot is the served text, pretty-printed.
    expect(JSON.stringify(served)).toBe(JSON.stringify(committed));
  });
});
