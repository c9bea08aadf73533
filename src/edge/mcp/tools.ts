import type { z } from "@hono/zod-openapi";
import type { PresentedCredential } from "../../auth/credential";
import { BatchRequestSchema, MAX_BATCH_BYTES } from "../../contract/batch";
import type { Scope } from "../../contract/common";
import { type ContextAnswer, ContextInputSchema } from "../../contract/context";
import { FeedbackRequestSchema } from "../../contract/feedback";
import { HistoryOpenInputSchema, TimelineInputSchema } from "../../contract/history";
import { SearchInputSchema } from "../../contract/search";
import type { BodyInput } from "../../http/body";
import type { Outcome } from "../../http/problem";
import type { spaceObject } from "../../space/address";
import { CONTEXT_BODY_LIMIT } from "../data/context";
import { HISTORY_BODY_LIMIT } from "../data/history";
import { SEARCH_BODY_LIMIT } from "../data/search";
import { TIMELINE_BODY_LIMIT } from "../data/timeline";
import { contextText } from "./context-text";

type SpaceStub = ReturnType<typeof spaceObject>;

/**
 * One MCP tool: a route's body schema (or part of it) and a call into the same object method as
 * that route, given the arguments as the route is given its body. Nothing else: validation,
 * scopes, dedup and errors are the method's, so a tool cannot answer what its route would not.
 */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** The route's body schema: a field added to it appears in the tool (DESIGN 3.15). */
  input: z.ZodType & { shape: Record<string, unknown> };
  /** The key scope of the route it calls (DESIGN 3.2); the object enforces it. */
  scope: Scope;
  /** The route's body limit, applied to the arguments as JSON. */
  bodyLimit: number;
  readOnly: boolean;
  /** `requestId`: the MCP request's, which an audit row of a person's read names. */
  call(space: SpaceStub, credential: PresentedCredential, body: BodyInput, requestId: string): Promise<Outcome<unknown>>;
  /** A short rendering for models that read text; the default is the answer as JSON. */
  text?(answer: unknown): string;
}

const HANDLE = 'A customer is named by a handle `{type, value}` (e.g. `{type: "phone_e164", value: "+15555550123"}`).';

export const TOOLS: readonly McpTool[] = [
  {
    name: "get_customer_context",
    title: "Customer context",
    description: `What to know about a customer now: profile, \`live\` (the events of open sessions on every channel, there as soon as they are recorded) and compiled \`memory\` (facts, open items, promises, the latest episodes, open objects). Call it at the start of every turn and stamp what the agent says with its \`etag\` (\`context_stamp\`); pass the \`etag\` you hold as \`known_etag\` to get \`{unchanged: true}\` when nothing changed. ${HANDLE} Same as \`POST /v1/context\`; needs scope \`context\`.`,
    input: ContextInputSchema,
    scope: "context",
    bodyLimit: CONTEXT_BODY_LIMIT,
    readOnly: true,
    call: (space, credential, body, requestId) => space.readContext(credential, body, requestId),
    text: (answer) => contextText(answer as ContextAnswer),
  },
  {
    name: "search_customer_memory",
    title: "Search memory",
    description: `Full-text search over messages, transcripts, episode summaries and facts, best first, each result with a snippet (matched words between \`**\`). The whole space, or with \`handle\` one customer. Continue with \`cursor\` = \`next_cursor\`. ${HANDLE} Same as \`POST /v1/search\`; needs scope \`search\`.`,
    input: SearchInputSchema,
    scope: "search",
    bodyLimit: SEARCH_BODY_LIMIT,
    readOnly: true,
    call: (space, credential, body, requestId) => space.search(credential, { body }, requestId),
  },
  {
    name: "open_history_item",
    title: "Open a conversation or object",
    description: `One past conversation (an \`episode_id\`) or object (an \`open_item_id\`, or an id from an episode's \`derived\`) of a customer: summary, what was asked, promises, outcome, and its events. Message text shows only where the space's \`history_text_level\` is \`V0\` or \`no_customer\` (summaries always): a verification claim is for the agent's runtime to make over \`POST /v1/history/open\`, not for a model. ${HANDLE} Needs scope \`context\`.`,
    // `verification` is a claim about the customer: a model would make it on the customer's word.
    input: HistoryOpenInputSchema.omit({ verification: true }),
    scope: "context",
    bodyLimit: HISTORY_BODY_LIMIT,
    readOnly: true,
    call: (space, credential, body, requestId) => space.openHistory(credential, body, requestId),
  },
  {
    name: "customer_timeline",
    title: "Customer timeline",
    description: `A customer's events, newest first, a page at a time (\`limit\` up to 100; continue with \`cursor\` = \`next_cursor\`), optionally between \`from\` and \`to\` or on some \`channels\`. Each event names its \`episode_id\` for \`open_history_item\`. ${HANDLE} Same as \`POST /v1/timeline\`; needs scope \`context\`.`,
    input: TimelineInputSchema,
    scope: "context",
    bodyLimit: TIMELINE_BODY_LIMIT,
    readOnly: true,
    call: (space, credential, body, requestId) => space.readTimeline(credential, body, requestId),
  },
  {
    name: "record_events",
    title: "Record events",
    description:
      "Write 1 to 500 items (messages, system events, actions, identify, verify, handoffs…), each checked alone: the answer counts `accepted` and `duplicates` and lists rejected items in `errors` by index. Each item needs a unique `idempotency_key`: a resend is a duplicate, never stored twice. Same as `POST /v1/batch`; needs scope `track` (`action` events also `act`, `identify` and `verify` items `identify`).",
    input: BatchRequestSchema,
    scope: "track",
    bodyLimit: MAX_BATCH_BYTES,
    readOnly: false,
    call: (space, credential, body) => space.ingestBatch(credential, body),
  },
  {
    name: "give_feedback",
    title: "Correct memory",
    description:
      "Retract or correct a fact (`fact_id` from the context), resolve an open item (`open_item_id`), or set a conversation's outcome; items are checked alone and deduplicated by `idempotency_key` like `record_events`. A fact or open item changes in the next context. Same as `POST /v1/feedback`; needs scope `act`.",
    input: FeedbackRequestSchema,
    scope: "act",
    bodyLimit: MAX_BATCH_BYTES,
    readOnly: false,
    call: (space, credential, body) => space.giveFeedback(credential, body),
  },
];

export const TOOLS_BY_NAME: ReadonlyMap<string, McpTool> = new Map(TOOLS.map((tool) => [tool.name, tool]));
