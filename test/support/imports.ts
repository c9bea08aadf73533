import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { type ImportStatus, ImportStatusSchema } from "../../src/contract/imports";
import type { Env } from "../../src/env";
import { queue } from "../../src/queues/consumer";
import { importMessage } from "../../src/queues/messages";
import { call, json, type Space } from "./seed";

export const CSV = "text/csv";
export const NDJSON = "application/x-ndjson";

/** An NDJSON file of these items, one a line, the last line ended too. */
export const lines = (items: unknown[]) => `${items.map((item) => JSON.stringify(item)).join("\n")}\n`;

/** The keys of the import files R2 holds for the space (its own files, not media uploads). */
export async function storedFiles(space: Space): Promise<string[]> {
  const listed = await env.FILES.list({ prefix: `spaces/${space.name}/imports/` });
  return listed.objects.map((object) => object.key);
}

/** R2 as the reader sees it, except that each body breaks after `bytes` bytes: the reader dies midway. */
export function breakingAfter(bytes: number): Pick<R2Bucket, "get"> {
  return {
    async get(key: string, options?: R2GetOptions) {
      const object = await env.FILES.get(key, options);
      if (!object) return null;
      let passed = 0;
      const breaking = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          passed += chunk.length;
          if (passed > bytes) throw new Error("connection lost");
          controller.enqueue(chunk);
        },
      });
      return { body: object.body.pipeThrough(breaking) } as R2ObjectBody;
    },
  } as Pick<R2Bucket, "get">;
}

export function sendFile(
  space: Space,
  body: BodyInit,
  contentType: string | null,
  key = space.key,
  query = "",
): Promise<Response> {
  const headers: Record<string, string> = contentType === null ? {} : { "content-type": contentType };
  return call("POST", `/spaces/${space.name}/v1/ingest/files${query}`, { token: key, rawBody: body, headers });
}

/** A file sent, answered `202` with its `import_id`. */
export async function imported(space: Space, body: BodyInit, contentType: string): Promise<string> {
  const answer = await json<{ import_id: string }>(await sendFile(space, body, contentType), 202);
  return answer.import_id;
}

export async function importStatus(space: Space, importId: string, key = space.key): Promise<ImportStatus> {
  const response = await call("GET", `/spaces/${space.name}/v1/ingest/files/${importId}`, { token: key });
  return ImportStatusSchema.parse(await json(response, 200));
}

/** One delivery of the import's message to the consumer's handler, as the queue makes it; answers whether it was acknowledged. */
export async function deliver(space: Space, importId: string, files: Pick<R2Bucket, "get"> = env.FILES, attempts = 1) {
  const batch = createMessageBatch("imports", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts, body: importMessage(space.name, importId) },
  ]);
  const ctx = createExecutionContext();
  await queue(batch, { ...(env as Env), FILES: files as R2Bucket });
  const result = await getQueueResult(batch, ctx);
  return { acked: result.explicitAcks.length === 1, retried: result.retryMessages.length === 1 };
}

/** The import's status once it has ended: delivered to the consumer until it is (the queue's own delivery may come first). */
export async function finished(space: Space, importId: string): Promise<ImportStatus> {
  for (let round = 0; round < 20; round++) {
    const status = await importStatus(space, importId);
    if (status.status === "completed" || status.status === "failed") return status;
    await deliver(space, importId);
  }
  throw new Error("the import did not end");
}

/** The bytes cut at the given places (any place: in the middle of a character, of a CRLF, of a BOM, of a line break). */
export function cut(bytes: Uint8Array, places: readonly number[]): Uint8Array[] {
  const at = [...new Set(places.map((place) => place % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const to of at) {
    pieces.push(bytes.subarray(from, to));
    from = to;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}
