export {
  type BatchAnswer,
  type BatchItem,
  type BatchItemInput,
  type Context,
  type ContextInput,
  type ContextUnchanged,
  createMemoryClient,
  type FeedbackItem,
  type FeedbackItemInput,
  type ItemInput,
  type MemoryClient,
  type MemoryClientOptions,
  type Problem,
  type SearchInput,
  type SearchPage,
} from "./client.js";
export {
  type AttemptOutcome,
  backoff,
  DEFAULT_POLICY,
  decide,
  type RetryDecision,
  type RetryPolicy,
  retryAfterMs,
} from "./policy.js";
export type { components, paths } from "./schema.js";
export { type ContextStamp, stampFrom } from "./stamp.js";
export {
  type Fetch,
  RequestTimeoutError,
  type RetryEvent,
  retryingFetch,
  type Sleep,
  type TransportOptions,
} from "./transport.js";
export { uuidv7 } from "./uuid.js";
