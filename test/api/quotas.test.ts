import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ProblemSchema } from "../../src/contract/problem";
import { QuotaListSchema, QuotaSchema, UsageSchema } from "../../src/contract/quotas";
import type { SpaceObject } from "../../src/space/object";
import { batch, call, createSpace, createTenant, json, message, OPERATOR_TOKEN, type Space, uniqueName } from "../support/seed";

const handle = { type: "phone_e164", value: "+15555550178" };

function putQuota(body: unknown, operator = OPERATOR_TOKEN) {
  return call("PUT", "/control/v1/quotas", { operator, body });
}

async function quotasOf(tenantId: string) {
  return QuotaListSchema.parse(
    await json(await call("GET", `/control/v1/quotas?tenant_id=${tenantId}`, { operator: OPERATOR_TOKEN }), 200),
  ).data;
}

async function usageOf(token: string) {
  return UsageSchema.parse(await json(await call("GET", "/control/v1/usage", { token }), 200));
}

async function expectProblem(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = ProblemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe(code);
  return problem;
}

async function clockAt(space: Space, at: number) {
  await runInDurableObject(env.SPACE.get(env.SPACE.idFromName(space.name)), (instance: SpaceObject) => {
    instance.clock = { now: () => at };
  });
}

function contextRead(space: Space) {
  return call("POST", `/spaces/${space.name}/v1/context`, { token: space.key, body: { handle } });
}

/** A batch of `count` new messages of one customer. */
function messages(space: Space, count: number) {
  return batch(
    space,
    Array.from({ length: count }, () => message({ handles: [handle] })),
  );
}

describe("PUT /v1/quotas and GET /v1/quotas (operator)", () => {
  it("echoes the record, reads it back, and replaces a metric's quota with a second PUT", async () => {
    const tenant = await createTenant();
    const events = { tenant_id: tenant.tenantId, metric: "events_per_day", limit: 100_000, period: "day" };
    expect(QuotaSchema.parse(await json(await putQuota(events), 200))).toEqual(events);
    const storage = { tenant_id: tenant.tenantId, metric: "storage_bytes", limit: Number.MAX_SAFE_INTEGER, period: "month" };
    expect(await json(await putQuota(storage), 200)).toEqual(storage);
    const requests = { tenant_id: tenant.tenantId, metric: "requests_per_minute", limit: 0, period: "minute" };
    expect(await json(await putQuota(requests), 200)).toEqual(requests);
    expect(await quotasOf(tenant.tenantId)).toEqual([events, requests, storage]);

    const lower = { ...events, limit: 5 };
    expect(await json(await putQuota(lower), 200)).toEqual(lower);
    expect(await quotasOf(tenant.tenantId)).toEqual([lower, requests, storage]);
    expect(await quotasOf((await createTenant()).tenantId)).toEqual([]);
  });

  it("refuses a body outside the record with 422 naming the field, never the value", async () => {
    const tenant = await createTenant();
    const valid = { tenant_id: tenant.tenantId, metric: "events_per_day", limit: 10, period: "day" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, period: "month" }, "period: not_the_period_of_the_metric_day"],
      [{ ...valid, metric: "media_bytes", period: "day" }, "period: not_the_period_of_the_metric_month"],
      [{ ...valid, metric: "requests_per_minute" }, "period: not_the_period_of_the_metric_minute"],
      [{ ...valid, metric: "calls_per_hour" }, "metric: invalid_value"],
      [{ ...valid, period: "week" }, "period: invalid_value"],
      [{ ...valid, limit: -1 }, "limit: too_small"],
      [{ ...valid, limit: 2 ** 53 }, "limit: too_big"],
      [{ ...valid, limit: 1.5 }, "limit: invalid_type"],
      [{ ...valid, limit: "10" }, "limit: invalid_type"],
      [{ ...valid, tenant_id: "not-a-uuid" }, "tenant_id: invalid_format"],
      [{ ...valid, extra: 1 }, "body: unknown_field"],
      [{ metric: "events_per_day", limit: 10, period: "day" }, "tenant_id: required"],
    ];
    for (const [body, detail] of cases) {
      const problem = await expectProblem(await putQuota(body), 422, "invalid_input");
      expect(problem.detail, JSON.stringify(body)).toBe(detail);
    }
    expect(await quotasOf(tenant.tenantId)).toEqual([]);
  });

  it("needs the operator token, and answers 404 for a tenant that does not exist", async () => {
    const space = await createSpace();
    const body = { tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 10, period: "day" };
    await expectProblem(await putQuota(body, "wrong"), 401, "unauthenticated");
    await expectProblem(await call("PUT", "/control/v1/quotas", { token: space.tenant.token, body }), 401, "unauthenticated");
    await expectProblem(await call("GET", `/control/v1/quotas?tenant_id=${space.tenant.tenantId}`), 401, "unauthenticated");
    const unknown = crypto.randomUUID();
    await expectProblem(await putQuota({ ...body, tenant_id: unknown }), 404, "not_found");
    await expectProblem(
      await call("GET", `/control/v1/quotas?tenant_id=${unknown}`, { operator: OPERATOR_TOKEN }),
      404,
      "not_found",
    );
    const missing = await expectProblem(
      await call("GET", "/control/v1/quotas", { operator: OPERATOR_TOKEN }),
      422,
      "invalid_input",
    );
    expect(missing.detail).toBe("query.tenant_id: required");
  });
});

describe("quotas reach the tenant's spaces", () => {
  it("refuses a batch once the day's events are used, with Retry-After to the next UTC day, and still answers reads", async () => {
    const space = await createSpace();
    const dayStart = Date.UTC(2031, 4, 6);
    const now = dayStart + 20 * 3_600_000 + 1_500;
    await clockAt(space, now);
    await json(await putQuota({ tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 3, period: "day" }), 200);
    await json(await messages(space, 2), 200);
    // 2 of 3 used: the next batch goes in whole, and the day's events are spent.
    await json(await messages(space, 2), 200);
    const refused = await call("POST", `/spaces/${space.name}/v1/batch`, { token: space.key, body: { items: [message()] } });
    await expectProblem(refused.clone(), 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe(String(4 * 3600 - 1));
    await json(await contextRead(space), 200);

    // Duplicates are no new events; the next day counts from zero.
    await clockAt(space, dayStart + 86_400_000);
    await json(await messages(space, 3), 200);
    await expectProblem(await messages(space, 1), 429, "rate_limited");
  });

  it("counts feedback items the space accepted among the day's events, and not the refused ones", async () => {
    const space = await createSpace();
    await clockAt(space, Date.UTC(2031, 4, 7, 10));
    await json(await putQuota({ tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 4, period: "day" }), 200);
    await json(await messages(space, 2), 200);
    const feedback = (items: unknown[]) =>
      call("POST", `/spaces/${space.name}/v1/feedback`, { token: space.key, body: { items } });
    const outcome = (key: string) => ({
      action: "conversation_outcome",
      idempotency_key: key,
      conversation_id: "conv-1",
      value: "resolved",
    });
    const unknown = { action: "resolve_open_item", idempotency_key: "fb-unknown", open_item_id: "no-such-item" };
    // One accepted, one refused (207): three of four used.
    expect((await feedback([outcome("fb-1"), unknown])).status).toBe(207);
    await json(await messages(space, 1), 200);
    await expectProblem(await feedback([outcome("fb-2")]), 429, "rate_limited");
    await expectProblem(await messages(space, 1), 429, "rate_limited");
  });

  it("refuses writes past the tenant's requests per minute before reads", async () => {
    const space = await createSpace();
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    await clockAt(space, minute + 15_000);
    // 5 a minute: writes stop when 1 is left, which a read takes.
    await json(
      await putQuota({ tenant_id: space.tenant.tenantId, metric: "requests_per_minute", limit: 5, period: "minute" }),
      200,
    );
    for (let i = 0; i < 4; i++) await json(await messages(space, 1), 200);
    const refused = await messages(space, 1);
    expect(refused.headers.get("retry-after")).toBe("45");
    await expectProblem(refused, 429, "rate_limited");
    await json(await contextRead(space), 200);
    await expectProblem(await contextRead(space), 429, "rate_limited");
    await clockAt(space, minute + 60_000);
    await json(await messages(space, 1), 200);
  });

  it("refuses writes once the space holds its share of storage, and still answers reads", async () => {
    const space = await createSpace();
    await json(await messages(space, 1), 200);
    await json(await putQuota({ tenant_id: space.tenant.tenantId, metric: "storage_bytes", limit: 4096, period: "month" }), 200);
    const refused = await messages(space, 1);
    expect(refused.headers.get("retry-after")).toBe("3600");
    await expectProblem(refused, 429, "rate_limited");
    await json(await contextRead(space), 200);
    await json(
      await putQuota({ tenant_id: space.tenant.tenantId, metric: "storage_bytes", limit: 1 << 30, period: "month" }),
      200,
    );
    await json(await messages(space, 1), 200);
  });

  it("gives each space of the tenant an even share, and shares again when a space is added", async () => {
    const space = await createSpace();
    await json(await putQuota({ tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 10, period: "day" }), 200);
    await json(await messages(space, 4), 200);
    const project = await json<{ project_id: string }>(
      await call("POST", "/control/v1/projects", { token: space.tenant.token, body: { name: "Second" } }),
      201,
    );
    await json(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, {
        token: space.tenant.token,
        body: { name: uniqueName("s") },
      }),
      201,
    );
    // Two spaces: 5 each. 4 used, one batch more goes in, then the share is spent.
    await json(await messages(space, 1), 200);
    await expectProblem(await messages(space, 1), 429, "rate_limited");
  });
});

describe("GET /v1/usage (admin)", () => {
  it("counts the tenant's events, requests, storage and media per metric and space, beside its quotas", async () => {
    const space = await createSpace();
    const now = Date.UTC(2031, 4, 6, 10, 30, 15);
    await clockAt(space, now);
    await json(await putQuota({ tenant_id: space.tenant.tenantId, metric: "events_per_day", limit: 1_000, period: "day" }), 200);
    const first = Array.from({ length: 3 }, () => message({ handles: [handle] }));
    await json(await batch(space, first), 200);
    // A resent batch is duplicates, no new events.
    await json(await batch(space, first), 200);
    await json(await contextRead(space), 200);

    const usage = await usageOf(space.tenant.token);
    expect(usage.tenant_id).toBe(space.tenant.tenantId);
    const metric = (name: string) => usage.metrics.find((entry) => entry.metric === name);
    expect(metric("events_per_day")).toMatchObject({
      period: "day",
      used: 3,
      limit: 1_000,
      spaces: [{ space_id: space.spaceId, used: 3 }],
    });
    expect(metric("requests_per_minute")).toMatchObject({ period: "minute", used: 3, limit: null });
    expect(metric("storage_bytes")?.used).toBeGreaterThan(0);
    expect(metric("media_bytes")).toMatchObject({ period: "month", used: 0, limit: null });
  });

  it("keeps the day's events across a restart of the space's object", async () => {
    const space = await createSpace();
    await json(await messages(space, 2), 200);
    await runInDurableObject(env.SPACE.get(env.SPACE.idFromName(space.name)), (_instance, state) => state.abort("restart")).catch(
      () => undefined,
    );
    await json(await messages(space, 1), 200);
    const usage = await usageOf(space.tenant.token);
    expect(usage.metrics.find((entry) => entry.metric === "events_per_day")?.used).toBe(3);
  });

  it("is for admins only", async () => {
    const tenant = await createTenant();
    const email = `${uniqueName("review")}@example.test`;
    const password = "a long enough password";
    await json(
      await call("POST", "/control/v1/people", { token: tenant.token, body: { email, password, roles: ["review", "security"] } }),
      201,
    );
    const { token } = await json<{ token: string }>(
      await call("POST", "/control/v1/auth/login", { body: { email, password } }),
      200,
    );
    await expectProblem(await call("GET", "/control/v1/usage", { token }), 403, "forbidden");
    await expectProblem(await call("GET", "/control/v1/usage", { operator: OPERATOR_TOKEN }), 401, "unauthenticated");
    const usage = await usageOf(tenant.token);
    expect(usage.metrics.map((entry) => [entry.metric, entry.used, entry.spaces])).toEqual([
      ["events_per_day", 0, []],
      ["requests_per_minute", 0, []],
      ["storage_bytes", 0, []],
      ["media_bytes", 0, []],
    ]);
  });
});
