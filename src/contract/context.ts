import { z } from "@hono/zod-openapi";
import { IdentifierSchema, LevelSchema, TimestampSchema, text } from "./common";
import { IdentifierObjectSchema, SideSchema, SubjectKindSchema } from "./identity";

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const ContextInputSchema = z
  .strictObject({
    handle: IdentifierSchema,
    known_etag: text(1, 256)
      .optional()
      .openapi({ description: "The `etag` of a context already held: equal → `{unchanged: true}`." }),
    // No `.openapi()` on a registered schema here: its metadata would redefine the component.
    about: SideSchema.optional(),
  })
  .openapi("ContextInput", {
    description:
      "`about`: an account or partner the person acts for (a handle or a profile id); it needs an active link, else `422 about_without_link`.",
  });

export const ContextQuerySchema = z.strictObject({});

const FactSchema = z
  .object({
    fact_id: z.string(),
    key: z.string(),
    value: z.string(),
    valid_from: TimestampSchema,
    valid_to: TimestampSchema.nullable(),
    status: z.enum(["active", "superseded", "retracted", "corrected"]),
    provenance: z.object({ event_id: z.string(), source_id: z.string() }),
  })
  .openapi("Fact");

const OpenItemSchema = z
  .object({
    open_item_id: z.string(),
    kind: z.enum(["question", "object"]),
    summary: z.string(),
    opened_at: TimestampSchema,
  })
  .openapi("OpenItem");

export const PromiseSchema = z
  .object({
    promise_id: z.string(),
    by: z.enum(["customer", "agent", "company"]),
    what: z.string(),
    due_at: TimestampSchema.nullable(),
    status: z.enum(["open", "kept", "broken", "cancelled"]),
    made_at: TimestampSchema,
  })
  .openapi("Promise");

export const HighlightSchema = z
  .object({
    event_id: z.string().openapi({ description: "The customer's message that says it." }),
    text: z.string().openapi({ description: "The sentence as written (at most 200 characters)." }),
  })
  .openapi("Highlight");

export const DerivedSchema = z.object({
  type: z.enum(["fact", "open_item", "promise", "object"]),
  id: z.string(),
  summary: z.string(),
});

const EpisodeSchema = z
  .object({
    episode_id: z.string(),
    conversation_id: z.string().nullable(),
    channel: z.string().nullable(),
    started_at: TimestampSchema,
    ended_at: TimestampSchema,
    status: z.enum(["open", "closed"]),
    summary: z.string(),
    requested: z.string().nullable(),
    outcome: z.enum(["resolved", "unresolved", "escalated", "abandoned", "unknown"]),
    resolution: z.string().nullable(),
    promises: z.array(z.string()),
    derived: z.array(DerivedSchema),
    highlights: z.array(HighlightSchema).openapi({
      description:
        "What the customer said about themselves in this session (plans, events, preferences, circumstances, problems), in the order said: at most the space's `episode_highlights` (default 5).",
    }),
  })
  .openapi("Episode");

const ObjectSchema = z
  .object({
    object_type: z.string(),
    object_id: z.string(),
    status: z.string().nullable(),
    attributes: z.record(z.string(), ScalarSchema),
    updated_at: TimestampSchema,
  })
  .openapi("MemoryObject");

export const MemorySchema = z
  .object({
    facts: z.array(FactSchema).openapi({
      description: "Active facts, one per key: the newest value by `occurred_at`; the 30 keys stated last, by key.",
    }),
    open_items: z.array(OpenItemSchema).openapi({
      description:
        "The newest 20: customer questions no later turn of their session answered, and objects opened and not closed.",
    }),
    promises: z.array(PromiseSchema),
    episodes: z.array(EpisodeSchema).openapi({
      description:
        "The latest 5, each with its first 5 `derived` (the history item has them all) and its highlights while the context's 2,000 bytes of highlight text last, newest first.",
    }),
    objects: z.array(ObjectSchema).openapi({ description: "Objects still open." }),
  })
  .openapi("Memory");

export const LiveItemSchema = z
  .object({
    event_id: z.string(),
    occurred_at: TimestampSchema,
    channel: z.string().nullable(),
    conversation_id: z.string().nullable(),
    speaker_role: z.string().nullable(),
    text: z.string().nullable(),
  })
  .openapi("LiveItem");

const CompiledSchema = z
  .object({
    version: z.number().int().openapi({ description: "Bumped by every rebuild of the profile's memory; 0 before the first." }),
    through: TimestampSchema.nullable().openapi({
      description: "Memory holds every event received before this, but `pending` ones.",
    }),
    pending: z.number().int().openapi({
      description:
        "Items stored but not compiled yet: events (in `live` already while their session is open) and the ends and handoffs of their conversations.",
    }),
  })
  .openapi("Compiled");

export const ContextSchema = z
  .object({
    profile_id: z.string(),
    etag: z.string(),
    as_of: TimestampSchema,
    compiled: CompiledSchema,
    profile: z.object({ subject_kind: SubjectKindSchema, level: LevelSchema, identifiers: z.array(IdentifierObjectSchema) }),
    live: z
      .array(LiveItemSchema)
      .openapi({ description: "Events of open sessions on every channel (the latest 50), oldest first." }),
    memory: MemorySchema,
    about: z
      .object({
        profile_id: z.string(),
        subject_kind: SubjectKindSchema,
        link: z.object({ link_id: z.string(), kind: z.enum(["account", "partner"]), role: z.string().nullable() }),
        memory: MemorySchema,
      })
      .optional(),
  })
  .openapi("Context");

export const UnchangedSchema = z
  .object({ unchanged: z.literal(true), etag: z.string() })
  .openapi("ContextUnchanged", { description: "`known_etag` is current: nothing changed." });

export const ContextAnswerSchema = z.union([ContextSchema, UnchangedSchema]);

export type ContextInput = z.infer<typeof ContextInputSchema>;
export type Context = z.infer<typeof ContextSchema>;
export type ContextAnswer = z.infer<typeof ContextAnswerSchema>;
