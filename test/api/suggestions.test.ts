import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ContextSchema } from "../../src/contract/context";
import { ProfileSchema, SuggestionPageSchema, SuggestionSchema } from "../../src/contract/identity";
import type { SpaceObject } from "../../src/space/object";
import { identifyItem, personToken } from "../support/identity";
import { runAlarms } from "../support/memory";
import { batch, call, createKey, createSpace, json, message, type Space } from "../support/seed";

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

async function configure(space: Space, values: Record<string, unknown>) {
  await json(
    await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } }),
    200,
  );
}

/** The features of a suggestion as `{comparison: level}`. */
const levels = (suggestion: { features: { comparisons: { comparison: string; level: string }[] } } | undefined) =>
  Object.fromEntries((suggestion?.features.comparisons ?? []).map((feature) => [feature.comparison, feature.level]));

describe("identity suggestions: found offline by probabilistic record linkage", () => {
  it("suggests two profiles with the same name and postal code, with comparisons, levels and weights, masked identifiers", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550101", { name: "Ana  López", postal_code: "28001" }),
        customer("+15555550102", { name: "ana lopez", postal_code: "28 001" }),
        customer("+15555550103", { name: "Ana López" }),
        customer("+15555550104", { postal_code: "99999" }),
      ]),
      200,
    );
    expect((await suggestions(space)).data).toEqual([]);
    expect(await runJob(space)).toBeGreaterThanOrEqual(1);
    const page = await suggestions(space);
    expect(page.job.status).toBe("idle");
    expect(page.job.last_run?.slices).toBeGreaterThanOrEqual(1);
    // A shared name alone is not enough in a space this small (the prior: 1 in 10,000 pairs).
    expect(page.data).toHaveLength(1);
    const [suggestion] = page.data;
    expect(levels(suggestion)).toEqual({
      given_name: "exact",
      family_name: "exact",
      postal_code: "exact",
      phone_national: "different",
    });
    expect(suggestion?.features.comparisons.filter((feature) => feature.weight < 0).map((feature) => feature.comparison)).toEqual(
      ["phone_national"],
    );
    // SPEC's summary beside the comparisons.
    expect(suggestion?.features).toMatchObject({ same_name: true, same_postal_code: true, co_occurrences: 0 });
    expect(suggestion?.score).toBeGreaterThanOrEqual(0.8);
    // score = 2^w / (1 + 2^w), w the prior plus the features' weights.
    expect(suggestion?.score).toBeCloseTo(1 / (1 + 2 ** -(suggestion?.match_weight ?? 0)), 2);
    expect(suggestion?.status).toBe("open");
    expect([suggestion?.identifier_a?.value, suggestion?.identifier_b?.value].sort()).toEqual(["+15555550101", "+15555550102"]);
    // Reasons, never values.
    expect(JSON.stringify(suggestion)).not.toMatch(/ana|l[oó]pez|28001/i);
    // A reviewer sees the same reasons, and the identifiers masked.
    const review = await personToken(space, ["review"]);
    const response = await call("GET", `/spaces/${space.name}/v1/identity/suggestions`, { token: review });
    const [reviewed] = SuggestionPageSchema.parse(await json(response, 200)).data;
    expect(reviewed?.features).toEqual(suggestion?.features);
    expect([reviewed?.identifier_a?.value, reviewed?.identifier_b?.value].sort()).toEqual(["+*******0101", "+*******0102"]);
    expect(JSON.stringify(reviewed)).not.toMatch(/ana|l[oó]pez|28001|15555550101|15555550102/i);
  });

  it("finds records that differ as people and systems write them: a typo, a nickname, a transposed date, a move", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550141", {
          given_name: "Jonathan",
          surname: "Fairweather",
          date_of_birth: "1984-03-07",
          postcode: "2041",
          street: "12 Beattie Street",
          suburb: "Balmain",
        }),
        customer("+15555550142", {
          name: "Jonathon Fairwether",
          dob: "07/03/1984",
          zip: "3056",
          address: "4 Sydney Rd",
          city: "Brunswick",
        }),
        customer("+15555550143", { name: "Jon Fairweather", birth_date: "1984-07-03", postal_code: "2041" }),
        customer("+15555550144", { name: "Fairweather Jonathan", date_of_birth: "1984-03-07" }),
        customer("+15555550145", { name: "Maria Fairweather", date_of_birth: "1951-11-30", postal_code: "2041" }),
      ]),
      200,
    );
    await runJob(space);
    const found = (await suggestions(space)).data;
    const phones = (suggestion: (typeof found)[number]) =>
      [suggestion.identifier_a?.value, suggestion.identifier_b?.value].sort().join(" ");
    const byPair = new Map(found.map((suggestion) => [phones(suggestion), suggestion]));
    expect(levels(byPair.get("+15555550141 +15555550142"))).toMatchObject({
      given_name: "close",
      family_name: "close",
      birth_date: "exact",
    });
    expect(levels(byPair.get("+15555550141 +15555550143"))).toMatchObject({ given_name: "similar", birth_date: "transposed" });
    expect(levels(byPair.get("+15555550141 +15555550144"))).toMatchObject({ family_name: "swapped", birth_date: "exact" });
    // Names written the other way round are the same name; a typo's are not.
    expect(byPair.get("+15555550141 +15555550144")?.features.same_name).toBe(true);
    expect(byPair.get("+15555550141 +15555550142")?.features).toMatchObject({ same_name: false, same_postal_code: false });
    // The same family name and postal code, another person: not suggested.
    expect([...byPair.keys()].some((pair) => pair.includes("+15555550145"))).toBe(false);
  });

  it("suggests a merged profile once, with the evidence of its member that matches best", async () => {
    const space = await createSpace();
    const [weaker, stronger, other] = ["+15555550161", "+15555550162", "+15555550163"];
    const person = { name: "Jonathan Fairweather", postal_code: "2041" };
    // Written in this order, the weaker member pair (no birth date to compare) is read first.
    await json(
      await batch(space, [
        customer(weaker, person),
        customer(stronger, { ...person, date_of_birth: "1984-03-07" }),
        customer(other, { ...person, date_of_birth: "1984-03-07" }),
      ]),
      200,
    );
    await json(
      await batch(space, [
        identifyItem([
          { type: "phone_e164", value: weaker },
          { type: "phone_e164", value: stronger },
        ]),
      ]),
      200,
    );
    await runJob(space);
    const found = (await suggestions(space)).data;
    expect(found).toHaveLength(1);
    expect(levels(found[0])).toMatchObject({ given_name: "exact", family_name: "exact", birth_date: "exact" });
  });

  it("compares the handles a profile already holds, not only those of the record with its traits", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        // A chat gives the profile its e-mail; the CRM's record later names it by its phone alone.
        message({
          handles: [
            { type: "phone_e164", value: "+15555550161" },
            { type: "email", value: "jfairweather@home.example" },
          ],
        }),
      ]),
      200,
    );
    await json(
      await batch(space, [
        customer("+15555550161", { name: "Jonathan Fairweather", postal_code: "2041" }),
        message({
          kind: "system_event",
          canonical_type: "customer.updated",
          channel: "crm",
          content: undefined,
          handles: [{ type: "email", value: "jfairweather@work.example" }],
          attributes: { name: "Jonathan Fairweather", postal_code: "2041" },
        }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    expect(levels(suggestion)).toMatchObject({ given_name: "exact", family_name: "exact", email_local: "exact" });
  });

  it("reads a space's own attribute names (identity_traits) and keeps its threshold (suggestion_threshold)", async () => {
    const space = await createSpace();
    await configure(space, {
      identity_traits: { vorname: "given_name", nachname: "family_name", plz: "postal_code", name: null },
    });
    await json(
      await batch(space, [
        customer("+15555550151", { vorname: "Jörg", nachname: "Müller", plz: "10115", name: "ACME GmbH" }),
        customer("+15555550152", { vorname: "Jorg", nachname: "Muller", plz: "10115", name: "Other GmbH" }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    expect(levels(suggestion)).toMatchObject({ given_name: "exact", family_name: "exact", postal_code: "exact" });
    // A threshold above the pair's probability: the next run withdraws the open suggestion.
    await configure(space, { suggestion_threshold: 0.9999 });
    await json(await batch(space, [customer("+15555550153", { given_name: "Eva" })]), 200);
    await runJob(space);
    expect((await suggestions(space)).data).toEqual([]);
  });

  it("refuses a mapping to something that is not a trait", async () => {
    const space = await createSpace();
    const answer = await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
      token: space.tenant.token,
      body: { values: { identity_traits: { vorname: "first" } } },
    });
    expect(answer.status).toBe(422);
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
    expect(suggestion?.features).toEqual({
      same_name: false,
      same_postal_code: false,
      co_occurrences: 1,
      comparisons: [{ comparison: "meetings", level: "one", weight: 24 }],
    });
    expect(suggestion?.score).toBeGreaterThan(0.99);
    expect(suggestion?.profile_a).not.toBe(suggestion?.profile_b);
  });
});

describe("POST /v1/identity/suggestions/{id}/dismiss", () => {
  async function withSuggestion() {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550121", { name: "Cy Twombly", zip: "1000" }),
        customer("+15555550122", { name: "cy twombly", zip: "1000" }),
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
    await json(await batch(space, [customer("+15555550121", { name: "Cy Twombly", zip: "1000" })]), 200);
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
    expect(levels(again).meetings).toBe("one");
  });
});

describe("a rejected pair after one of its profiles merged into another", () => {
  it("stays rejected: the same evidence between their members does not make a new suggestion of the survivors", async () => {
    const space = await createSpace();
    // The older profile a merge will keep.
    await json(await batch(space, [message({ handles: [{ type: "phone_e164", value: "+15555550125" }] })]), 200);
    await json(
      await batch(space, [
        customer("+15555550123", { name: "Ada Ferreira", zip: "4000" }),
        customer("+15555550124", { name: "ADA FERREIRA", zip: "4000" }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    if (!suggestion) throw new Error("no suggestion");
    await json(await post(space, `/v1/identity/suggestions/${suggestion.suggestion_id}/dismiss`, "d-merge"), 200);
    const merged = identifyItem([
      { type: "phone_e164", value: "+15555550124" },
      { type: "phone_e164", value: "+15555550125" },
    ]);
    expect(await json(await batch(space, [merged]), 200)).toMatchObject({ accepted: 1 });
    await runJob(space);
    expect((await suggestions(space)).data.map((entry) => [entry.suggestion_id, entry.status])).toEqual([
      [suggestion.suggestion_id, "rejected"],
    ]);
  });
});

describe("POST /v1/identity/suggestions/{id}/accept", () => {
  it("merges the pair for a person with review, with method review, and a source key is 403 forbidden", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550131", { name: "Di Stefano", postcode: "X1" }),
        customer("+15555550132", { name: "DI STEFANO", postcode: "x1" }),
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

describe("an accepted suggestion's memory", () => {
  it("joins the absorbed profile's memory to the survivor's, as any merge does, and an undo splits it again", async () => {
    const space = await createSpace();
    const a = { type: "phone_e164", value: "+15555550133" };
    const b = { type: "phone_e164", value: "+15555550134" };
    await json(
      await batch(space, [
        customer(a.value, { name: "Ines Moreau", postcode: "Z9", plan: "gold" }),
        customer(b.value, { name: "INES MOREAU", postcode: "z9", shoe_size: "41" }),
      ]),
      200,
    );
    await runJob(space);
    const [suggestion] = (await suggestions(space)).data;
    if (!suggestion) throw new Error("no suggestion");
    const facts = async (handle: typeof a) => {
      await runJob(space, 1_000);
      const context = ContextSchema.parse(
        await json(await call("POST", `/spaces/${space.name}/v1/context`, { token: space.key, body: { handle } }), 200),
      );
      return context.memory.facts
        .map((fact) => fact.key)
        .filter((key) => key === "plan" || key === "shoe_size")
        .sort();
    };
    expect(await facts(a)).toEqual(["plan"]);
    expect(await facts(b)).toEqual(["shoe_size"]);
    const path = `/v1/identity/suggestions/${suggestion.suggestion_id}/accept`;
    SuggestionSchema.parse(await json(await post(space, path, "accept-1", space.tenant.token), 200));
    expect(await facts(a)).toEqual(["plan", "shoe_size"]);
    expect(await facts(b)).toEqual(["plan", "shoe_size"]);
    const profile = ProfileSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${suggestion.profile_a}`, { token: space.key }), 200),
    );
    const mergeId = profile.merges[0]?.merge_id;
    await json(await post(space, `/v1/identity/merges/${mergeId}/undo`, "undo-1", space.tenant.token), 200);
    expect(await facts(a)).toEqual(["plan"]);
    expect(await facts(b)).toEqual(["shoe_size"]);
  });
});

describe("reviewing suggestions: the list, verdicts on decided ones, who may", () => {
  /** Three pairs, each a suggestion: the same name and postal code twice over. */
  async function threePairs() {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550141", { name: "Ines Barros", postal_code: "4000" }),
        customer("+15555550142", { name: "ines barros", postal_code: "4000" }),
        customer("+15555550143", { name: "Teo Halvorsen", postal_code: "5000" }),
        customer("+15555550144", { name: "teo halvorsen", postal_code: "5000" }),
        customer("+15555550145", { name: "Ruth Abiodun", postal_code: "6000" }),
        customer("+15555550146", { name: "ruth abiodun", postal_code: "6000" }),
      ]),
      200,
    );
    await runJob(space);
    const found = (await suggestions(space)).data;
    expect(found).toHaveLength(3);
    return { space, found };
  }

  const verdict = (space: Space, id: string, action: "accept" | "dismiss", token: string) =>
    post(space, `/v1/identity/suggestions/${id}/${action}`, crypto.randomUUID(), token);

  it("filters by status and pages with issued cursors", async () => {
    const { space, found } = await threePairs();
    const [first] = found;
    await json(await verdict(space, first?.suggestion_id ?? "", "dismiss", space.key), 200);
    expect((await suggestions(space, "?status=open")).data.map((entry) => entry.status)).toEqual(["open", "open"]);
    expect((await suggestions(space, "?status=rejected")).data.map((entry) => entry.suggestion_id)).toEqual([
      first?.suggestion_id,
    ]);
    expect((await suggestions(space, "?status=accepted")).data).toEqual([]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof suggestions>> = await suggestions(
        space,
        `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data.map((entry) => entry.suggestion_id));
      cursor = page.next_cursor;
    } while (cursor !== null && seen.length < 10);
    expect(seen).toEqual(found.map((entry) => entry.suggestion_id));
  });

  it("answers a verdict on a decided suggestion as it stands: no second merge, an accepted one stays accepted, a dismissed one may be accepted", async () => {
    const { space, found } = await threePairs();
    const [one, two] = found;
    const review = await personToken(space, ["review"]);
    const accepted = SuggestionSchema.parse(await json(await verdict(space, one?.suggestion_id ?? "", "accept", review), 200));
    expect(accepted.status).toBe("accepted");
    const again = SuggestionSchema.parse(await json(await verdict(space, one?.suggestion_id ?? "", "accept", review), 200));
    expect(again.status).toBe("accepted");
    const merged = ProfileSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${one?.profile_a}`, { token: space.key }), 200),
    );
    expect(merged.merges).toHaveLength(1);
    const dismissed = SuggestionSchema.parse(await json(await verdict(space, one?.suggestion_id ?? "", "dismiss", review), 200));
    expect(dismissed.status).toBe("accepted");
    await json(await verdict(space, two?.suggestion_id ?? "", "dismiss", review), 200);
    const changedMind = SuggestionSchema.parse(await json(await verdict(space, two?.suggestion_id ?? "", "accept", review), 200));
    expect(changedMind.status).toBe("accepted");
    const second = ProfileSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${two?.profile_b}`, { token: space.key }), 200),
    );
    expect(second.merges.map((merge) => merge.method)).toEqual(["review"]);
  });

  it("is read and decided by keys with identify and people with review; everyone else is 403", async () => {
    const { space, found } = await threePairs();
    const id = found[0]?.suggestion_id ?? "";
    const list = (token: string) => call("GET", `/spaces/${space.name}/v1/identity/suggestions`, { token });
    const contextKey = (await createKey(space.tenant.token, space.sourceId, ["context", "track"])).key;
    for (const response of [await list(contextKey), await verdict(space, id, "dismiss", contextKey)]) {
      expect((await json<{ code: string }>(response, 403)).code).toBe("scope_missing");
    }
    for (const roles of [["security"], ["integration"], ["analysis"], ["vendor"]]) {
      const token = await personToken(space, roles, roles[0] === "vendor" ? [space.sourceId] : undefined);
      for (const response of [
        await list(token),
        await verdict(space, id, "dismiss", token),
        await verdict(space, id, "accept", token),
      ]) {
        expect((await json<{ code: string }>(response, 403)).code, roles[0]).toBe("forbidden");
      }
    }
    const review = await personToken(space, ["review"]);
    expect(SuggestionPageSchema.parse(await json(await list(review), 200)).data).toHaveLength(3);
    // Nothing was decided by the refused calls.
    expect((await suggestions(space, "?status=open")).data).toHaveLength(3);
  });

  it("withdraws an open suggestion once its profiles are merged by other means", async () => {
    const { space, found } = await threePairs();
    const pair = [
      { type: "phone_e164", value: "+15555550141" },
      { type: "phone_e164", value: "+15555550142" },
    ];
    const profiles = await Promise.all(
      pair.map(async (handle) =>
        ProfileSchema.parse(
          await json(await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token: space.key, body: { handle } }), 200),
        ),
      ),
    );
    const ids = new Set(profiles.map((profile) => profile.profile_id));
    const theirs = found.find((entry) => ids.has(entry.profile_a) && ids.has(entry.profile_b));
    expect(theirs).toBeDefined();
    await json(await batch(space, [identifyItem(pair)]), 200);
    await runJob(space, 120_000);
    expect((await suggestions(space)).data.map((entry) => entry.suggestion_id)).toEqual(
      found.filter((entry) => entry !== theirs).map((entry) => entry.suggestion_id),
    );
  });

  it("refuses a threshold outside 0.5 to 0.9999", async () => {
    const space = await createSpace();
    for (const suggestion_threshold of [0.49, 1, 2]) {
      const response = await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        body: { values: { suggestion_threshold } },
      });
      expect((await json<{ code: string }>(response, 422)).code).toBe("invalid_input");
    }
    await configure(space, { suggestion_threshold: 0.9999 });
  });
});
