import { z } from "@hono/zod-openapi";

/**
 * Queue messages carry ids only (DESIGN §1), as a union on `type`. A message type without a
 * consumer yet (deliveries) is retried, never acknowledged, so nothing sent early is lost.
 */
export const QueueMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("import"), space: z.string(), import_id: z.string() }),
  z.object({ type: z.literal("delivery"), space: z.string(), delivery_id: z.string() }),
]);

export type QueueMessage = z.infer<typeof QueueMessageSchema>;

/** The message that has an import read (sent when its file is stored, and by a reading that ran out of time). */
export const importMessage = (space: string, importId: string): QueueMessage => ({ type: "import", space, import_id: importId });
