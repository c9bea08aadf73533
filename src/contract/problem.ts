import { z } from "@hono/zod-openapi";
import { CATALOG } from "../http/problem";

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(CATALOG) as [keyof typeof CATALOG, ...(keyof typeof CATALOG)[]]),
    detail: z.string().nullable(),
    request_id: z.string().nullable(),
  })
  .openapi("Problem");

const problemContent = { "application/problem+json": { schema: ProblemSchema } };

/** A `429` says when to come back. */
const retryAfter = {
  "Retry-After": {
    description: "Whole seconds to wait before the request can pass.",
    required: true,
    schema: { type: "integer" as const, minimum: 1 },
  },
};

/** The problem answers a route can give, for its OpenAPI `responses`. */
export function problems(...statuses: number[]) {
  const out: Record<number, { description: string; content: typeof problemContent; headers?: typeof retryAfter }> = {};
  for (const status of statuses) {
    const codes = Object.entries(CATALOG)
      .filter(([, entry]) => entry.status === status)
      .map(([code]) => code);
    out[status] = { description: codes.join(", "), content: problemContent, ...(status === 429 ? { headers: retryAfter } : {}) };
  }
  return out;
}
