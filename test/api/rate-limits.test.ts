import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { ProblemSchema } from "../../src/contract/problem";
import type { SpaceObject } from "../../src/space/object";
import { personToken } from "../support/identity";
import { batch, call, createKey, createSpace, json, message, type Space } from "../support/seed";
import { servedDocument } from "../support/served-document";

const handle = { type: "phone_e164", value: "+15555550177" };

function stub(space: Space) {
  return env.SPACE.get(env.SPACE.idFromName(space.name));
}

/** Stops the space's clock at `at` (the buckets refill by it). */
async function clockAt(space: Space, at: number) {
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    instance.clock = { now: () => at };
  });
}

async function restart(space: Space) {
  await runInDurableObject(stub(space), (_instance, state) => state.abort("restart")).catch(() => undefined);
}

async function configure(space: Space, values: Record<string, unknown>) {
  return call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } });
}

function contextRead(space: Space, key = space.key) {
  return call("POST", `/spaces/${space.name}/v1/context`, { token: key, body: { handle } });
}

/** A `429 rate_limited` problem document; its `Retry-After` in whole seconds. */
async function retryAfterOf(response: Response): Promise<number> {
  const text = await response.text();
  expect(response.status, text).toBe(429);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = ProblemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe("rate_limited");
  const header = response.headers.get("retry-after") ?? "";
  expect(header).toMatch(/^[1-9]\d*$/);
  expect(problem.detail).toContain(`retry after ${header} s`);
  return Number(header);
}

describe("rate limits: token buckets per key and per space (config rate_limits)", () => {
  it("lets concurrent writes through up to the bucket and never past it", async () => {
    const space = await createSpace();
    await json(await batch(space, [message({ handles: [handle] })]), 200);
    const now = Date.now();
    await clockAt(space, now);
    // 10 a minute: a bucket of 10, of which 2 are kept for reads; writes take the other 8.
    await json(await configure(space, { rate_limits: { key_per_minute: 10 } }), 200);
    const answers = await Promise.all(Array.from({ length: 20 }, () => batch(space, [message()])));
    const passed = answers.filter((response) => response.status === 200);
    expect(passed).toHaveLength(8);
    for (const response of passed) BatchAnswerSchema.parse(await response.json());
    // The bucket holds 2 tokens; a write needs 3: one token more, 6 s at 10 a minute.
    for (const response of answers.filter((answer) => answer.status !== 200)) expect(await retryAfterOf(response)).toBe(6);

    // Six seconds later one write passes, and the next is refused again.
    await clockAt(space, now + 6_000);
    await json(await batch(space, [message()]), 200);
    expect(await retryAfterOf(await batch(space, [message()]))).toBe(6);
  });

  it("answers context reads while writes are limited, until the reads' reserve is spent too", async () => {
    const space = await createSpace();
    await json(await batch(space, [message({ handles: [handle] })]), 200);
    const now = Date.now();
    await clockAt(space, now);
    await json(await configure(space, { rate_limits: { key_per_minute: 10 } }), 200);
    for (let i = 0; i < 8; i++) await json(await batch(space, [message()]), 200);
    await retryAfterOf(await batch(space, [message()]));
    // The space at its write limit still answers the two reads of the reserve.
    for (let i = 0; i < 2; i++) {
      const context = await json<{ profile_id: string }>(await contextRead(space), 200);
      expect(context.profile_id).toBeTruthy();
    }
    expect(await retryAfterOf(await contextRead(space))).toBe(6);
  });

  it("counts a person's export as a write: refused once the space's writes are spent, while reads still pass", async () => {
    const space = await createSpace();
    await json(await batch(space, [message({ handles: [handle] })]), 200);
    const security = await personToken(space, ["security"]);
    const now = Date.now();
    await clockAt(space, now);
    await json(await configure(space, { rate_limits: { space_per_minute: 10 } }), 200);
    for (let i = 0; i < 8; i++) await json(await batch(space, [message()]), 200);
    const exported = call("POST", `/spaces/${space.name}/v1/exports`, { token: security, body: { handle } });
    await retryAfterOf(await exported);
    await json(await contextRead(space), 200);
  });

  it("limits each key alone with key_per_minute, and the keys together with space_per_minute", async () => {
    const space = await createSpace();
    const other = await createKey(space.tenant.token, space.sourceId, ["track", "context"]);
    const third = await createKey(space.tenant.token, space.sourceId, ["track", "context"]);
    const now = Date.now();
    await clockAt(space, now);
    // Per key 5 (4 writes), for the space 10 (8 writes).
    await json(await configure(space, { rate_limits: { key_per_minute: 5, space_per_minute: 10 } }), 200);
    for (let i = 0; i < 4; i++) await json(await batch(space, [message()]), 200);
    // A key's bucket has 1 token left, a write needs 2: 12 s at 5 a minute.
    expect(await retryAfterOf(await batch(space, [message()]))).toBe(12);
    for (let i = 0; i < 4; i++) await json(await batch(space, [message()], other.key), 200);
    // The third key has its own bucket full, but the space's is down to its reads' reserve.
    expect(await retryAfterOf(await batch(space, [message()], third.key))).toBe(6);
  });

  it("keeps a bucket across a restart of the space's object: what the last write left, refilled since", async () => {
    const space = await createSpace();
    const now = Date.now();
    await clockAt(space, now);
    await json(await configure(space, { rate_limits: { key_per_minute: 10 } }), 200);
    for (let i = 0; i < 8; i++) await json(await batch(space, [message()]), 200);
    await retryAfterOf(await batch(space, [message()]));

    await restart(space);
    await clockAt(space, now + 1_000);
    // Restarted full, the bucket would let 8 writes through; it still holds what the writes left.
    expect(await retryAfterOf(await batch(space, [message()]))).toBe(5);
    await clockAt(space, now + 6_000);
    await json(await batch(space, [message()]), 200);
    expect(await retryAfterOf(await batch(space, [message()]))).toBe(6);

    // A minute after the last write the bucket is full again.
    await restart(space);
    await clockAt(space, now + 66_000);
    for (let i = 0; i < 8; i++) await json(await batch(space, [message()]), 200);
    await retryAfterOf(await batch(space, [message()]));
  });

  it("takes nothing from the buckets of a space without rate_limits", async () => {
    const space = await createSpace();
    await clockAt(space, Date.now());
    const answers = await Promise.all(Array.from({ length: 30 }, () => batch(space, [message()])));
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
  });
});

describe("rate limits: the configuration and the document", () => {
  it("refuses rates above 1,000,000 a minute and integers past 2^53 − 1 with 422", async () => {
    const space = await createSpace();
    for (const rate of [1_000_001, 2 ** 53, 0, 1.5]) {
      const response = await configure(space, { rate_limits: { key_per_minute: rate } });
      const problem = ProblemSchema.parse(await json(response, 422));
      expect(problem.code).toBe("invalid_input");
      expect(problem.detail).toMatch(/^values\.rate_limits\.key_per_minute: /);
    }
    await json(await configure(space, { rate_limits: { space_per_minute: 1_000_000, key_per_minute: 1 } }), 200);
  });

  it("declares a maximum for every integer of the configuration and of the quota record", async () => {
    const document = await json<{ components: { schemas: Record<string, unknown> } }>(await call("GET", "/v1/openapi.json"), 200);
    const integers: [string, Record<string, unknown>][] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [at, child] of node.entries()) walk(child, `${path}/${at}`);
      } else if (node !== null && typeof node === "object") {
        const schema = node as Record<string, unknown>;
        if (schema.type === "integer") integers.push([path, schema]);
        for (const [key, child] of Object.entries(schema)) walk(child, `${path}/${key}`);
      }
    };
    for (const name of ["SpaceConfigValues", "SpaceConfig", "Quota"]) walk(document.components.schemas[name], name);
    expect(integers.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        "SpaceConfigValues/properties/rate_limits/properties/space_per_minute",
        "SpaceConfigValues/properties/rate_limits/properties/key_per_minute",
        "Quota/properties/limit",
      ]),
    );
    for (const [path, schema] of integers) {
      expect(typeof schema.maximum, path).toBe("number");
      expect(schema.maximum as number, path).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    }
    const rates = (document.components.schemas.SpaceConfigValues as { properties: { rate_limits: { properties: object } } })
      .properties.rate_limits.properties;
    expect(rates).toMatchObject({ key_per_minute: { maximum: 1_000_000 }, space_per_minute: { maximum: 1_000_000 } });
  });

  it("declares 429 with Retry-After on every route of a space that takes a credential", async () => {
    const { operations } = await servedDocument();
    // The development store's upload route takes no credential: it plays R2, and R2 does not answer 429.
    const limited = operations.filter(
      (operation) => operation.api === "data" && (operation.security === "sourceKey" || operation.security === "personToken"),
    );
    expect(limited.length).toBeGreaterThan(10);
    for (const operation of limited) {
      const answer = operation.responses["429"] as { headers?: Record<string, { schema: { type: string } }> } | undefined;
      expect(answer?.headers?.["Retry-After"]?.schema.type, `${operation.method} ${operation.path}`).toBe("integer");
    }
  });
});

describe("rate limits: an export's download link", () => {
  it("is limited as its own bucket beside the space's, though it carries no credential", async () => {
    const space = await createSpace();
    await json(await batch(space, [message({ handles: [handle] })]), 200);
    const security = await personToken(space, ["security"]);
    const made = await json<{ download: { url: string } }>(
      await call("POST", `/spaces/${space.name}/v1/exports`, { token: security, body: { handle } }),
      201,
    );
    const link = new URL(made.download.url);
    await clockAt(space, Date.now());
    await json(await configure(space, { rate_limits: { key_per_minute: 2 } }), 200);
    const download = () => call("GET", `${link.pathname}${link.search}`);
    for (let i = 0; i < 2; i++) expect((await download()).status).toBe(200);
    expect(await retryAfterOf(await download())).toBe(30);
    // A key's bucket is another: its reads still pass.
    expect((await contextRead(space)).status).toBe(200);
  });
});
