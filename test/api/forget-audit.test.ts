import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SpaceAudit } from "../../src/contract/audit";
import { BatchAnswerSchema } from "../../src/contract/batch";
import type { Env } from "../../src/env";
import type { SpaceObject } from "../../src/space/object";
import { personToken, phone, restartSpaceObject, spaceStub } from "../support/identity";
import { reserve, upload } from "../support/media";
import { forgetResponse } from "../support/privacy";
import { batch, call, createSpace, json, message } from "../support/seed";

/**
 * A forget is in the audit log from the moment its erasure starts: the row is written in the
 * erasure's own transaction, so an object that restarts before the answer (R2 hanging while the
 * subject's files are deleted) keeps an erasure that the log names (docs/api/privacy.md "Audit").
 */
describe("forget: audited in the transaction that starts the erasure", () => {
  it("keeps the forget's audit row when the object restarts before the answer", async () => {
    const space = await createSpace();
    const subject = phone("+15555550481");
    expect(BatchAnswerSchema.parse(await json(await batch(space, [message({ handles: [subject] })]), 200)).accepted).toBe(1);
    const bytes = new TextEncoder().encode("a voice note");
    const reservation = await reserve(space, bytes, { subject });
    expect((await upload(reservation, bytes)).status).toBe(200);

    // R2 never answers a delete: the request waits after its erasure committed.
    await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
      (instance as unknown as { env: Env }).env.FILES.delete = () => new Promise<never>(() => {});
    });
    const security = await personToken(space, ["security"]);
    const answer = forgetResponse(space, security, { handle: subject }).catch(() => null);
    for (let waited = 0; waited < 50; waited++) {
      const started = await runInDurableObject(
        spaceStub(space),
        (_instance, state) => state.storage.sql.exec("SELECT 1 FROM erasures").toArray().length > 0,
      );
      if (started) break;
      await scheduler.wait(20);
    }
    await restartSpaceObject(space);
    await answer;

    const page = SpaceAudit.page.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/audit?action=forget`, { token: security }), 200),
    );
    expect(page.data.map((entry) => [entry.action, entry.outcome, entry.targets.map((target) => target.type)])).toEqual([
      ["forget", "ok", ["receipt"]],
    ]);
  });
});
