import type { Env } from "../env";
import { spaceObject } from "../space/address";
import { READ_BUDGET_MS, readImport } from "./imports";
import { importMessage, QueueMessageSchema } from "./messages";

/** How many deliveries a message gets (`max_retries` in wrangler.toml, plus the first). */
export const MAX_DELIVERIES = 11;

export async function queue(batch: MessageBatch, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = QueueMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ message: "malformed queue message dropped", queue: batch.queue, id: message.id }));
      message.ack();
      continue;
    }
    const body = parsed.data;
    if (body.type !== "import") {
      message.retry({ delaySeconds: 60 });
      continue;
    }
    try {
      const outcome = await readImport(env, body.space, body.import_id, {
        files: env.FILES,
        budgetMs: READ_BUDGET_MS,
        clock: Date.now,
      });
      if (outcome === "continue") await env.IMPORTS.send(importMessage(body.space, body.import_id));
      message.ack();
    } catch {
      // The offset of the last chunk stored is kept: the next delivery reads on from there.
      console.error(JSON.stringify({ message: "import reading failed", import_id: body.import_id, attempts: message.attempts }));
      if (message.attempts < MAX_DELIVERIES) {
        message.retry({ delaySeconds: Math.min(60, 2 ** message.attempts) });
        continue;
      }
      const failure = `gave_up: reading failed ${message.attempts} times`;
      await spaceObject(env, body.space).endImport(body.import_id, { at: 0, failure });
      message.ack();
    }
  }
}
