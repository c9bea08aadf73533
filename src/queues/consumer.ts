import type { Env } from "../env";
import { spaceObject } from "../space/address";
import { READ_BUDGET_MS, type ReadOptions, readImport } from "./imports";
import { importMessage, QueueMessageSchema } from "./messages";

/** How many deliveries a message gets (`max_retries` in wrangler.toml, plus the first). */
export const MAX_DELIVERIES = 11;

export function queue(batch: MessageBatch, env: Env): Promise<void> {
  return consume(batch, env, { files: env.FILES, budgetMs: READ_BUDGET_MS, clock: Date.now });
}

/**
 * One run of the consumer over a batch (up to `max_batch_size` messages, read one after another).
 * The read budget is the run's, not each message's: a consumer's wall time is 15 minutes for the
 * whole batch, so each message reads for what is left of `run.budgetMs`, and a message reached
 * with nothing left is not read but continued, as a reading that runs out of time is: its
 * message sent again for a later run, this one acknowledged.
 */
export async function consume(batch: MessageBatch, env: Env, run: ReadOptions): Promise<void> {
  const deadline = run.clock() + run.budgetMs;
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
      const left = deadline - run.clock();
      const outcome = left > 0 ? await readImport(env, body.space, body.import_id, { ...run, budgetMs: left }) : "continue";
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
