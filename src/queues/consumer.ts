import { z } from "@hono/zod-openapi";
import type { Env } from "../env";

/**
 * Queue messages carry ids only (DESIGN §1), as a union on `type`. No producer sends any yet:
 * imports and webhook deliveries come with their own issues. Until a message type has a
 * consumer it is retried, never acknowledged, so nothing sent early is lost.
 */
export const QueueMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("import"), space: z.string(), import_id: z.string() }),
  z.object({ type: z.literal("delivery"), space: z.string(), delivery_id: z.string() }),
]);

export async function queue(batch: MessageBatch, _env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = QueueMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ message: "malformed queue message dropped", queue: batch.queue, id: message.id }));
      message.ack();
      continue;
    }
    message.retry({ delaySeconds: 60 });
  }
}
