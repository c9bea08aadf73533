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
    // The forget goes in where the batch gives way after its first chunk, and runs to its answer
    // there. Only the batch's yield: an alarm round that yields first (the machine busy) would
    // otherwise wait inside itself for a forget that waits for it.
    let erasure: ReturnType<typeof forget> | null = null;
    const wait = scheduler.wait.bind(scheduler);
    const between = vi.spyOn(scheduler, "wait").mockImplementation(async (ms, options) => {
      if (ms === 0 && erasure === null && new Error().stack?.includes("batch-requests.ts")) {
        erasure = forget(space, security, { handle: subject });
        await erasure;
      }
      return wait(ms, options);
    });
    try {
      const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 207));
      expect(erasure).not.toBeNull();
      expect(answer).toEqual({
        accepted: items.length - 1,
        duplicates: 0,
        errors: [{ index: items.length - 1, code: "not_found", detail: "content.media_ref: no_such_media" }],
      });
    } finally {
      between.mockRestore();
    }
    expect(await query(space, "SELECT media_ref FROM media_references")).toEqual([]);
  });
});
