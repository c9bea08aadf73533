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
