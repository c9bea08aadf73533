import { describe, expect, it, vi } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { StoredMediaSchema } from "../../src/contract/media";
import { CHUNK_ITEMS } from "../../src/space/request-pacing";
import { personToken, phone, query } from "../support/identity";
import { randomBytes, reserve, upload } from "../support/media";
import { forget } from "../support/privacy";
import { batch, call, createSpace, json, message } from "../support/seed";

/**
 * Media against what runs beside it (docs/api/media.md): a forget let in between the chunks of a
 * batch erases a file the batch's later chunks point to.
 */

describe("POST /v1/batch in chunks, a forget let in between them", () => {
  it("answers not_found for an item of a later chunk pointing to a file the forget erased, and notes no reference", async () => {
    const space = await createSpace();
    const subject = phone("+15555550151");
    const bytes = randomBytes(64);
    const file = await reserve(space, bytes, { subject });
    StoredMediaSchema.parse(await json(await upload(file, bytes), 200));
    const security = await personToken(space, ["security"]);
    // A request first, so that the batch is stored in chunks, with requests let in between them.
    expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: space.key })).status).toBe(200);
    const items = Array.from({ length: 5 * CHUNK_ITEMS - 1 }, () => message({ handles: [phone("+15555550152")] }));
    items.push(
      message({
        handles: [phone("+15555550152")],
        occurred_at: new Date(Date.now() - 1_000).toISOString(),
        content: { type: "audio", media_ref: file.media_ref, media_sha256: file.sha256 },
      }),
    );
    // The forget goes in where the batch gives way after its first chunk: that yield (only the
    // batch's: an alarm round may yield first on a busy machine) waits, a millisecond at a time, until
    // the forget sent from here is answered. The object never awaits a request to itself (a hang
    // of 90 s in two full runs when it did).
    let yielded = false;
    let answered = false;
    const wait = scheduler.wait.bind(scheduler);
    const between = vi.spyOn(scheduler, "wait").mockImplementation(async (ms, options) => {
      if (ms === 0 && !yielded && new Error().stack?.includes("batch-requests.ts")) {
        yielded = true;
        while (!answered) await wait(1);
      }
      return wait(ms, options);
    });
    try {
      let settled = false;
      const answering = batch(space, items).finally(() => {
        settled = true;
      });
      while (!yielded && !settled) await new Promise((resolve) => setTimeout(resolve, 1));
      expect(yielded, "the batch was stored in chunks").toBe(true);
      await forget(space, security, { handle: subject });
      answered = true;
      const answer = BatchAnswerSchema.parse(await json(await answering, 207));
      expect(answer).toEqual({
        accepted: items.length - 1,
        duplicates: 0,
        errors: [{ index: items.length - 1, code: "not_found", detail: "content.media_ref: no_such_media" }],
      });
    } finally {
      answered = true;
      between.mockRestore();
    }
    expect(await query(space, "SELECT media_ref FROM media_references")).toEqual([]);
  });
});
