import { SELF } from "cloudflare:test";

export const ORIGIN = "http://service.test";
export const OPERATOR_TOKEN = "test-operator-token";
/** Every scope a key of an agent (or any source but an analyst's) may carry: `analytics` is for analyst sources only. */
export const AGENT_SCOPES = ["track", "act", "context", "search", "identify", "admin"] as const;

let counter = 0;
/** A name no other test uses: tests share one ControlObject, and space names are unique. */
export function uniqueName(prefix: string): string {
  counter++;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
}

export interface CallOptions {
  token?: string;
  operator?: string;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

export async function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.operator) headers["x-service-operator-token"] = options.operator;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  return SELF.fetch(`${ORIGIN}${path}`, { method, headers, body });
}

export async function json<T = Record<string, unknown>>(response: Response, status?: number): Promise<T> {
  const text = await response.text();
  if (status !== undefined && response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  }
  return JSON.parse(text) as T;
}

export interface Tenant {
  tenantId: string;
  email: string;
  password: string;
  token: string;
}

export async function createTenant(): Promise<Tenant> {
  const email = `${uniqueName("admin")}@example.test`;
  const password = "correct horse battery staple";
  const created = await json<{ tenant: { tenant_id: string } }>(
    await call("POST", "/control/v1/tenants", {
      operator: OPERATOR_TOKEN,
      body: { name: "Test tenant", admin: { email, password } },
    }),
    201,
  );
  const { token } = await json<{ token: string }>(
    await call("POST", "/control/v1/auth/login", { body: { email, password } }),
    200,
  );
  return { tenantId: created.tenant.tenant_id, email, password, token };
}

export interface Space {
  tenant: Tenant;
  spaceId: string;
  name: string;
  sourceId: string;
  keyId: string;
  key: string;
}

export interface SpaceOptions {
  scopes?: readonly string[];
  source?: Record<string, unknown>;
  mode?: "live" | "test";
}

/** A tenant, a project, a space, a source and a key: what most data tests start from. */
export async function createSpace(options: SpaceOptions = {}): Promise<Space> {
  const tenant = await createTenant();
  const project = await json<{ project_id: string }>(
    await call("POST", "/control/v1/projects", { token: tenant.token, body: { name: "Project" } }),
    201,
  );
  const space = await json<{ space_id: string; name: string }>(
    await call("POST", `/control/v1/projects/${project.project_id}/spaces`, {
      token: tenant.token,
      body: { name: uniqueName("s") },
    }),
    201,
  );
  const source = await json<{ source_id: string }>(
    await call("POST", `/control/v1/spaces/${space.space_id}/sources`, {
      token: tenant.token,
      body: {
        name: "Agent",
        kind: "agent",
        act: { operations: ["create", "promise"], object_types: ["order"] },
        ...options.source,
      },
    }),
    201,
  );
  const key = await createKey(tenant.token, source.source_id, options.scopes ?? AGENT_SCOPES, options.mode);
  return { tenant, spaceId: space.space_id, name: space.name, sourceId: source.source_id, keyId: key.key_id, key: key.key };
}

export async function createKey(token: string, sourceId: string, scopes: readonly string[], mode: "live" | "test" = "live") {
  return json<{ key_id: string; key: string }>(
    await call("POST", `/control/v1/sources/${sourceId}/keys`, {
      token,
      headers: { "idempotency-key": crypto.randomUUID() },
      body: { scopes, mode },
    }),
    201,
  );
}

export function batch(space: Space, items: unknown[], key = space.key): Promise<Response> {
  return call("POST", `/spaces/${space.name}/v1/batch`, { token: key, body: { items } });
}

let sequence = 0;
/** A valid message event with a unique idempotency key. */
export function message(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence++;
  return {
    type: "event",
    idempotency_key: `msg-${Date.now()}-${sequence}-${Math.random().toString(36).slice(2)}`,
    channel: "whatsapp",
    conversation_id: "conv-1",
    handles: [{ type: "phone_e164", value: "+15555550100" }],
    speaker: { role: "customer" },
    content: { type: "text", text: "Where is my order?" },
    occurred_at: new Date(Date.now() - 60_000).toISOString(),
    ...overrides,
  };
}
