import { type SearchPage, SearchPageSchema } from "../../src/contract/search";
import type { Handle } from "./identity";
import { moveClock } from "./memory";
import { call, createSpace, json, message, type Space } from "./seed";

/** What search tests share: a space whose clock stands still, searches parsed with the route's schema. */

/** A space whose object's clock stands still: its sessions compile only when a test moves time (`later`). */
export async function frozenSpace(): Promise<Space> {
  const space = await createSpace();
  await moveClock(space, 0);
  return space;
}

export function searchResponse(space: Space, body: unknown, token = space.key): Promise<Response> {
  return call("POST", `/spaces/${space.name}/v1/search`, { token, body });
}

/** `POST /v1/search` answered 200, parsed with the route's schema. */
export async function search(space: Space, body: Record<string, unknown>, token = space.key): Promise<SearchPage> {
  return SearchPageSchema.parse(await json(await searchResponse(space, body, token), 200));
}

/** A message from `handle` saying `text`, in a conversation of its own. */
export const says = (handle: Handle, text: string, overrides: Record<string, unknown> = {}) =>
  message({ handles: [handle], conversation_id: `c-${handle.value}`, content: { type: "text", text }, ...overrides });
