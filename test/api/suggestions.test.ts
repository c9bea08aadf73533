import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ProfileSchema, SuggestionPageSchema, SuggestionSchema } from "../../src/contract/identity";
import type { SpaceObject } from "../../src/space/object";
import { runAlarms } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

function stub(space: Space) {
  return env.SPACE.get(env.SPACE.idFromName(space.name));
}

/** Moves the object's clock past the debounce and fires its alarm until no timer is left. */
async function runJob(space: Space, laterMs = 60_000): Promise<number> {
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    const base = instance.clock.now();
    instance.clock = { now: () => base + laterMs };
  });
  return runAlarms(space);
}

function customer(phone: string, attributes: Record<string, string>) {
  return message({
    kind: "system_event",
    canonical_type: "customer.updated",
    channel: "crm",
    content: undefined,
    handles: [{ type: "phone_e164", value: phone }],
    attributes,
  });
}

async function suggestions(space: Space, query = "") {
  const response = await call("GET", `/spaces/${space.name}/v1/identity/suggestions${query}`, { token: space.key });
  return SuggestionPageSchema.parse(await json(response, 200));
}

function post(space: Space, path: string, key: string | null, token = space.key) {
  return call("POST", `/spaces/${space.name}${path}`, { token, headers: key === null ? {} : { "idempotency-key": key } });
}

describe("identity suggestions: found offline from shared traits and meetings", () => {
  it("suggests two profiles with the same name and postal code, with SPEC's features, masked identifiers", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550101", { name: "Ana  López", postal_code: "28001" }),
        customer("+15555550102", { name: "ana lópez", postal_code: "28 001" }),
        customer("+15555550103", { name: "Ana López" }),
        customer("+15555550104", { postal_code: "99999" }),
      ]),
      200,
    );
    expect((await suggestions(space)).data).toEqual([]);
    expect(await runJob(space)).toBeGreaterThanOrEqual(1);
    const page = await suggestions(space);
    // The names, then the meetings: each walk a slice at least, in the rounds of one alarm.
    expect(page.job.status).toBe("idle");
    expect(page.job.last_run?.slices).toBeGreaterThanOrEqual(2);
    // Both share name and postal code (0.58); the third shares only the name (0.4): not enough.
    expect(page.data).toHaveLength(1);
    const [suggestion] = page.data;
    expect(suggestion?.features).toEqual({ same_name: true, same_postal_code: true, co_occurrences: 0 });
    expect(suggestion?.score).toBeCloseTo(0.58);
    expect(suggestion?.status).toBe("open");
    expect([suggestion?.identifier_a?.value, suggestion?.identifier_b?.value].sort()).toEqual(["+15555550101", "+15555550102"]);
  });

  it("suggests profiles whose handles met in one event, and never merges them at intake", async () => {
    const space = await createSpace();
    await json(await batch(space, [message({ handles: [{ type: "phone_e164", value: "+15555550111" }] })]), 200);
    await json(await batch(space, [message({ handles: [{ type: "email", value: "bo@example.com" }] })]), 200);
    await json(
      await batch(space, [
        message({
          handles: [
            { type: "phone_e164", value: "+15555550111" },
            { type: "email", value: "bo@example.com" },
          ],
        }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space, "?status=open")).data;
    expect(suggestion?.features).toEqual({ same_name: false, same_postal_code: false, co_occurrences: 1 });
    expect(suggestion?.score).toBe(0.5);
    expect(suggestion?.profile_a).not.toBe(suggestion?.profile_b);
  });
});

describe("POST /v1/identity/suggestions/{id}/dismiss", () => {
  async function withSuggestion() {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550121", { name: "Cy", zip: "1000" }),
        customer("+15555550122", { name: "cy", zip: "1000" }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    if (!suggestion) throw new Error("no suggestion");
    return { space, suggestion };
  }

  it("rejects it; a retry with the same key replays; the same key for another request is 409", async () => {
    const { space, suggestion } = await withSuggestion();
    const path = `/v1/identity/suggestions/${suggestion.suggestion_id}/dismiss`;
    const first = SuggestionSchema.parse(await json(await post(space, path, "dismiss-1"), 200));
    expect(first.status).toBe("rejected");
    expect(await json(await post(space, path, "dismiss-1"), 200)).toEqual(first);
    const other = await json<{ code: string }>(await post(space, "/v1/identity/suggestions/other/dismiss", "dismiss-1"), 409);
    expect(other.code).toBe("conflict");
  });

  it("needs an Idempotency-Key of 1 to 256 characters, and answers 404 for an unknown suggestion", async () => {
    const { space, suggestion } = await withSuggestion();
    const path = `/v1/identity/suggestions/${suggestion.suggestion_id}/dismiss`;
    expect((await json<{ detail: string }>(await post(space, path, null), 422)).detail).toBe("header.idempotency-key: required");
    expect((await json<{ detail: string }>(await post(space, path, "k".repeat(257)), 422)).detail).toBe(
      "header.idempotency-key: too_big",
    );
    expect((await json<{ code: string }>(await post(space, "/v1/identity/suggestions/nope/dismiss", "x"), 404)).code).toBe(
      "not_found",
    );
  });

  it("does not bring a rejected pair back on the same evidence, and does on new evidence", async () => {
    const { space, suggestion } = await withSuggestion();
    await json(await post(space, `/v1/identity/suggestions/${suggestion.suggestion_id}/dismiss`, "d"), 200);
    await json(await batch(space, [customer("+15555550121", { name: "Cy", zip: "1000" })]), 200);
    await runJob(space);
    expect((await suggestions(space)).data.map((entry) => entry.status)).toEqual(["rejected"]);
    // New evidence: their handles meet in one event.
    await json(
      await batch(space, [
        message({
          handles: [
            { type: "phone_e164", value: "+15555550121" },
            { type: "phone_e164", value: "+15555550122" },
          ],
        }),
      ]),
      200,
    );
    await runJob(space);
    const [again] = (await suggestions(space)).data;
    expect(again?.status).toBe("open");
    expect(again?.features.co_occurrences).toBe(1);
  });
});

describe("POST /v1/identity/suggestions/{id}/accept", () => {
  it("merges the pair for a person with review, with method review, and a source key is 403 forbidden", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550131", { name: "Di", postcode: "X1" }),
        customer("+15555550132", { name: "DI", postcode: "x1" }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    if (!suggestion) throw new Error("no suggestion");
    const path = `/v1/identity/suggestions/${suggestion.suggestion_id}/accept`;
    expect((await json<{ code: string }>(await post(space, path, "a-1"), 403)).code).toBe("forbidden");
    const accepted = SuggestionSchema.parse(await json(await post(space, path, "a-1", space.tenant.token), 200));
    expect(accepted.status).toBe("accepted");
    const profile = ProfileSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${suggestion.profile_b}`, { token: space.key }), 200),
    );
    expect(profile.merged_profile_ids.length + 1).toBe(2);
    expect(profile.merges.map((merge) => merge.method)).toEqual(["review"]);
    expect(profile.identifiers.map((identifier) => identifier.handle_id).sort()).toEqual(
      [suggestion.handle_a, suggestion.handle_b].sort(),
    );
  });
});
