import { describe, expect, it } from "vitest";
import { fullContext, later } from "../support/memory";
import { batch, createSpace, json, message } from "../support/seed";

const PHONE = "+15555550123";
const handle = { type: "phone_e164", value: PHONE };

describe("context: live on the next read, memory compiled after", () => {
  it("answers a message in live at once, and in memory after the compile", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        message({ handles: [handle], conversation_id: "wa-1", content: { text: "Where is my order? My postcode is 28001." } }),
      ]),
      200,
    );
    const first = await fullContext(space, { handle });
    expect(first.live.map((item) => item.text)).toEqual(["Where is my order? My postcode is 28001."]);
    expect(first.compiled).toEqual({ version: 0, through: null, pending: 1 });

    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.compiled.version).toBe(1);
    expect(compiled.compiled.pending).toBe(0);
    expect(compiled.memory.facts.map((fact) => [fact.key, fact.value])).toEqual([["postcode", "28001"]]);
    expect(compiled.memory.open_items.map((item) => item.kind)).toEqual(["question"]);
    expect(compiled.memory.episodes).toHaveLength(1);
    expect(compiled.live).toHaveLength(1);
  });
});
