import { env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { Clock } from "../../src/clock";
import { type Link, LinkSchema, type Merge, MergeSchema, type Profile, ProfileSchema } from "../../src/contract/identity";
import type { SpaceObject } from "../../src/space/object";
import { call, json, message, type Space, uniqueName } from "./seed";

/** What identity tests share: people with roles, profile reads parsed with the route's schema, the object's SQLite. */

export type Handle = { type: string; value: string; scope?: string };

export const phone = (value: string): Handle => ({ type: "phone_e164", value });
export const email = (value: string): Handle => ({ type: "email", value });
export const systemId = (value: string, scope?: string): Handle =>
  scope === undefined ? { type: "system_id", value } : { type: "system_id", value, scope };

/** A message event about `handles`, with a unique idempotency key. */
export const event = (handles: Handle[], overrides: Record<string, unknown> = {}) => message({ handles, ...overrides });

let identifySequence = 0;
export function identifyItem(handles: Handle[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  identifySequence++;
  return {
    type: "identify",
    idempotency_key: `identify-${Date.now()}-${identifySequence}-${Math.random().toString(36).slice(2)}`,
    handles,
    method: "agent",
    ...overrides,
  };
}

/** A person of the space's tenant with `roles` (and vendor bindings), logged in: their token. */
export async function personToken(space: Space, roles: string[], vendorSources?: string[]): Promise<string> {
  const email = `${uniqueName(roles.join("-") || "person")}@example.test`;
  const password = "person password long enough";
  await json(
    await call("POST", "/control/v1/people", {
      token: space.tenant.token,
      body: { email, password, roles, ...(vendorSources ? { vendor_sources: vendorSources } : {}) },
    }),
    201,
  );
  const { token } = await json<{ token: string }>(
    await call("POST", "/control/v1/auth/login", { body: { email, password } }),
    200,
  );
  return token;
}

/** A second source of the space, with a key of `scopes`. */
export async function createSource(space: Space, scopes: readonly string[], name = "Second") {
  const source = await json<{ source_id: string }>(
    await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
      token: space.tenant.token,
      body: { name, kind: "system" },
    }),
    201,
  );
  const key = await json<{ key_id: string; key: string }>(
    await call("POST", `/control/v1/sources/${source.source_id}/keys`, {
      token: space.tenant.token,
      headers: { "idempotency-key": crypto.randomUUID() },
      body: { scopes },
    }),
    201,
  );
  return { sourceId: source.source_id, key: key.key };
}

export const profilePath = (space: Space, id: string) => `/spaces/${space.name}/v1/profiles/${encodeURIComponent(id)}`;

export function getProfileResponse(space: Space, id: string, token = space.key, headers: Record<string, string> = {}) {
  return call("GET", profilePath(space, id), { token, headers });
}

/** `GET /v1/profiles/{id}`, 200, parsed with ProfileSchema. */
export async function getProfile(space: Space, id: string, token = space.key): Promise<Profile> {
  return ProfileSchema.parse(await json(await getProfileResponse(space, id, token), 200));
}

export function lookupResponse(space: Space, handle: Handle, token = space.key) {
  return call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token, body: { handle } });
}

/** `POST /v1/profiles/lookup`, 200, parsed with ProfileSchema. */
export async function lookup(space: Space, handle: Handle, token = space.key): Promise<Profile> {
  return ProfileSchema.parse(await json(await lookupResponse(space, handle, token), 200));
}

export function undoResponse(space: Space, mergeId: string, token: string, idempotencyKey: string | null = crypto.randomUUID()) {
  return call("POST", `/spaces/${space.name}/v1/identity/merges/${encodeURIComponent(mergeId)}/undo`, {
    token,
    headers: idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey },
  });
}

export async function undo(space: Space, mergeId: string, token: string, idempotencyKey?: string): Promise<Merge> {
  return MergeSchema.parse(await json(await undoResponse(space, mergeId, token, idempotencyKey), 200));
}

export function linkResponse(
  space: Space,
  body: unknown,
  token = space.key,
  idempotencyKey: string | null = crypto.randomUUID(),
) {
  return call("POST", `/spaces/${space.name}/v1/identity/links`, {
    token,
    body,
    headers: idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey },
  });
}

export async function link(space: Space, body: unknown, token = space.key): Promise<Link> {
  return LinkSchema.parse(await json(await linkResponse(space, body, token), 201));
}

export function endLinkResponse(space: Space, linkId: string, token = space.key, idempotencyKey = crypto.randomUUID()) {
  return call("POST", `/spaces/${space.name}/v1/identity/links/${encodeURIComponent(linkId)}/end`, {
    token,
    headers: { "idempotency-key": idempotencyKey },
  });
}

export function spaceStub(space: Space) {
  return env.SPACE.get(env.SPACE.idFromName(space.name));
}

/** Runs a read on the space object's SQLite. */
export function query<T extends Record<string, SqlStorageValue>>(space: Space, text: string, ...bindings: SqlStorageValue[]) {
  return runInDurableObject(spaceStub(space), (_instance: SpaceObject, state) =>
    state.storage.sql.exec<T>(text, ...bindings).toArray(),
  );
}

/** Aborts the space object for real (its memory is gone; only what was committed remains), as test/api/batch.test.ts does. */
export async function restartSpaceObject(space: Space): Promise<void> {
  const marker: Clock = { now: () => Date.now() };
  await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
    instance.clock = marker;
  });
  await runInDurableObject(spaceStub(space), (_instance, state) => state.abort("restart for the test")).catch(() => undefined);
  await runInDurableObject(spaceStub(space), (instance: SpaceObject) => {
    expect(instance.clock).not.toBe(marker);
  });
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  request_id: string;
}

/** Values no `detail` may ever contain: the personal data the test sent, in every spelling it used. */
const personalData = new Set<string>();
export function notePersonalData(...values: string[]): void {
  for (const value of values) {
    personalData.add(value);
    const trimmed = value.trim();
    if (trimmed) personalData.add(trimmed);
    const digits = value.replace(/\D/g, "");
    if (digits.length >= 7) personalData.add(digits);
  }
}

/** Fails when `detail` carries any personal data the test noted, or any of `extra`. */
export function expectNoPersonalData(detail: string, extra: readonly string[] = []): void {
  const lowered = detail.toLowerCase();
  for (const value of [...personalData, ...extra]) {
    expect(lowered, `detail quotes personal data: ${detail}`).not.toContain(value.toLowerCase());
  }
  // No run of 7+ digits (a phone number in any spelling) and no e-mail address.
  expect(detail).not.toMatch(/\d[\d\s().-]{6,}\d/);
  expect(detail).not.toMatch(/[^\s@]+@[^\s@]+\.[a-z]+/i);
}

/** An error answer: its status, a well-formed problem with `code`, and no personal data in `detail`. */
export async function expectProblem(response: Response, status: number, code: string): Promise<Problem> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = JSON.parse(text) as Problem;
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(status);
  expect(problem.request_id).toBe(response.headers.get("request-id"));
  expectNoPersonalData(problem.detail);
  return problem;
}
