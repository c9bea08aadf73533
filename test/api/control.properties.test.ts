import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SpaceConfigValuesSchema } from "../../src/contract/config";
import { PersonInputSchema, ProjectInputSchema, TenantInputSchema } from "../../src/contract/control";
import {
  DELETE,
  fresh,
  hostileKey,
  hostileScalar,
  httpTrim,
  isJsonContentType,
  markedHeader,
  markedJson,
  ownObject,
  problemCode,
  send,
  setOwn,
  traceparentArb,
  trackRuns,
  tryParse,
} from "../support/hostile";
import { runs } from "../support/property-runs";
import { createSpace, createTenant, OPERATOR_TOKEN, type Space } from "../support/seed";

/**
 * Property-based hostile bodies on the control routes: tenants, people, projects and space
 * config. Each answer must match what the route's schema makes of the body: created (or a
 * conflict) when it takes the body, 422 invalid_input otherwise.
 */

const RUNS = {
  tenantBodies: 120,
  personBodies: 120,
  projectBodies: 120,
  configBodies: 150,
};
const finished = trackRuns(RUNS);

let adminToken: string;
let configSpace: Space;

beforeAll(async () => {
  adminToken = (await createTenant()).token;
  configSpace = await createSpace();
}, 60_000);

// ---------------------------------------------------------------------------------------------
// Control bodies: a valid body with one path set to a hostile value, deleted, or extended
// ---------------------------------------------------------------------------------------------

interface Mutation {
  path: string[];
  value: unknown;
}

function mutate(base: Record<string, unknown>, mutation: Mutation): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  const path = mutation.path;
  for (const segment of path.slice(0, -1)) {
    const next = target[segment];
    if (next === null || typeof next !== "object") return copy;
    target = next as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (mutation.value === DELETE) delete target[last];
  else setOwn(target, last, mutation.value);
  return copy;
}

function mutationArb(paths: string[][]): fc.Arbitrary<Mutation> {
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom([], ...paths.filter((p) => p.length === 1)), hostileKey).map(([p, k]) => [...p, k]),
    },
  );
  return fc.record({
    path,
    value: fc.oneof(
      { weight: 4, arbitrary: hostileScalar },
      { weight: 2, arbitrary: markedJson },
      { weight: 1, arbitrary: fc.constant(DELETE) },
    ),
  });
}

/** A body: marked JSON, or a valid body with one path set, deleted or added. */
function controlBody(valid: () => Record<string, unknown>, paths: string[][]): fc.Arbitrary<() => string> {
  return fc.oneof(
    { weight: 1, arbitrary: markedJson.map((value) => () => JSON.stringify(value) ?? "null") },
    { weight: 3, arbitrary: mutationArb(paths).map((mutation) => () => JSON.stringify(mutate(valid(), mutation))) },
  );
}

function accepts(schema: z.ZodType, text: string): boolean {
  const parsed = tryParse(text);
  return parsed.ok && schema.safeParse(parsed.value).success;
}

describe("control routes with hostile bodies", () => {
  it("POST /control/v1/tenants: 201 or 409 when the schema takes the body, 422 otherwise", async () => {
    const valid = () => ({
      name: "Tenant",
      admin: { email: `${fresh("t")}@example.test`, password: "correct horse battery staple", name: "Admin" },
    });
    const paths = [["name"], ["admin"], ["admin", "email"], ["admin", "password"], ["admin", "name"]];
    await fc.assert(
      fc.asyncProperty(controlBody(valid, paths), async (build) => {
        const body = build();
        const answer = await send({
          method: "POST",
          path: "/control/v1/tenants",
          headers: { "x-service-operator-token": OPERATOR_TOKEN, "content-type": "application/json" },
          body,
        });
        if (accepts(TenantInputSchema, body)) expect([201, 409], answer.text).toContain(answer.status);
        else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.tenantBodies) },
    );
    finished("tenantBodies");
  }, 120_000);

  it("POST /control/v1/people: 201 or 409 when the schema takes the body, 422 otherwise", async () => {
    const valid = () => ({
      email: `${fresh("person")}@example.test`,
      password: "correct horse battery staple",
      name: "Person",
      roles: ["review"],
      vendor_sources: [],
    });
    const paths = [["email"], ["password"], ["name"], ["roles"], ["roles", "0"], ["vendor_sources"]];
    await fc.assert(
      fc.asyncProperty(controlBody(valid, paths), async (build) => {
        const body = build();
        const answer = await send({
          method: "POST",
          path: "/control/v1/people",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body,
          secrets: [adminToken],
        });
        if (accepts(PersonInputSchema, body)) expect([201, 409], answer.text).toContain(answer.status);
        else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.personBodies) },
    );
    finished("personBodies");
  }, 120_000);

  it("POST /control/v1/projects: 201 only for a valid JSON body with a JSON Content-Type", async () => {
    const contentType = fc.oneof(
      { weight: 4, arbitrary: fc.constant("application/json") },
      { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=utf-8", "application/x-json", "") },
      { weight: 1, arbitrary: markedHeader },
    );
    await fc.assert(
      fc.asyncProperty(
        controlBody(() => ({ name: "Project" }), [["name"]]),
        contentType,
        async (build, type) => {
          const body = build();
          const answer = await send({
            method: "POST",
            path: "/control/v1/projects",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": type },
            body,
            secrets: [adminToken],
          });
          if (isJsonContentType(httpTrim(type)) && accepts(ProjectInputSchema, body))
            expect(answer.status, answer.text).toBe(201);
          else {
            expect(answer.status, answer.text).toBe(422);
            expect(problemCode(answer)).toBe("invalid_input");
          }
        },
      ),
      { numRuns: runs(RUNS.projectBodies) },
    );
    finished("projectBodies");
  }, 120_000);

  it("PUT /control/v1/spaces/<id>/config: 200 when the schema takes the values, 422 otherwise", async () => {
    const ConfigBodySchema = z.strictObject({ values: SpaceConfigValuesSchema });
    // Mostly valid values, so both answers occur; a value out of range, of the wrong type or marked otherwise.
    const field = (valid: fc.Arbitrary<unknown>, outOfRange: readonly unknown[]) =>
      fc.oneof(
        { weight: 20, arbitrary: valid },
        { weight: 1, arbitrary: fc.constantFrom(...outOfRange, 0.5, "1", true, null, []) },
        { weight: 1, arbitrary: fc.oneof(hostileScalar, markedJson) },
      );
    const int = (min: number, max: number) => fc.integer({ min, max });
    const windowValue = field(int(1, 7_776_000), [0, -1, 7_776_001]);
    const windows = fc.oneof(
      {
        weight: 10,
        arbitrary: fc.dictionary(
          fc.constantFrom("whatsapp", "app", "voice", "email", "ticket", "crm", "erp", "task"),
          windowValue,
          { maxKeys: 4 },
        ),
      },
      { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, windowValue), { minLength: 1, maxLength: 2 }).map(ownObject) },
    );
    const values = fc.record(
      {
        clock_tolerance_s: field(int(0, 86_400), [-1, 86_401]),
        session_windows: field(windows, [[], "whatsapp"]),
        hot_tier_budget_mb: field(int(1, 1024), [0, 1025]),
        coverage_tolerance: field(fc.double({ min: 0, max: 1, noNaN: true }), [-0.01, 1.01, 2]),
        silent_after_h: field(int(1, 2160), [0, 2161]),
        history_text_level: field(fc.constantFrom("V0", "V1", "V2", "V3", "V4", "no_customer"), ["v1", "V5", ""]),
        retention_days: field(int(1, 36_500), [0, 36_501]),
        rate_limits: field(
          fc.record(
            { space_per_minute: field(int(1, 1_000_000), [0, -5]), key_per_minute: field(int(1, 1_000_000), [0]) },
            { requiredKeys: [] },
          ),
          [[], 5],
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: values.map((v) => JSON.stringify({ values: v })) },
      {
        weight: 1,
        arbitrary: fc.tuple(values, hostileKey, hostileScalar).map(([v, key, value]) => {
          const extended = ownObject(Object.entries(v));
          setOwn(extended, key, value);
          return JSON.stringify({ values: extended });
        }),
      },
      { weight: 1, arbitrary: markedJson.map((v) => JSON.stringify(v) ?? "null") },
    );
    await fc.assert(
      fc.asyncProperty(body, traceparentArb, async (text, traceparent) => {
        const answer = await send({
          method: "PUT",
          path: `/control/v1/spaces/${configSpace.spaceId}/config`,
          headers: { authorization: `Bearer ${configSpace.tenant.token}`, "content-type": "application/json", traceparent },
          body: text,
        });
        if (accepts(ConfigBodySchema, text)) {
          expect(answer.status, answer.text).toBe(200);
          expect((answer.body as { space_id: string }).space_id).toBe(configSpace.spaceId);
        } else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: runs(RUNS.configBodies) },
    );
    finished("configBodies");
  }, 120_000);
});
