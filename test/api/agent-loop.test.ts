import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { run } from "../../examples/agent-loop.mjs";
import { later } from "../support/memory";
import { createSpace, ORIGIN } from "../support/seed";

describe("examples/agent-loop.mjs: the agent example runs to completion against the Worker", () => {
  it("writes two channels through the typed client, reads context before each reply, sees live items, facts and the open promise", async () => {
    // The demo source of `npm run dev` (scripts/seed-demo.mjs): an agent allowed to act on orders.
    const space = await createSpace({
      source: {
        act: { operations: ["create", "update", "promise", "cancel"], object_types: ["order", "ticket", "appointment"] },
      },
    });
    const lines: string[] = [];
    const result = await run({
      baseUrl: `${ORIGIN}/spaces/${space.name}`,
      key: space.key,
      fetch: (request) => SELF.fetch(request),
      log: (line) => lines.push(line),
      // Compiles run on the object's alarm: move its clock past the debounce and run what is due.
      settle: () => later(space, 1_000),
    });

    const [whatsapp, email] = result.turns;
    expect(whatsapp.channel).toBe("whatsapp");
    expect(whatsapp.live).toEqual([expect.stringMatching(/^\[whatsapp\] customer: Hi! My order number is A-1042\./)]);
    expect(whatsapp.facts).toMatchObject({ order_number: "A-1042" });
    expect(whatsapp.promises).toEqual([]);

    // By e-mail, the agent sees the WhatsApp conversation too (identify joined the handles).
    expect(email.channel).toBe("email");
    expect(email.live).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[whatsapp\] customer: Hi!/),
        expect.stringMatching(/^\[whatsapp\] ai_agent: Sorry about the wait!/),
        expect.stringMatching(/^\[email\] customer: Hello again/),
      ]),
    );
    expect(email.facts).toMatchObject({ order_number: "A-1042", preference: "email over WhatsApp", email: result.email.value });
    expect(email.promises).toEqual([expect.stringMatching(/^agent: order A-1042, due \d{4}-/)]);

    // Both replies carried a stamp of the context read for them, and it was current.
    expect(result.usage).toEqual({ agent_turns: 2, current: 2, late: 0 });
    expect(lines.join("\n")).toContain("promises: agent: order A-1042");
  });
});
