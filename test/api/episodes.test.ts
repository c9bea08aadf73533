import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import type { Context } from "../../src/contract/context";
import { type HistoryItem, HistoryItemSchema, TimelinePageSchema } from "../../src/contract/history";
import { customerSessions } from "../support/conversations";
import { type Handle, phone } from "../support/identity";
import { fullContext, later, moveClock } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * Episodes through the API (docs/api/memory.md "Episodes"): highlights of the customer's
 * statements in the context's episodes and in the history item, with the ids of that session's
 * customer messages; `episode_highlights`; open items that are open; and a long customer's
 * context within its byte budget.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function accept(space: Space, items: unknown[]): Promise<void> {
  for (let i = 0; i < items.length; i += 500) {
    const answer = BatchAnswerSchema.parse(await json(await batch(space, items.slice(i, i + 500)), 200));
    expect(answer.errors).toEqual([]);
  }
}

const say = (handle: Handle, at: number, role: string, text: string, conversation: string) =>
  message({
    handles: [handle],
    occurred_at: iso(at),
    conversation_id: conversation,
    speaker: { role },
    content: { type: "text", text },
  });

async function open(space: Space, body: Record<string, unknown>): Promise<HistoryItem> {
  return HistoryItemSchema.parse(
    await json(await call("POST", `/spaces/${space.name}/v1/history/open`, { token: space.key, body }), 200),
  );
}

/** Every event of the customer by id: its episode and speaker (the timeline, parsed with its schema). */
async function eventsOf(space: Space, handle: Handle) {
  const page = TimelinePageSchema.parse(
    await json(await call("POST", `/spaces/${space.name}/v1/timeline`, { token: space.key, body: { handle, limit: 100 } }), 200),
  );
  return new Map(page.data.map((event) => [event.event_id, event]));
}

/** Moves time until the customer's memory holds every event. */
async function compiled(space: Space, handle: Handle): Promise<Context> {
  let context = await fullContext(space, { handle });
  for (let round = 0; round < 60 && context.compiled.pending > 0; round++) {
    await later(space, 1_000);
    context = await fullContext(space, { handle });
  }
  expect(context.compiled.pending).toBe(0);
  return context;
}

/** Two sessions of one customer, a day apart; the second one's statements are the ones to keep. */
async function twoSessions(space: Space, handle: Handle) {
  const t0 = await moveClock(space, 0);
  const first = t0 - DAY;
  const second = t0 - 2 * 60 * MINUTE;
  await accept(space, [
    say(handle, first, "customer", "hi, my order A-1042 never arrived", "c-1"),
    say(handle, first + MINUTE, "ai_agent", "I have sent a replacement for order A-1042 by express post.", "c-1"),
    say(handle, second, "customer", "hello", "c-2"),
    say(handle, second + MINUTE, "customer", "I'm moving to Leeds next month, can you change my delivery address?", "c-2"),
    say(handle, second + 2 * MINUTE, "ai_agent", "Let me check that for you.", "c-2"),
    say(handle, second + 3 * MINUTE, "ai_agent", "Your delivery address is now 4 Park Row, Leeds, from the 1st.", "c-2"),
    say(handle, second + 4 * MINUTE, "customer", "great thanks! my daughter starts school in September", "c-2"),
    say(handle, second + 5 * MINUTE, "customer", "I prefer morning deliveries because I work late", "c-2"),
    say(handle, second + 6 * MINUTE, "customer", "and how long does a refund take?", "c-2"),
    say(handle, second + 7 * MINUTE, "ai_agent", "One moment please", "c-2"),
  ]);
  await later(space, 60 * MINUTE);
  return compiled(space, handle);
}

describe("episodes: highlights of what the customer said about themselves", () => {
  it("shows them in the context's episode and the history item, with the ids of that session's customer messages", async () => {
    const space = await createSpace();
    const handle = phone("+15555550601");
    const context = await twoSessions(space, handle);
    const events = await eventsOf(space, handle);
    const [latest, earlier] = context.memory.episodes;
    if (!latest || !earlier) throw new Error("two episodes expected");
    expect(latest.conversation_id).toBe("c-2");

    expect(latest.highlights.map((highlight) => highlight.text)).toEqual([
      "I'm moving to Leeds next month, can you change my delivery address?",
      "my daughter starts school in September",
      "I prefer morning deliveries because I work late",
    ]);
    for (const { event_id } of [...latest.highlights, ...earlier.highlights]) {
      expect(events.get(event_id)?.speaker_role).toBe("customer");
    }
    for (const { event_id } of latest.highlights) expect(events.get(event_id)?.episode_id).toBe(latest.episode_id);
    for (const { event_id } of earlier.highlights) expect(events.get(event_id)?.episode_id).toBe(earlier.episode_id);

    // No counts or channels in the summary: what was said.
    expect(latest.summary).not.toMatch(/messages:|Via |Requested:/);
    expect(latest.summary).toContain("Leeds");
    expect(latest.requested).toBe("I'm moving to Leeds next month, can you change my delivery address?");
    expect(latest.summary).toContain("Your delivery address is now 4 Park Row, Leeds, from the 1st.");
    // The customer's last request (the refund) was only put off: no resolution.
    expect(latest.resolution).toBeNull();

    const shown = await open(space, { item_id: latest.episode_id, handle, verification: "V2" });
    expect(shown.highlights).toEqual(latest.highlights);
    const hidden = await open(space, { item_id: latest.episode_id, handle, verification: "V0" });
    expect(hidden.text_shown).toBe(false);
    expect(hidden.highlights).toEqual(latest.highlights.map(({ event_id }) => ({ event_id, text: null })));
  });

  it("keeps five of them unless the space says otherwise", async () => {
    const space = await createSpace();
    const handle = phone("+15555550604");
    const t0 = await moveClock(space, 0);
    const statements = [
      "I moved to Leeds last month with my two daughters",
      "My daughter starts school there in September",
      "I usually work night shifts at the hospital",
      "I prefer deliveries on Saturday mornings",
      "My old kettle from your shop leaks since Monday",
      "We are planning a kitchen renovation next spring",
      "I have been a gold member since 2019",
    ];
    await accept(
      space,
      statements.flatMap((text, i) => [
        say(handle, t0 - 60 * MINUTE + i * 2 * MINUTE, "customer", text, "c-five"),
        say(handle, t0 - 59 * MINUTE + i * 2 * MINUTE, "ai_agent", `Noted, thank you ${i}.`, "c-five"),
      ]),
    );
    await later(space, 31 * MINUTE);
    const context = await compiled(space, handle);
    expect(context.memory.episodes[0]?.highlights).toHaveLength(5);
  });

  it("keeps the space's episode_highlights of them (0 to 10)", async () => {
    const space = await createSpace();
    const setHighlights = (value: unknown) =>
      call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        body: { values: { episode_highlights: value } },
      });
    expect((await setHighlights(11)).status).toBe(422);
    expect((await setHighlights(1.5)).status).toBe(422);
    await json(await setHighlights(1), 200);
    const context = await twoSessions(space, phone("+15555550602"));
    expect(context.memory.episodes[0]?.highlights).toHaveLength(1);
  });
});

describe("episodes: open items are the questions no later turn answered", () => {
  it("lists the question only a deferral followed, not the one answered after a deferral", async () => {
    const space = await createSpace();
    const handle = phone("+15555550603");
    const context = await twoSessions(space, handle);
    expect(context.memory.open_items.map((item) => [item.kind, item.summary])).toEqual([
      ["question", "and how long does a refund take?"],
    ]);
    expect(context.memory.episodes[0]?.outcome).toBe("unresolved");
  });
});

describe("episodes: how each session ended (docs/api/memory.md, episode outcome)", () => {
  it("is escalated by a handoff or a *.escalated event, resolved by a *.closed event or an answer, abandoned on the customer's last word", async () => {
    const space = await createSpace();
    const handle = phone("+15555550605");
    const t0 = await moveClock(space, 0);
    const at = (conversation: number, turn: number) => t0 - (6 - conversation) * 2 * 60 * MINUTE + turn * MINUTE;
    const system = (conversation: string, when: number, canonicalType: string) =>
      message({
        handles: [handle],
        occurred_at: iso(when),
        conversation_id: conversation,
        kind: "system_event",
        canonical_type: canonicalType,
      });
    await accept(space, [
      say(handle, at(1, 0), "customer", "my parcel is damaged, what can you do?", "c-handoff"),
      say(handle, at(1, 1), "ai_agent", "I am passing you to a colleague.", "c-handoff"),
      {
        type: "handoff",
        conversation_id: "c-handoff",
        to: { role: "human_agent" },
        occurred_at: iso(at(1, 2)),
        idempotency_key: "handoff-1",
      },
      say(handle, at(2, 0), "customer", "this is the third time I write about the refund", "c-escalated"),
      system("c-escalated", at(2, 1), "ticket.escalated"),
      say(handle, at(3, 0), "customer", "can you close my old account?", "c-closed"),
      system("c-closed", at(3, 1), "ticket.closed"),
      say(handle, at(4, 0), "ai_agent", "Hello, how can I help you today?", "c-abandoned"),
      say(handle, at(4, 1), "customer", "I wanted to ask about my delivery", "c-abandoned"),
      say(handle, at(5, 0), "customer", "what time do you open on Saturdays?", "c-answered"),
      say(handle, at(5, 1), "ai_agent", "We open at nine on Saturdays.", "c-answered"),
    ]);
    await later(space, 60 * MINUTE);
    const context = await compiled(space, handle);
    const outcomes = Object.fromEntries(context.memory.episodes.map((episode) => [episode.conversation_id, episode.outcome]));
    expect(outcomes).toEqual({
      "c-handoff": "escalated",
      "c-escalated": "escalated",
      "c-closed": "resolved",
      "c-abandoned": "abandoned",
      "c-answered": "resolved",
    });
  });

  it("is not abandoned by the customer's thanks, goodbye, acknowledgement or emoji after the last answer; a last request unanswered still is", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    // Each a customer of its own (a context shows the latest 5 episodes): turns, and the outcome.
    const sessions: [[role: string, text: string][], string][] = [
      [
        [
          ["customer", "what time do you open on Saturdays?"],
          ["ai_agent", "We open at nine on Saturdays."],
          ["customer", "Thanks, bye!"],
        ],
        "resolved",
      ],
      [
        [
          ["customer", "do you deliver to Leeds?"],
          ["human_agent", "Yes, we deliver to Leeds every weekday."],
          ["customer", "ok"],
        ],
        "resolved",
      ],
      [
        [
          ["customer", "is the blue kettle in stock?"],
          ["ai_agent", "The blue kettle is in stock."],
          ["customer", "great thanks"],
          ["customer", "👍"],
        ],
        "resolved",
      ],
      [
        [
          ["customer", "can I pay by card?"],
          ["ai_agent", "Card payments are accepted at checkout."],
          ["customer", "perfect, that's all I needed"],
        ],
        "resolved",
      ],
      // Thanks after an answer put off: the question stays open.
      [
        [
          ["customer", "can I return an opened kettle?"],
          ["ai_agent", "Let me check that with the warehouse."],
          ["customer", "ok thanks"],
        ],
        "unresolved",
      ],
      [
        [
          ["customer", "where is my parcel?"],
          ["ai_agent", "Your parcel arrives on Thursday."],
          ["customer", "Thanks! And can I change the address?"],
        ],
        "abandoned",
      ],
      [
        [
          ["customer", "where is my refund?"],
          ["ai_agent", "Your refund was paid on Monday."],
          ["customer", "hello?"],
        ],
        "abandoned",
      ],
      [
        [
          ["ai_agent", "Your order has shipped."],
          ["customer", "hi"],
        ],
        "abandoned",
      ],
      [[["customer", "Thank you so much!"]], "unknown"],
    ];
    const customers = sessions.map(([turns], index) => ({
      handle: phone(`+1555555062${index}`),
      turns,
      conversation: `c-${index}`,
    }));
    await accept(
      space,
      customers.flatMap(({ handle, turns, conversation }) =>
        turns.map(([role, text], turn) => say(handle, t0 - 10 * MINUTE + turn * MINUTE, role, text, conversation)),
      ),
    );
    await later(space, 60 * MINUTE);
    const outcomes = [];
    for (const { handle } of customers) {
      outcomes.push((await compiled(space, handle)).memory.episodes.map((episode) => episode.outcome));
    }
    expect(outcomes).toEqual(sessions.map(([, outcome]) => [outcome]));
  });
});

describe("context: a long customer's context stays within its byte budget", () => {
  it("is at most 16 KB for 30 sessions of 20 messages, closed or with the last one open", async () => {
    const space = await createSpace();
    const handle = phone("+15555550604");
    const t0 = await moveClock(space, 0);
    // 29 closed sessions, a day apart; the 30th is going on now.
    await accept(space, [
      ...customerSessions(handle, { sessions: 29, turns: 20, startMs: t0 - 31 * DAY, seed: 31 }),
      ...customerSessions(handle, { sessions: 1, turns: 20, startMs: t0 - 20 * MINUTE, seed: 32, prefix: "now" }),
    ]);
    const bytes = (context: Context) => new TextEncoder().encode(JSON.stringify(context)).length;
    const live = await compiled(space, handle);
    expect(live.live).toHaveLength(20);
    expect(live.memory.episodes).toHaveLength(5);
    expect(live.memory.episodes.every((episode) => episode.highlights.length > 0)).toBe(true);
    expect(bytes(live)).toBeLessThanOrEqual(16 * 1024);

    await later(space, 60 * MINUTE);
    const closed = await compiled(space, handle);
    expect(closed.live).toEqual([]);
    expect(bytes(closed)).toBeLessThanOrEqual(16 * 1024);
  });
});
