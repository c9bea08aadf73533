import { beforeAll, describe, expect, it } from "vitest";
import { type Link, LinkSchema, MergeSchema, type Profile, ProfileSchema } from "../../src/contract/identity";
import {
  createSource,
  email,
  endLinkResponse,
  event,
  expectNoPersonalData,
  expectProblem,
  getProfile,
  getProfileResponse,
  type Handle,
  identifyItem,
  link,
  linkResponse,
  lookup,
  lookupResponse,
  notePersonalData,
  personToken,
  phone,
  query,
  restartSpaceObject,
  systemId,
  undo,
  undoResponse,
} from "../support/identity";
import { batch, call, createKey, createSpace, json, type Space } from "../support/seed";

/**
 * Identity through the Worker (DESIGN 3.5): handles resolve to profiles at intake, `identify`
 * merges into the oldest profile, merges undo exactly (across a restart too), profile reads are
 * masked by role and scope and limited by vendor bindings, lookups create nothing, links live
 * and end. Every answer is parsed with the route's response schema; every error answer's
 * `detail` is checked for the personal data the test sent.
 */

interface BatchAnswer {
  accepted: number;
  duplicates: number;
  errors: { index: number; code: string; detail: string }[];
}

// Fictional numbers (+1 555 555 01xx) and example.com addresses.
const PHONE_A = "+15555550100";
const PHONE_B = "+15555550101";
const PHONE_C = "+15555550102";
const PHONE_D = "+15555550103";
const PHONE_E = "+15555550104";
const EMAIL_A = "jane@example.com";
const EMAIL_B = "omar@example.com";
const EMAIL_C = "li@example.com";
const CRM_A = "crm-00012345";
const BAD_PHONES = ["+1 555 FLOWERS", "+999 12345678", "+1 23", "555-0100"];
notePersonalData(PHONE_A, PHONE_B, PHONE_C, PHONE_D, PHONE_E, EMAIL_A, EMAIL_B, EMAIL_C, CRM_A, ...BAD_PHONES);
notePersonalData("+1 (555) 555-0100", "0015555550100", "tel:+1-555-555-0100", "Jane@Example.com");

/** Sends items in one batch and expects every one accepted. */
async function accept(space: Space, items: Record<string, unknown>[], key = space.key): Promise<void> {
  const answer = await json<BatchAnswer>(await batch(space, items, key), 200);
  expect(answer).toEqual({ accepted: items.length, duplicates: 0, errors: [] });
}

/** The profile that answers for a handle now (a whole-value read with the space's all-scopes key). */
async function profileOf(space: Space, handle: Handle): Promise<Profile> {
  return lookup(space, handle);
}

const values = (profile: Profile) => profile.identifiers.map((identifier) => identifier.value).sort();
const handleIds = (profile: Profile) => profile.identifiers.map((identifier) => identifier.handle_id).sort();

/** Each event item's profile as stored, and the profile it resolves to now. */
async function itemProfiles(space: Space) {
  return query<{ idempotency_key: string; type: string; profile_id: string | null; root_id: string | null }>(
    space,
    `SELECT i.idempotency_key, i.type, i.profile_id, p.root_id FROM items i
       LEFT JOIN profiles p ON p.profile_id = i.profile_id ORDER BY i.seq`,
  );
}

async function itemIdOf(space: Space, idempotencyKey: string): Promise<string> {
  const rows = await query<{ item_id: string }>(space, "SELECT item_id FROM items WHERE idempotency_key = ?", idempotencyKey);
  expect(rows).toHaveLength(1);
  return rows[0]?.item_id ?? "";
}

/** One profile per handle, each created by a batch of its own, in order: `ids[0]` is the oldest. */
async function profilesInOrder(space: Space, handles: Handle[]): Promise<string[]> {
  const ids: string[] = [];
  for (const handle of handles) {
    await accept(space, [event([handle])]);
    ids.push((await profileOf(space, handle)).profile_id);
  }
  return ids;
}

describe("an event resolves to a profile: a new one when no handle is known, and unknown handles join it", () => {
  it("creates one profile for an event of unknown handles, and a later event's unknown handles join it", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    const first = await profileOf(space, phone(PHONE_A));
    expect(values(first)).toEqual([PHONE_A, EMAIL_A].sort());
    expect(first.subject_kind).toBe("person");
    expect(first.merges).toEqual([]);

    await accept(space, [event([email(EMAIL_A), systemId(CRM_A)])]);
    const after = await profileOf(space, systemId(CRM_A));
    expect(after.profile_id).toBe(first.profile_id);
    expect(values(after)).toEqual([PHONE_A, EMAIL_A, CRM_A].sort());
    expect(after.identifiers.every((identifier) => identifier.status === "active")).toBe(true);

    const rows = await itemProfiles(space);
    expect(rows.map((row) => row.profile_id)).toEqual([first.profile_id, first.profile_id]);
    expect(await query(space, "SELECT profile_id FROM profiles")).toHaveLength(1);
  });

  it("takes subject.profile_id first, and finds an event about an object alone through the object's first profile", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A)], { object: { object_type: "order", object_id: "o-1" } })]);
    const owner = await profileOf(space, phone(PHONE_A));
    await accept(space, [event([phone(PHONE_B)])]);
    const other = await profileOf(space, phone(PHONE_B));

    // subject.profile_id wins over a known handle of another profile; the unknown handle joins it.
    await accept(space, [event([phone(PHONE_B), email(EMAIL_A)], { subject: { profile_id: owner.profile_id } })]);
    expect((await profileOf(space, email(EMAIL_A))).profile_id).toBe(owner.profile_id);
    expect((await profileOf(space, phone(PHONE_B))).profile_id).toBe(other.profile_id);

    // An event about the object alone belongs to the object's profile.
    const objectOnly = event([], { object: { object_type: "order", object_id: "o-1" } });
    delete objectOnly.handles;
    await accept(space, [objectOnly]);
    const rows = await itemProfiles(space);
    expect(rows.at(-1)?.profile_id).toBe(owner.profile_id);

    // A subject.profile_id the space does not have refuses that item alone.
    const answer = await json<BatchAnswer>(
      await batch(space, [event([phone(PHONE_C)], { subject: { profile_id: crypto.randomUUID() } }), event([phone(PHONE_D)])]),
      207,
    );
    expect(answer.accepted).toBe(1);
    expect(answer.errors).toEqual([{ index: 0, code: "not_found", detail: "subject.profile_id: unknown_profile" }]);
    await expectProblem(await lookupResponse(space, phone(PHONE_C)), 404, "not_found");
  });
});

describe("a handle keeps when it was seen in memory time, a duplicate item has no identity effect, verify raises levels", () => {
  it("widens first_seen and last_seen by occurred_at, whatever the arrival order", async () => {
    const space = await createSpace();
    const early = "2026-01-10T08:00:00.000Z";
    const middle = "2026-01-11T08:00:00.000Z";
    const late = "2026-01-12T08:00:00.000Z";
    await accept(space, [event([phone(PHONE_A)], { occurred_at: middle })]);
    await accept(space, [event([phone(PHONE_A)], { occurred_at: late }), event([phone(PHONE_A)], { occurred_at: early })]);
    const [identifier] = (await profileOf(space, phone(PHONE_A))).identifiers;
    expect([identifier?.first_seen, identifier?.last_seen]).toEqual([early, late]);
  });

  it("gives a resent idempotency_key no identity effect, even with other handles", async () => {
    const space = await createSpace();
    const first = event([phone(PHONE_A)]);
    await accept(space, [first]);
    const answer = await json<BatchAnswer>(
      await batch(space, [
        { ...first, handles: [phone(PHONE_A), email(EMAIL_A)] },
        identifyItem([phone(PHONE_A), phone(PHONE_B)]),
      ]),
      200,
    );
    expect([answer.accepted, answer.duplicates]).toEqual([1, 1]);
    expect(values(await profileOf(space, phone(PHONE_A)))).toEqual([PHONE_A, PHONE_B].sort());
    await expectProblem(await lookupResponse(space, email(EMAIL_A)), 404, "not_found");
  });

  it("raises the level of the handles a verify names, never lowers it, and the profile shows the highest", async () => {
    const space = await createSpace({ source: { kind: "human_desk" } });
    const verify = (level: string, handles: Handle[]) => ({
      type: "verify",
      idempotency_key: crypto.randomUUID(),
      conversation_id: "conv-1",
      level,
      method: "otp",
      handles,
    });
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    await accept(space, [verify("V3", [phone(PHONE_A)])]);
    await accept(space, [verify("V1", [phone(PHONE_A)]), verify("no_customer", [email(EMAIL_A)])]);
    const profile = await profileOf(space, phone(PHONE_A));
    expect(profile.level).toBe("V3");
    const levels = Object.fromEntries(profile.identifiers.map((identifier) => [identifier.value, identifier.level]));
    expect(levels).toEqual({ [PHONE_A]: "V3", [EMAIL_A]: "V0" });
  });
});

describe("a phone is one handle whatever its spelling", () => {
  it("puts two spellings of one number on one handle and one profile", async () => {
    const space = await createSpace();
    await accept(space, [event([phone("+1 (555) 555-0100")])]);
    await accept(space, [event([phone("0015555550100")]), event([phone("tel:+1-555-555-0100")])]);
    await accept(space, [event([email("Jane@Example.com")]), event([email(` ${EMAIL_A} `)])]);

    const handles = await query<{ type: string; value: string }>(space, "SELECT type, value FROM handles ORDER BY type");
    expect(handles).toEqual([
      { type: "email", value: EMAIL_A },
      { type: "phone_e164", value: PHONE_A },
    ]);
    const profile = await profileOf(space, phone(PHONE_A));
    expect(profile.identifiers.map((identifier) => identifier.value)).toEqual([PHONE_A]);
    const items = await itemProfiles(space);
    expect(new Set(items.slice(0, 3).map((row) => row.profile_id))).toEqual(new Set([profile.profile_id]));
  });
});

describe("a phone that cannot be normalized refuses its item with invalid_input, naming the rule and never the value", () => {
  it("refuses events and identify items with a bad phone, stores the rest, and creates no handle for them", async () => {
    const space = await createSpace();
    const items = [
      ...BAD_PHONES.map((value) => event([phone(value)])),
      identifyItem([phone(PHONE_A), phone(BAD_PHONES[1] ?? "")]),
      event([phone(PHONE_B)]),
    ];
    const answer = await json<BatchAnswer>(await batch(space, items), 207);
    expect(answer.accepted).toBe(1);
    expect(answer.errors).toEqual([
      ...BAD_PHONES.map((_, index) => ({ index, code: "invalid_input", detail: "handles.0.value: phone_not_normalizable" })),
      { index: BAD_PHONES.length, code: "invalid_input", detail: "handles.1.value: phone_not_normalizable" },
    ]);
    for (const error of answer.errors) expectNoPersonalData(error.detail, BAD_PHONES);
    const handles = await query<{ value: string }>(space, "SELECT value FROM handles");
    expect(handles).toEqual([{ value: PHONE_B }]);
  });

  it("refuses a lookup of a bad phone with 422 naming the rule", async () => {
    const space = await createSpace();
    for (const value of BAD_PHONES) {
      const problem = await expectProblem(await lookupResponse(space, phone(value)), 422, "invalid_input");
      expect(problem.detail).toBe("handle.value: phone_not_normalizable");
    }
  });
});

describe("an event never merges: known handles of two profiles stay in their own profiles", () => {
  it("resolves the event to its first known handle's profile and leaves the other profile whole", async () => {
    const space = await createSpace();
    const [first = "", second = ""] = await profilesInOrder(space, [phone(PHONE_A), phone(PHONE_B)]);
    await accept(space, [event([phone(PHONE_A), phone(PHONE_B)])]);
    await accept(space, [event([phone(PHONE_B), phone(PHONE_A)])]);

    const rows = await itemProfiles(space);
    expect(rows.slice(2).map((row) => row.profile_id)).toEqual([first, second]);
    const one = await getProfile(space, first);
    const two = await getProfile(space, second);
    expect([one.profile_id, values(one), one.merges]).toEqual([first, [PHONE_A], []]);
    expect([two.profile_id, values(two), two.merges]).toEqual([second, [PHONE_B], []]);
    expect(await query(space, "SELECT merge_id FROM merges")).toEqual([]);
  });
});

describe("identify merges the profiles of its handles into the oldest, and merged-away ids keep resolving", () => {
  it("merges the younger profile into the older, whichever handle comes first, with the merge and its evidence", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A)])]);
    const older = (await profileOf(space, phone(PHONE_A))).profile_id;
    await accept(space, [event([phone(PHONE_B), email(EMAIL_B)])]);
    const younger = (await profileOf(space, phone(PHONE_B))).profile_id;

    const identify = identifyItem([email(EMAIL_B), phone(PHONE_A)]);
    await accept(space, [identify]);

    const viaYounger = await getProfile(space, younger);
    const viaOlder = await getProfile(space, older);
    expect(viaYounger.profile_id).toBe(older);
    expect(viaYounger).toEqual(viaOlder);
    expect(values(viaYounger)).toEqual([PHONE_A, PHONE_B, EMAIL_B].sort());
    expect(viaYounger.merged_profile_ids).toEqual([younger]);
    expect(viaYounger.merges).toHaveLength(1);
    expect(viaYounger.merges[0]).toMatchObject({
      survivor_id: older,
      absorbed_id: younger,
      method: "agent",
      item_id: await itemIdOf(space, String(identify.idempotency_key)),
      source_id: space.sourceId,
      undone: false,
      undone_at: null,
    });
    // One answer, one ETag, whichever id asked.
    const tagYounger = (await getProfileResponse(space, younger)).headers.get("etag");
    expect(tagYounger).toBe((await getProfileResponse(space, older)).headers.get("etag"));
    // The identify item belongs to the survivor; an event on the younger's handle now resolves there too.
    await accept(space, [event([email(EMAIL_B)])]);
    const rows = await itemProfiles(space);
    expect(rows.at(-2)).toMatchObject({ type: "identify", profile_id: older });
    expect(rows.at(-1)?.root_id).toBe(older);
  });

  it("lets unknown handles of an identify join the survivor, and makes one profile of handles all unknown", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A)])]);
    const known = (await profileOf(space, phone(PHONE_A))).profile_id;
    await accept(space, [identifyItem([phone(PHONE_A), email(EMAIL_A)])]);
    expect((await profileOf(space, email(EMAIL_A))).profile_id).toBe(known);

    await accept(space, [identifyItem([phone(PHONE_B), email(EMAIL_B), systemId(CRM_A)], { subject_kind: "account" })]);
    const created = await profileOf(space, systemId(CRM_A));
    expect(created.profile_id).not.toBe(known);
    expect(created.subject_kind).toBe("account");
    expect(values(created)).toEqual([PHONE_B, EMAIL_B, CRM_A].sort());
    expect(await query(space, "SELECT merge_id FROM merges")).toEqual([]);
  });

  it("merges three profiles at once into the oldest, one merge per younger profile", async () => {
    const space = await createSpace();
    const [oldest = "", middle = "", youngest = ""] = await profilesInOrder(space, [
      phone(PHONE_A),
      phone(PHONE_B),
      phone(PHONE_C),
    ]);
    await accept(space, [identifyItem([phone(PHONE_C), phone(PHONE_B), phone(PHONE_A)])]);
    const profile = await getProfile(space, youngest);
    expect(profile.profile_id).toBe(oldest);
    expect([...profile.merged_profile_ids].sort()).toEqual([middle, youngest].sort());
    expect(profile.merges.map((merge) => [merge.survivor_id, merge.absorbed_id]).sort()).toEqual(
      [
        [oldest, middle],
        [oldest, youngest],
      ].sort(),
    );
  });
});

describe("merge chains resolve in one read", () => {
  it("answers C for A after A merged into B and B's cluster into C, with every handle, and stores A's root in one step", async () => {
    const space = await createSpace();
    const [c = "", b = "", a = ""] = await profilesInOrder(space, [phone(PHONE_C), phone(PHONE_B), phone(PHONE_A)]);
    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_B)])]);
    expect((await getProfile(space, a)).profile_id).toBe(b);
    await accept(space, [identifyItem([phone(PHONE_B), phone(PHONE_C)])]);

    const profile = await getProfile(space, a);
    expect(profile.profile_id).toBe(c);
    expect(values(profile)).toEqual([PHONE_A, PHONE_B, PHONE_C].sort());
    expect([...profile.merged_profile_ids].sort()).toEqual([a, b].sort());
    expect(profile.merges.map((merge) => [merge.absorbed_id, merge.survivor_id]).sort()).toEqual(
      [
        [a, b],
        [b, c],
      ].sort(),
    );
    const rows = await query<{ profile_id: string; merged_into: string | null; root_id: string }>(
      space,
      "SELECT profile_id, merged_into, root_id FROM profiles ORDER BY seq",
    );
    expect(rows).toEqual([
      { profile_id: c, merged_into: null, root_id: c },
      { profile_id: b, merged_into: c, root_id: c },
      { profile_id: a, merged_into: b, root_id: c },
    ]);
  });
});

describe("undoing a merge splits it back exactly", () => {
  it("gives each side back exactly its handles and events", async () => {
    const space = await createSpace();
    const reviewer = await personToken(space, ["review"]);
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    await accept(space, [event([phone(PHONE_B)]), event([phone(PHONE_B), email(EMAIL_B)])]);
    const one = await profileOf(space, phone(PHONE_A));
    const two = await profileOf(space, phone(PHONE_B));
    const itemsBefore = await itemProfiles(space);

    await accept(space, [identifyItem([email(EMAIL_B), email(EMAIL_A)])]);
    const merged = await getProfile(space, two.profile_id);
    expect(merged.profile_id).toBe(one.profile_id);
    const mergeId = merged.merges[0]?.merge_id ?? "";

    const undone = await undo(space, mergeId, reviewer);
    expect(undone).toMatchObject({ merge_id: mergeId, survivor_id: one.profile_id, absorbed_id: two.profile_id, undone: true });
    expect(undone.undone_at).not.toBeNull();

    const oneAfter = await getProfile(space, one.profile_id);
    const twoAfter = await getProfile(space, two.profile_id);
    expect(oneAfter.profile_id).toBe(one.profile_id);
    expect(twoAfter.profile_id).toBe(two.profile_id);
    expect(handleIds(oneAfter)).toEqual(handleIds(one));
    expect(handleIds(twoAfter)).toEqual(handleIds(two));
    expect(values(twoAfter)).toEqual([PHONE_B, EMAIL_B].sort());
    expect(oneAfter.merged_profile_ids).toEqual([]);
    expect(twoAfter.merged_profile_ids).toEqual([]);
    expect(oneAfter.merges).toEqual([MergeSchema.parse(undone)]);
    expect(twoAfter.merges).toEqual([MergeSchema.parse(undone)]);
    const itemsAfter = (await itemProfiles(space)).filter((row) => row.type === "event");
    expect(itemsAfter).toEqual(itemsBefore);
    expect((await profileOf(space, email(EMAIL_B))).profile_id).toBe(two.profile_id);

    // Undoing an undone merge changes nothing and answers the same record.
    expect(await undo(space, mergeId, reviewer)).toEqual(undone);
    expect((await getProfile(space, one.profile_id)).identifiers).toEqual(oneAfter.identifiers);
  });

  it("undoes either link of a chain: the first leaves B in C and A alone, the second leaves all three apart", async () => {
    const space = await createSpace();
    const reviewer = await personToken(space, ["review"]);
    const [c = "", b = "", a = ""] = await profilesInOrder(space, [phone(PHONE_C), phone(PHONE_B), phone(PHONE_A)]);
    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_B)])]);
    await accept(space, [identifyItem([phone(PHONE_B), phone(PHONE_C)])]);
    const { merges } = await getProfile(space, a);
    const aIntoB = merges.find((merge) => merge.absorbed_id === a);
    const bIntoC = merges.find((merge) => merge.absorbed_id === b);

    await undo(space, aIntoB?.merge_id ?? "", reviewer);
    const alone = await getProfile(space, a);
    expect([alone.profile_id, values(alone)]).toEqual([a, [PHONE_A]]);
    const pair = await getProfile(space, b);
    expect([pair.profile_id, values(pair), pair.merged_profile_ids]).toEqual([c, [PHONE_B, PHONE_C].sort(), [b]]);

    await undo(space, bIntoC?.merge_id ?? "", reviewer);
    for (const [id, value] of [
      [a, PHONE_A],
      [b, PHONE_B],
      [c, PHONE_C],
    ] as const) {
      const profile = await getProfile(space, id);
      expect([profile.profile_id, values(profile), profile.merged_profile_ids]).toEqual([id, [value], []]);
    }
  });

  it("undoes the outer merge of a chain first and keeps A inside B", async () => {
    const space = await createSpace();
    const reviewer = await personToken(space, ["review"]);
    const [c = "", b = "", a = ""] = await profilesInOrder(space, [phone(PHONE_C), phone(PHONE_B), phone(PHONE_A)]);
    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_B)])]);
    await accept(space, [identifyItem([phone(PHONE_B), phone(PHONE_C)])]);
    const bIntoC = (await getProfile(space, a)).merges.find((merge) => merge.absorbed_id === b);

    await undo(space, bIntoC?.merge_id ?? "", reviewer);
    const ab = await getProfile(space, a);
    expect([ab.profile_id, values(ab), ab.merged_profile_ids]).toEqual([b, [PHONE_A, PHONE_B].sort(), [a]]);
    const alone = await getProfile(space, c);
    expect([alone.profile_id, values(alone), alone.merged_profile_ids]).toEqual([c, [PHONE_C], []]);
  });
});

describe("undo needs a person with role review and an Idempotency-Key; a resend replays, another request with the key is 409", () => {
  let space: Space;
  let reviewer: string;
  let mergeIds: string[];
  let older: string;
  let younger: string;

  beforeAll(async () => {
    space = await createSpace();
    reviewer = await personToken(space, ["review"]);
    const [first = "", second = "", third = ""] = await profilesInOrder(space, [phone(PHONE_A), phone(PHONE_B), phone(PHONE_C)]);
    older = first;
    younger = second;
    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_B)])]);
    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_C)])]);
    mergeIds = (await getProfile(space, third)).merges.map((merge) => merge.merge_id);
    expect(mergeIds).toHaveLength(2);
  });

  it("answers a source key, even with every scope, 403 forbidden", async () => {
    await expectProblem(await undoResponse(space, mergeIds[0] ?? "", space.key), 403, "forbidden");
    const identifyOnly = await createKey(space.tenant.token, space.sourceId, ["identify"]);
    await expectProblem(await undoResponse(space, mergeIds[0] ?? "", identifyOnly.key), 403, "forbidden");
  });

  it("answers a person without review 403 forbidden, whatever other role they have", async () => {
    for (const roles of [["integration"], ["security"], ["vendor"], ["analysis"]]) {
      await expectProblem(await undoResponse(space, mergeIds[0] ?? "", await personToken(space, roles)), 403, "forbidden");
    }
    expect((await getProfile(space, younger)).profile_id).toBe(older);
  });

  it("refuses a missing, empty or over-long Idempotency-Key with 422, and undoes nothing", async () => {
    const missing = await expectProblem(await undoResponse(space, mergeIds[0] ?? "", reviewer, null), 422, "invalid_input");
    expect(missing.detail).toContain("idempotency-key");
    await expectProblem(await undoResponse(space, mergeIds[0] ?? "", reviewer, "k".repeat(257)), 422, "invalid_input");
    await expectProblem(await undoResponse(space, mergeIds[0] ?? "", reviewer, ""), 422, "invalid_input");
    expect((await getProfile(space, younger)).profile_id).toBe(older);
  });

  it("replays the first answer for the same key and request, and refuses the key on another merge with 409", async () => {
    const key = "u".repeat(256);
    const first = await undo(space, mergeIds[0] ?? "", reviewer, key);
    expect(first.undone).toBe(true);
    const again = await undo(space, mergeIds[0] ?? "", reviewer, key);
    expect(again).toEqual(first);
    // Kept answers are the caller's own: another person with the same key is a fresh request,
    // which finds the merge undone already and answers it as it stands (the same record).
    expect(await undo(space, mergeIds[0] ?? "", await personToken(space, ["admin"]), key)).toEqual(first);

    await expectProblem(await undoResponse(space, mergeIds[1] ?? "", reviewer, key), 409, "conflict");
    const other = (await getProfile(space, older)).merges.find((merge) => merge.merge_id === mergeIds[1]);
    expect(other?.undone).toBe(false);
    expect((await getProfile(space, younger)).profile_id).toBe(younger);
  });

  it("answers 404 for a merge id the space does not have", async () => {
    await expectProblem(await undoResponse(space, crypto.randomUUID(), reviewer), 404, "not_found");
    await expectProblem(await undoResponse(space, "not-a-merge", reviewer), 404, "not_found");
  });
});

describe("an undo after a real restart of the object splits the merge exactly, and its resend after another restart replays", () => {
  it("undoes a merge made before the restart", async () => {
    const space = await createSpace();
    const reviewer = await personToken(space, ["review"]);
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    await accept(space, [event([phone(PHONE_B), email(EMAIL_B)])]);
    const one = await profileOf(space, phone(PHONE_A));
    const two = await profileOf(space, phone(PHONE_B));
    await accept(space, [identifyItem([phone(PHONE_B), phone(PHONE_A)])]);
    const mergeId = (await getProfile(space, two.profile_id)).merges[0]?.merge_id ?? "";

    await restartSpaceObject(space);
    expect((await getProfile(space, two.profile_id)).profile_id).toBe(one.profile_id);

    const key = crypto.randomUUID();
    const undone = await undo(space, mergeId, reviewer, key);
    expect(undone.undone).toBe(true);
    const oneAfter = await getProfile(space, one.profile_id);
    const twoAfter = await getProfile(space, two.profile_id);
    expect([oneAfter.profile_id, handleIds(oneAfter)]).toEqual([one.profile_id, handleIds(one)]);
    expect([twoAfter.profile_id, handleIds(twoAfter)]).toEqual([two.profile_id, handleIds(two)]);

    await restartSpaceObject(space);
    expect(await undo(space, mergeId, reviewer, key)).toEqual(undone);
    await expectProblem(await undoResponse(space, crypto.randomUUID().slice(0, 8), reviewer, key), 409, "conflict");
    expect(handleIds(await getProfile(space, two.profile_id))).toEqual(handleIds(two));
  });
});

describe("profile reads mask identifier values by role and by scope", () => {
  let space: Space;
  let profileId: string;
  const whole = [PHONE_A, EMAIL_A, CRM_A].sort();
  const masked = ["+*******0100", "j***@example.com", "****2345"].sort();

  beforeAll(async () => {
    space = await createSpace();
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A), systemId(CRM_A)])]);
    profileId = (await profileOf(space, phone(PHONE_A))).profile_id;
  });

  it("shows whole values to admin and security persons and to keys with identify", async () => {
    const identifyKey = await createKey(space.tenant.token, space.sourceId, ["identify"]);
    const credentials = [
      space.tenant.token,
      await personToken(space, ["security"]),
      await personToken(space, ["review", "security"]),
      identifyKey.key,
      (await createKey(space.tenant.token, space.sourceId, ["context", "identify"])).key,
    ];
    for (const token of credentials) {
      expect(values(await getProfile(space, profileId, token))).toEqual(whole);
      expect(values(await lookup(space, email(EMAIL_A), token))).toEqual(whole);
    }
  });

  it("masks values for review and vendor persons and keys with context only", async () => {
    const credentials = [
      await personToken(space, ["review"]),
      await personToken(space, ["vendor"], [space.sourceId]),
      (await createKey(space.tenant.token, space.sourceId, ["context"])).key,
      (await createKey(space.tenant.token, space.sourceId, ["context", "track"])).key,
    ];
    for (const token of credentials) {
      const profile = await getProfile(space, profileId, token);
      expect(values(profile)).toEqual(masked);
      for (const value of whole) expect(JSON.stringify(profile)).not.toContain(value);
      expect(values(await lookup(space, phone(PHONE_A), token))).toEqual(masked);
    }
  });

  it("refuses integration and analysis persons with 403 forbidden and a key without context or identify with 403 scope_missing", async () => {
    for (const roles of [["integration"], ["analysis"]]) {
      const token = await personToken(space, roles);
      await expectProblem(await getProfileResponse(space, profileId, token), 403, "forbidden");
      await expectProblem(await lookupResponse(space, phone(PHONE_A), token), 403, "forbidden");
    }
    const trackOnly = await createKey(space.tenant.token, space.sourceId, ["track"]);
    await expectProblem(await getProfileResponse(space, profileId, trackOnly.key), 403, "scope_missing");
    await expectProblem(await lookupResponse(space, phone(PHONE_A), trackOnly.key), 403, "scope_missing");
    const others = await createKey(space.tenant.token, space.sourceId, ["track", "act", "search", "admin"]);
    await expectProblem(await getProfileResponse(space, profileId, others.key), 403, "scope_missing");
  });

  it("refuses a person of another tenant with 403 and a missing credential with 401", async () => {
    const stranger = await createSpace();
    await expectProblem(await getProfileResponse(space, profileId, stranger.tenant.token), 403, "forbidden");
    await expectProblem(await getProfileResponse(space, profileId, ""), 401, "unauthenticated");
  });
});

describe("a vendor person sees only what the sources of their binding wrote; elsewhere 404", () => {
  let space: Space;
  let second: { sourceId: string; key: string };
  let shared: string;
  let foreign: string;

  beforeAll(async () => {
    space = await createSpace();
    second = await createSource(space, ["track", "identify"]);
    // S1 writes the phone; S2 writes the phone again and adds an e-mail; S2 alone writes another profile.
    await accept(space, [event([phone(PHONE_A)])]);
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])], second.key);
    await accept(space, [event([phone(PHONE_B), email(EMAIL_B)])], second.key);
    shared = (await profileOf(space, phone(PHONE_A))).profile_id;
    foreign = (await profileOf(space, phone(PHONE_B))).profile_id;
  });

  it("shows a vendor bound to S1 only the handles S1 wrote, masked", async () => {
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);
    const profile = await getProfile(space, shared, vendor);
    expect(profile.profile_id).toBe(shared);
    expect(values(profile)).toEqual(["+*******0100"]);
    expect(values(await lookup(space, phone(PHONE_A), vendor))).toEqual(["+*******0100"]);
  });

  it("answers 404 to a vendor bound to S1 for a profile with nothing from S1, by id and by lookup", async () => {
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);
    await expectProblem(await getProfileResponse(space, foreign, vendor), 404, "not_found");
    await expectProblem(await lookupResponse(space, phone(PHONE_B), vendor), 404, "not_found");
    await expectProblem(await lookupResponse(space, email(EMAIL_B), vendor), 404, "not_found");
    const unbound = await personToken(space, ["vendor"], []);
    await expectProblem(await getProfileResponse(space, shared, unbound), 404, "not_found");
  });

  it("answers 404 to a vendor's lookup of a handle only another source wrote, even in a profile the vendor sees", async () => {
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);
    await expectProblem(await lookupResponse(space, email(EMAIL_A), vendor), 404, "not_found");
  });

  it("shows a vendor bound to S2 what S2 wrote, and a vendor bound to both everything", async () => {
    const vendorTwo = await personToken(space, ["vendor"], [second.sourceId]);
    expect(values(await getProfile(space, shared, vendorTwo))).toEqual(["+*******0100", "j***@example.com"].sort());
    expect(values(await getProfile(space, foreign, vendorTwo))).toEqual(["+*******0101", "o***@example.com"].sort());
    const both = await personToken(space, ["vendor"], [space.sourceId, second.sourceId]);
    expect(values(await getProfile(space, shared, both))).toEqual(["+*******0100", "j***@example.com"].sort());
    // A vendor who is also review sees every source.
    const reviewVendor = await personToken(space, ["vendor", "review"], [space.sourceId]);
    expect(values(await getProfile(space, foreign, reviewVendor))).toEqual(["+*******0101", "o***@example.com"].sort());
  });

  it("shows a vendor only the merges their sources made", async () => {
    await accept(space, [event([phone(PHONE_C)])]);
    const young = (await profileOf(space, phone(PHONE_C))).profile_id;
    await accept(space, [identifyItem([phone(PHONE_C), phone(PHONE_A)])], second.key);
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);
    const seen = await getProfile(space, young, vendor);
    expect(seen.profile_id).toBe(shared);
    expect(values(seen)).toEqual(["+*******0100", "+*******0102"].sort());
    expect(seen.merges).toEqual([]);
    // Nor the id of the profile a merge hidden from them brought in.
    expect(seen.merged_profile_ids).toEqual([]);
    const whole = await getProfile(space, young);
    expect(whole.merges).toHaveLength(1);
    expect(whole.merged_profile_ids).toEqual([young]);
    expect((await getProfile(space, young, await personToken(space, ["vendor"], [second.sourceId]))).merged_profile_ids).toEqual([
      young,
    ]);
  });

  it("shows a vendor only the links their sources wrote", async () => {
    const ours = await link(space, {
      person: { handle: phone(PHONE_A) },
      organization: { handle: systemId("acct-vendor-1", "crm") },
      kind: "account",
    });
    const theirs = await link(
      space,
      { person: { handle: phone(PHONE_A) }, organization: { handle: systemId("acct-vendor-2", "crm") }, kind: "partner" },
      second.key,
    );
    const linkIds = async (token: string) => (await getProfile(space, shared, token)).links.map((entry) => entry.link_id).sort();
    expect(await linkIds(await personToken(space, ["vendor"], [space.sourceId]))).toEqual([ours.link_id]);
    expect(await linkIds(await personToken(space, ["vendor"], [second.sourceId]))).toEqual([theirs.link_id]);
    expect(await linkIds(await personToken(space, ["review"]))).toEqual([ours.link_id, theirs.link_id].sort());
  });
});

describe("lookup finds the profile that holds a handle, answers 404 for an unknown one, and creates nothing", () => {
  it("answers 404 for an unknown handle, twice, without writing a handle or a profile", async () => {
    const space = await createSpace();
    await expectProblem(await lookupResponse(space, phone(PHONE_A)), 404, "not_found");
    await expectProblem(await lookupResponse(space, phone(PHONE_A)), 404, "not_found");
    await expectProblem(await lookupResponse(space, email(EMAIL_A)), 404, "not_found");
    expect(await query(space, "SELECT handle_id FROM handles")).toEqual([]);
    expect(await query(space, "SELECT profile_id FROM profiles")).toEqual([]);
  });

  it("answers a known handle, in any spelling, with the profile and the same ETag as GET", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    const found = await lookupResponse(space, phone("+1 555 555 0100"));
    expect(found.status).toBe(200);
    const profile = ProfileSchema.parse(await found.json());
    const read = await getProfileResponse(space, profile.profile_id);
    expect(ProfileSchema.parse(await read.json())).toEqual(profile);
    expect(found.headers.get("etag")).toBeTruthy();
    expect(found.headers.get("etag")).toBe(read.headers.get("etag"));
    const byEmail = await lookupResponse(space, email("JANE@example.com"));
    expect(byEmail.headers.get("etag")).toBe(read.headers.get("etag"));
    expect(await query(space, "SELECT handle_id FROM handles")).toHaveLength(2);
  });

  it("refuses a body that is not {handle} with 422", async () => {
    const space = await createSpace();
    const path = `/spaces/${space.name}/v1/profiles/lookup`;
    await expectProblem(
      await call("POST", path, { token: space.key, body: { handle: phone(PHONE_A), extra: 1 } }),
      422,
      "invalid_input",
    );
    await expectProblem(await call("POST", path, { token: space.key, body: { phone: PHONE_A } }), 422, "invalid_input");
  });
});

describe("GET /v1/profiles/{id} carries an ETag; If-None-Match with it answers 304", () => {
  it("answers 304 for the current tag and 200 with a new tag once the profile changed", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A)])]);
    const { profile_id: id } = await profileOf(space, phone(PHONE_A));
    const first = await getProfileResponse(space, id);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[^"]+"$/);
    ProfileSchema.parse(await first.json());

    const notModified = await getProfileResponse(space, id, space.key, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");
    expect(notModified.headers.get("etag")).toBe(etag);
    const weak = await getProfileResponse(space, id, space.key, { "if-none-match": `"other", W/${etag}` });
    expect(weak.status).toBe(304);
    const other = await getProfileResponse(space, id, space.key, { "if-none-match": '"something-else"' });
    expect(other.status).toBe(200);
    ProfileSchema.parse(await other.json());

    await accept(space, [event([phone(PHONE_A), email(EMAIL_A)])]);
    const changed = await getProfileResponse(space, id, space.key, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(values(ProfileSchema.parse(await changed.json()))).toEqual([PHONE_A, EMAIL_A].sort());
  });

  it("answers 404 for an id the space does not have", async () => {
    const space = await createSpace();
    await expectProblem(await getProfileResponse(space, crypto.randomUUID()), 404, "not_found");
    await expectProblem(await getProfileResponse(space, "x".repeat(129)), 422, "invalid_input");
  });
});

describe("links tie a person to an account or partner, show on both profiles, and end", () => {
  it("creates profiles for unknown handles, shows the link on both sides, ends it once, and ending again answers the same", async () => {
    const space = await createSpace();
    const created = await link(space, {
      person: { handle: phone(PHONE_A) },
      organization: { handle: systemId("acct-1", "crm") },
      kind: "account",
      role: "owner",
    });
    expect(created).toMatchObject({ kind: "account", role: "owner", status: "active", ended_at: null });
    const person = await profileOf(space, phone(PHONE_A));
    const organization = await profileOf(space, systemId("acct-1", "crm"));
    expect(created.person_id).toBe(person.profile_id);
    expect(created.organization_id).toBe(organization.profile_id);
    expect(organization.subject_kind).toBe("account");
    expect(person.subject_kind).toBe("person");
    expect(person.links).toEqual([created]);
    expect(organization.links).toEqual([created]);

    const ended = LinkSchema.parse(await json(await endLinkResponse(space, created.link_id), 200));
    expect(ended).toMatchObject({ link_id: created.link_id, status: "ended" });
    expect(ended.ended_at).not.toBeNull();
    const again = LinkSchema.parse(await json(await endLinkResponse(space, created.link_id), 200));
    expect(again).toEqual(ended);
    expect((await getProfile(space, person.profile_id)).links).toEqual([ended]);
    expect((await getProfile(space, organization.profile_id)).links).toEqual([ended]);
  });

  it("links known profiles by id or handle without creating any, and follows a merged person to its survivor", async () => {
    const space = await createSpace();
    await accept(space, [event([phone(PHONE_A)])]);
    await accept(space, [event([phone(PHONE_B)])]);
    const older = (await profileOf(space, phone(PHONE_A))).profile_id;
    const younger = (await profileOf(space, phone(PHONE_B))).profile_id;
    await accept(space, [event([systemId("partner-9")])]);
    const partner = (await profileOf(space, systemId("partner-9"))).profile_id;

    const created = await link(
      space,
      { person: { profile_id: younger }, organization: { handle: systemId("partner-9") }, kind: "partner" },
      await personToken(space, ["review"]),
    );
    expect([created.person_id, created.organization_id, created.role]).toEqual([younger, partner, null]);
    expect(await query(space, "SELECT profile_id FROM profiles")).toHaveLength(3);

    await accept(space, [identifyItem([phone(PHONE_A), phone(PHONE_B)])]);
    const survivor = await getProfile(space, younger);
    expect(survivor.profile_id).toBe(older);
    expect(survivor.links).toEqual([{ ...created, person_id: older }]);
  });

  it("replays a resend with the same Idempotency-Key, refuses another body with it (409), and needs the header (422)", async () => {
    const space = await createSpace();
    const body = { person: { handle: email(EMAIL_A) }, organization: { handle: systemId("acct-2") }, kind: "account" };
    const key = crypto.randomUUID();
    const first = LinkSchema.parse(await json(await linkResponse(space, body, space.key, key), 201));
    const again = LinkSchema.parse(await json(await linkResponse(space, body, space.key, key), 201));
    expect(again).toEqual(first);
    expect(await query(space, "SELECT link_id FROM links")).toHaveLength(1);
    await expectProblem(await linkResponse(space, { ...body, kind: "partner" }, space.key, key), 409, "conflict");
    // A malformed body is checked before the key's record: 422 whatever the key did before.
    await expectProblem(await linkResponse(space, { ...body, kind: "cousin" }, space.key, key), 422, "invalid_input");
    await expectProblem(await linkResponse(space, body, space.key, null), 422, "invalid_input");
    await expectProblem(await linkResponse(space, body, space.key, "k".repeat(257)), 422, "invalid_input");
    expect(await query(space, "SELECT link_id FROM links")).toHaveLength(1);
  });

  it("refuses an unknown link (404), an unknown profile (404), one profile on both sides (422) and a bad phone (422)", async () => {
    const space = await createSpace();
    await expectProblem(await endLinkResponse(space, crypto.randomUUID()), 404, "not_found");
    const unknown = await expectProblem(
      await linkResponse(space, {
        person: { profile_id: crypto.randomUUID() },
        organization: { handle: systemId("acct-3") },
        kind: "account",
      }),
      404,
      "not_found",
    );
    expect(unknown.detail).toBe("person.profile_id: unknown_profile");
    await accept(space, [event([phone(PHONE_A), systemId("acct-4")])]);
    await expectProblem(
      await linkResponse(space, {
        person: { handle: phone(PHONE_A) },
        organization: { handle: systemId("acct-4") },
        kind: "account",
      }),
      422,
      "invalid_input",
    );
    const bad = await expectProblem(
      await linkResponse(space, {
        person: { handle: phone("+1 23") },
        organization: { handle: email(EMAIL_C) },
        kind: "account",
      }),
      422,
      "invalid_input",
    );
    expect(bad.detail).toBe("person.handle.value: phone_not_normalizable");
    await expectProblem(
      await linkResponse(space, { person: { handle: phone(PHONE_D) }, organization: { handle: email(EMAIL_C) }, kind: "friend" }),
      422,
      "invalid_input",
    );
    // Nothing was created by the refused requests.
    expect(await query(space, "SELECT link_id FROM links")).toEqual([]);
    await expectProblem(await lookupResponse(space, email(EMAIL_C)), 404, "not_found");
    await expectProblem(await lookupResponse(space, phone(PHONE_D)), 404, "not_found");
  });

  it("refuses a key without identify with 403 scope_missing and a person without review with 403 forbidden", async () => {
    const space = await createSpace();
    const created = await link(space, {
      person: { handle: phone(PHONE_E) },
      organization: { handle: systemId("acct-5") },
      kind: "account",
    });
    const body = { person: { handle: phone(PHONE_A) }, organization: { handle: systemId("acct-6") }, kind: "account" };
    const context = await createKey(space.tenant.token, space.sourceId, ["track", "context"]);
    await expectProblem(await linkResponse(space, body, context.key), 403, "scope_missing");
    await expectProblem(await endLinkResponse(space, created.link_id, context.key), 403, "scope_missing");
    for (const roles of [["integration"], ["security"], ["vendor"]]) {
      const token = await personToken(space, roles, roles[0] === "vendor" ? [space.sourceId] : undefined);
      await expectProblem(await linkResponse(space, body, token), 403, "forbidden");
      await expectProblem(await endLinkResponse(space, created.link_id, token), 403, "forbidden");
    }
    expect(await query(space, "SELECT status FROM links")).toEqual([{ status: "active" }]);
    await expectProblem(await lookupResponse(space, phone(PHONE_A)), 404, "not_found");
  });
});

describe("links after a merge and its undo: each stays with the profile it named, and a merged-away profile's link ends", () => {
  const byLinkId = (links: readonly Link[]) => [...links].sort((a, b) => (a.link_id < b.link_id ? -1 : 1));
  const ended = async (space: Space, linkId: string, token = space.key) =>
    LinkSchema.parse(await json(await endLinkResponse(space, linkId, token), 200));

  it("shows a merged-away profile's links on the survivor, ends them there, and gives them back to it on undo", async () => {
    const space = await createSpace();
    const reviewer = await personToken(space, ["review"]);
    const [older = "", younger = ""] = await profilesInOrder(space, [phone(PHONE_A), phone(PHONE_B)]);
    const ofOlder = await link(space, {
      person: { handle: phone(PHONE_A) },
      organization: { handle: systemId("acct-20", "crm") },
      kind: "account",
    });
    const ofYounger = await link(space, {
      person: { handle: phone(PHONE_B) },
      organization: { handle: systemId("acct-21", "crm") },
      kind: "account",
      role: "owner",
    });
    expect([ofOlder.person_id, ofYounger.person_id]).toEqual([older, younger]);

    await accept(space, [identifyItem([phone(PHONE_B), phone(PHONE_A)])]);
    const merged = await getProfile(space, younger);
    expect(merged.profile_id).toBe(older);
    expect(byLinkId(merged.links)).toEqual(byLinkId([ofOlder, { ...ofYounger, person_id: older }]));
    // A link made meanwhile naming the merged-away profile by its id is that profile's, answered as the survivor's.
    const namedYounger = await link(space, {
      person: { profile_id: younger },
      organization: { handle: systemId("partner-22") },
      kind: "partner",
    });
    expect(namedYounger.person_id).toBe(older);

    // Ending the merged-away profile's link: ended, on both of its sides; ending it again answers it as it is.
    const end = await ended(space, ofYounger.link_id, reviewer);
    expect(end).toEqual({ ...ofYounger, person_id: older, status: "ended", ended_at: end.ended_at });
    expect(end.ended_at).not.toBeNull();
    expect(await ended(space, ofYounger.link_id)).toEqual(end);
    expect(byLinkId((await getProfile(space, older)).links)).toEqual(byLinkId([ofOlder, end, namedYounger]));
    expect((await getProfile(space, ofYounger.organization_id)).links).toEqual([end]);

    await undo(space, merged.merges[0]?.merge_id ?? "", reviewer);
    expect((await getProfile(space, older)).links).toEqual([ofOlder]);
    const youngerLinks = [
      { ...end, person_id: younger },
      { ...namedYounger, person_id: younger },
    ];
    expect(byLinkId((await getProfile(space, younger)).links)).toEqual(byLinkId(youngerLinks));
    expect((await getProfile(space, ofYounger.organization_id)).links).toEqual([{ ...end, person_id: younger }]);
    expect((await getProfile(space, ofOlder.organization_id)).links).toEqual([ofOlder]);
    // Ended links stay ended and answer as they are now; an active one of the younger ends under it.
    expect(await ended(space, ofYounger.link_id)).toEqual({ ...end, person_id: younger });
    const later = await ended(space, namedYounger.link_id);
    expect(later).toMatchObject({ link_id: namedYounger.link_id, person_id: younger, status: "ended" });
    expect((await getProfile(space, older)).links).toEqual([ofOlder]);
  });
});
