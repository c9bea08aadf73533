import fc from "fast-check";
import type { MemoryEvent } from "../../src/space/memory/memory-event";

type Attributes = MemoryEvent["attributes"];

/** Any event as the compiler reads it, with the texts and attributes a test wants to stress. */
export function memoryEventOf(text: fc.Arbitrary<string>, attributes: fc.Arbitrary<Attributes>): fc.Arbitrary<MemoryEvent> {
  return fc.record({
    itemId: fc.string(),
    seq: fc.nat(),
    occurredAt: fc.nat(),
    kind: fc.constantFrom("message", "system_event", "action"),
    channel: fc.option(fc.string()),
    conversationId: fc.option(fc.string()),
    taskId: fc.option(fc.string()),
    sourceId: fc.string(),
    speakerRole: fc.constantFrom("customer", "ai_agent", "human_agent", "system", null),
    text: fc.option(text),
    canonicalType: fc.option(fc.string()),
    attributes,
    action: fc.option(
      fc.record({
        operation: fc.string(),
        objectType: fc.string(),
        objectId: fc.string(),
        status: fc.option(fc.string()),
        dueAt: fc.option(fc.nat()),
        attributes,
      }),
    ),
    object: fc.option(fc.record({ objectType: fc.string(), objectId: fc.string() })),
  });
}

let seq = 0;
/** A customer's text message on `chat` with nothing else set, each with the next `seq`; `fields` override. */
export function memoryEvent(fields: Partial<MemoryEvent>): MemoryEvent {
  seq += 1;
  return {
    itemId: `item_${seq}`,
    seq,
    occurredAt: 1_700_000_000_000 + seq,
    kind: "message",
    channel: "chat",
    conversationId: null,
    taskId: null,
    sourceId: "src",
    speakerRole: "customer",
    text: null,
    canonicalType: null,
    attributes: null,
    action: null,
    object: null,
    ...fields,
  };
}
