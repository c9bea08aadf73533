import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SpaceObject } from "../../src/space/object";
import { isPlatformTable, SPACE_TABLES } from "../../src/space/privacy/registry";
import { stub } from "../support/memory";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/**
 * One rule for every store (docs/api/privacy.md): every table of a space's database is declared
 * in `src/space/privacy/registry.ts`, with how forget reaches it or why it holds no subject's
 * data. The tables are read from `sqlite_master`, so a table a later migration adds fails here
 * until it is declared.
 */
function tablesOf(space: Space): Promise<string[]> {
  return runInDurableObject(stub(space), (_instance: SpaceObject, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .toArray()
      .map((row) => row.name)
      .filter((name) => !isPlatformTable(name)),
  );
}

const undeclared = (tables: readonly string[]) => tables.filter((table) => !Object.hasOwn(SPACE_TABLES, table));

describe("forget: every table of a space is declared with how forget reaches it", () => {
  it("declares every table sqlite_master lists, and nothing that is not there", async () => {
    const space = await createSpace();
    await json(await batch(space, [message()]), 200);
    const tables = await tablesOf(space);
    expect(tables.length).toBeGreaterThan(40);
    expect(undeclared(tables)).toEqual([]);
    expect(Object.keys(SPACE_TABLES).filter((table) => !tables.includes(table))).toEqual([]);
    for (const [table, reach] of Object.entries(SPACE_TABLES)) {
      expect(reach.holds === "subject" ? reach.how : reach.reason, table).toMatch(/\w{3}/);
    }
  });

  it("fails for a table a migration would add without declaring it", async () => {
    const space = await createSpace();
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      state.storage.sql.exec("CREATE TABLE media_objects (media_ref TEXT PRIMARY KEY, profile_id TEXT)");
    });
    expect(undeclared(await tablesOf(space))).toEqual(["media_objects"]);
  });
});
