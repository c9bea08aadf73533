import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { ProblemSchema } from "../../src/contract/problem";
import { implicitTransaction } from "../../src/space/implicit-transaction";
import type { SpaceObject } from "../../src/space/object";
import { query, spaceStub as stub } from "../support/identity";
import { batch, createSpace, json, message } from "../support/seed";

/**
 * A batch's chunk and an alarm round commit with the object's turn, with no savepoint of their own
 * (src/space/implicit-transaction.ts): a write that fails resets the object and drops the turn's
 * writes, so that nothing of the chunk is stored, and a resend stores it whole.
 */

describe("a write that fails within a turn", () => {
  it("drops every write of the turn, and the object goes on after its reset", async () => {
    const space = await createSpace();
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      state.storage.sql.exec("CREATE TABLE turn_probe (v integer)");
    });
    const failed = await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      implicitTransaction(state)(() => {
        state.storage.sql.exec("INSERT INTO turn_probe (v) VALUES (1)");
        throw new Error("a write failed");
      });
    }).then(
      () => "stored",
      () => "failed",
    );
    expect(failed).toBe("failed");
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      implicitTransaction(state)(() => state.storage.sql.exec("INSERT INTO turn_probe (v) VALUES (2)"));
    });
    expect(await query(space, "SELECT v FROM turn_probe")).toEqual([{ v: 2 }]);
  });

  it("stores nothing of a batch whose write fails after its items went in; the resend stores each item once", async () => {
    const space = await createSpace();
    const items = Array.from({ length: 20 }, () => message());
    // The search backlog is written after the items: a trigger makes that write fail.
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      state.storage.sql.exec(
        "CREATE TRIGGER fail_backlog BEFORE INSERT ON search_backlog BEGIN SELECT RAISE(ABORT, 'backlog refused'); END",
      );
    });
    const refused = ProblemSchema.parse(await json(await batch(space, items), 500));
    expect(refused).toMatchObject({ code: "internal_error", status: 500 });
    expect(refused.request_id).toBeTruthy();
    expect(await query(space, "SELECT count(*) AS n FROM items")).toEqual([{ n: 0 }]);
    expect(await query(space, "SELECT count(*) AS n FROM handles")).toEqual([{ n: 0 }]);

    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      state.storage.sql.exec("DROP TRIGGER fail_backlog");
    });
    const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 200));
    expect(answer).toEqual({ accepted: 20, duplicates: 0, errors: [] });
    expect(await query(space, "SELECT count(*) AS n FROM items")).toEqual([{ n: 20 }]);
  });
});
