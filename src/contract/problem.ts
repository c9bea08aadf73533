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

/** The problem answers a route can give, for its OpenAPI `responses`. */
export function problems(...statuses: number[]) {
  const out: Record<number, { description: string; content: typeof problemContent }> = {};
  for (const status of statuses) {
    const codes = Object.entries(CATALOG)
      .filter(([, entry]) => entry.status === status)
      .map(([code]) => code);
    out[status] = { description: codes.join(", "), content: problemContent };
  }
  return out;
}
