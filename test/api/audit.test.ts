import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ControlAudit, SpaceAudit } from "../../src/contract/audit";
import { ExportSchema } from "../../src/contract/exports";
import { MergeSchema, ProfileSchema, SuggestionPageSchema, SuggestionSchema } from "../../src/contract/identity";
import type { SpaceObject } from "../../src/space/object";
import { expectProblem, personToken, phone, query } from "../support/identity";
import { runAlarms, stub } from "../support/memory";
import { forgotten, receiptResponse } from "../support/privacy";
import { batch, call, createKey, createSpace, json, message, ORIGIN, type Space, uniqueName } from "../support/seed";

/**
 * The audit log (docs/api/privacy.md#audit): every governance read and write of a space, and of
 * the control plane, appended with who, what, when and the request id; ids only; read by
 * `security` people, paged with signed cursors, filtered; nothing changes or deletes it.
 */

type SpaceEntry = ReturnType<typeof SpaceAudit.entry.parse>;
type ControlEntry = ReturnType<typeof ControlAudit.entry.parse>;

const PHONES = ["+15555550441", "+15555550442", "+15555550443", "+15555550444"];
const NAMES = ["Quentin Zabriskie", "quentin zabriskie", "Ottoline Marchbanks", "OTTOLINE MARCHBANKS"];
const TEXT = "My locker combination is 4-8-15, please keep it.";

const customer = (phoneNumber: string, name: string) =>
  message({
    kind: "system_event",
    canonical_type: "customer.updated",
    channel: "crm",
    content: undefined,
    handles: [{ type: "phone_e164", value: phoneNumber }],
    attributes: { name, postcode: "Z9" },
  });

async function personId(token: string): Promise<string> {
  return (await json<{ person_id: string }>(await call("GET", "/control/v1/users/me", { token }), 200)).person_id;
}

/** Every entry of a space's log, read page by page (each read is itself a row, after the page it read). */
async function spaceLog(space: Space, token: string, filters = ""): Promise<SpaceEntry[]> {
  const entries: SpaceEntry[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/spaces/${space.name}/v1/audit?limit=3${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = SpaceAudit.page.parse(await json(await call("GET", path, { token }), 200));
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

async function controlLog(token: string, filters = ""): Promise<ControlEntry[]> {
  const entries: ControlEntry[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/control/v1/control-audit?limit=4${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = ControlAudit.page.parse(await json(await call("GET", path, { token }), 200));
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

const post = (space: Space, path: string, token: string) =>
  call("POST", `/spaces/${space.name}${path}`, { token, headers: { "idempotency-key": crypto.randomUUID() } });

/** Two suggestions of four customers (a name and a postcode each pair shares), with a text of the first beside. */
async function withSuggestions(): Promise<Space> {
  const space = await createSpace();
  await json(
    await batch(space, [
      ...PHONES.map((value, at) => customer(value, NAMES[at] as string)),
      message({ handles: [phone(PHONES[0] as string)], content: { type: "text", text: TEXT } }),
    ]),
    200,
  );
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    const base = instance.clock.now();
    instance.clock = { now: () => base + 60_000 };
  });
  await runAlarms(space);
  return space;
}

describe("GET /v1/audit: a space's governance actions, ids only", () => {
  it("records profile reads by people, verdicts, undos, exports and its own reads; none by keys; no personal data", async () => {
    const space = await withSuggestions();
    const review = await personToken(space, ["review"]);
    const security = await personToken(space, ["security"]);
    const reviewId = await personId(review);
    const securityId = await personId(security);
    const [first, second] = SuggestionPageSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/identity/suggestions`, { token: space.key }), 200),
    ).data;
    if (!first || !second) throw new Error("two suggestions expected");

    // Reads by a key are an agent's: not recorded.
    await json(await call("GET", `/spaces/${space.name}/v1/profiles/${first.profile_a}`, { token: space.key }), 200);
    const read = await call("GET", `/spaces/${space.name}/v1/profiles/${first.profile_a}`, { token: review });
    const readRequest = read.headers.get("request-id");
    ProfileSchema.parse(await json(read, 200));
    await json(
      await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, {
        token: review,
        body: { handle: phone(PHONES[2] as string) },
      }),
      200,
    );
    // A lookup of a handle nobody holds: refused, recorded without the handle.
    await expectProblem(
      await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token: review, body: { handle: phone("+15555550499") } }),
      404,
      "not_found",
    );
    SuggestionSchema.parse(
      await json(await post(space, `/v1/identity/suggestions/${second.suggestion_id}/dismiss`, review), 200),
    );
    SuggestionSchema.parse(await json(await post(space, `/v1/identity/suggestions/${first.suggestion_id}/accept`, review), 200));
    const merged = ProfileSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${first.profile_a}`, { token: space.key }), 200),
    );
    const mergeId = merged.merges[0]?.merge_id ?? "";
    MergeSchema.parse(await json(await post(space, `/v1/identity/merges/${mergeId}/undo`, review), 200));
    // A refused export is recorded with its code.
    await expectProblem(
      await call("POST", `/spaces/${space.name}/v1/exports`, { token: review, body: { handle: phone(PHONES[0] as string) } }),
      403,
      "forbidden",
    );
    const made = ExportSchema.parse(
      await json(
        await call("POST", `/spaces/${space.name}/v1/exports`, { token: security, body: { handle: phone(PHONES[0] as string) } }),
        201,
      ),
    );
    ExportSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/exports/${made.export_id}`, { token: security }), 200),
    );
    const file = await call("GET", (made.download?.url ?? "").slice(ORIGIN.length));
    expect(new TextDecoder().decode(await file.arrayBuffer())).toContain(TEXT);
    // A tampered token for the export: refused, recorded under the link.
    const link = (made.download?.url ?? "").slice(ORIGIN.length);
    await expectProblem(await call("GET", `${link.slice(0, -1)}${link.endsWith("A") ? "B" : "A"}`), 401, "unauthenticated");
    // A link to an export the space never issued: refused and not recorded (anyone can type an id).
    const forged = link.replace(made.export_id, crypto.randomUUID());
    await expectProblem(await call("GET", forged), 401, "unauthenticated");

    const entries = await spaceLog(space, security);
    const summary = entries.map((entry) => [entry.action, entry.actor.kind, entry.outcome]);
    expect(summary).toEqual([
      ["profile.read", "person", "ok"],
      ["profile.lookup", "person", "ok"],
      ["profile.lookup", "person", "not_found"],
      ["suggestion.dismiss", "person", "ok"],
      ["suggestion.accept", "person", "ok"],
      ["merge.undo", "person", "ok"],
      ["export.create", "person", "forbidden"],
      ["export.create", "person", "ok"],
      ["export.read", "person", "ok"],
      ["export.download", "link", "ok"],
      ["export.download", "link", "unauthenticated"],
      // The reads of the log, one per page but the last, which came before it.
      ...entries.slice(11).map(() => ["audit.read", "person", "ok"]),
    ]);
    expect(entries.length).toBeGreaterThan(11);
    const [profileRead, , missed, dismissed, accepted, undone, , exported, , downloaded] = entries;
    expect(profileRead?.actor.id).toBe(reviewId);
    expect(profileRead?.request_id).toBe(readRequest);
    expect(profileRead?.targets).toEqual([{ type: "profile", id: first.profile_a }]);
    expect(missed?.targets).toEqual([]);
    expect(dismissed?.targets).toEqual([
      { type: "suggestion", id: second.suggestion_id },
      { type: "profile", id: second.profile_a },
      { type: "profile", id: second.profile_b },
    ]);
    expect(accepted?.targets.map((target) => target.type)).toEqual(["suggestion", "profile", "profile"]);
    expect(undone?.targets[0]).toEqual({ type: "merge", id: mergeId });
    expect(exported?.actor.id).toBe(securityId);
    expect(exported?.targets).toEqual([
      { type: "export", id: made.export_id },
      { type: "profile", id: made.profile_id },
    ]);
    expect(downloaded?.actor).toEqual({ kind: "link", id: made.export_id });
    for (const entry of entries) expect(entry.request_id).toMatch(/^[0-9a-f-]{36}$/);

    // Ids only: no handle value, name, text or e-mail anywhere in the rows as stored.
    const stored = JSON.stringify(await query(space, "SELECT * FROM audit_log"));
    for (const value of [...PHONES, "+15555550499", ...NAMES, TEXT, "4-8-15", "locker", "@example.test"]) {
      expect(stored).not.toContain(value);
    }
    // Digits of the phones as they might be written without their `+`.
    for (const value of PHONES) expect(stored).not.toContain(value.slice(1));
  });

  it("records people's reads of a customer's memory (context, timeline, history, search) with its profile; none by keys", async () => {
    const space = await withSuggestions();
    const review = await personToken(space, ["review"]);
    const security = await personToken(space, ["security"]);
    const handle = phone(PHONES[0] as string);
    const read = (path: string, token: string, body?: unknown) =>
      call(body === undefined ? "GET" : "POST", `/spaces/${space.name}${path}`, {
        token,
        ...(body === undefined ? {} : { body }),
      });
    const context = await json<{ profile_id: string }>(await read("/v1/context", space.key, { handle }), 200);
    const profileId = context.profile_id;
    // The same reads by a key first: an agent's, not recorded.
    await json(await read("/v1/timeline", space.key, { handle }), 200);
    await json(await read("/v1/search", space.key, { query: "locker" }), 200);

    await json(await read("/v1/context", review, { handle }), 200);
    await json(await read(`/v1/profiles/${profileId}/context`, review), 200);
    const timeline = await json<{ data: { episode_id: string }[] }>(await read("/v1/timeline", review, { handle }), 200);
    await json(await read(`/v1/profiles/${profileId}/timeline`, review), 200);
    await json(await read(`/v1/history/items/${timeline.data[0]?.episode_id}`, review), 200);
    await json(await read("/v1/search", review, { query: "locker" }), 200);
    await json(await read(`/v1/profiles/${profileId}/search?q=locker`, review), 200);

    const entries = (await spaceLog(space, security)).filter((entry) => entry.action !== "audit.read");
    expect(entries.map((entry) => [entry.action, entry.actor.kind, entry.targets])).toEqual(
      ["context.read", "context.read", "timeline.read", "timeline.read", "history.read", "search.read", "search.read"].map(
        (action) => [action, "person", [{ type: "profile", id: profileId }]],
      ),
    );
    const stored = JSON.stringify(await query(space, "SELECT * FROM audit_log"));
    for (const value of [PHONES[0] as string, (PHONES[0] as string).slice(1), "locker", TEXT])
      expect(stored).not.toContain(value);
  });

  it("pages with signed cursors and filters by time, actor and action", async () => {
    const space = await createSpace();
    const security = await personToken(space, ["security"]);
    const review = await personToken(space, ["review"]);
    const reviewId = await personId(review);
    await json(await batch(space, [message({ handles: [phone("+15555550451")] })]), 200);
    const profile = ProfileSchema.parse(
      await json(
        await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, {
          token: review,
          body: { handle: phone("+15555550451") },
        }),
        200,
      ),
    );
    for (let i = 0; i < 4; i++) {
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${profile.profile_id}`, { token: review }), 200);
    }
    const all = SpaceAudit.page.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/audit?limit=200`, { token: security }), 200),
    );
    expect(all.data.map((entry) => entry.action)).toEqual(["profile.lookup", ...Array(4).fill("profile.read")]);
    expect(all.next_cursor).toBeNull();
    // Pages of two read the same rows (and the reads themselves, after them).
    const paged = (await spaceLog(space, security, `&actor=${reviewId}`)).map((entry) => entry.audit_id);
    expect(paged).toEqual(all.data.map((entry) => entry.audit_id));

    const reads = await spaceLog(space, security, "&action=profile.read");
    expect(reads).toHaveLength(4);
    expect(await spaceLog(space, security, `&actor=${crypto.randomUUID()}`)).toEqual([]);
    const third = all.data[2];
    if (!third) throw new Error("a third entry expected");
    const from = await spaceLog(space, security, `&from=${encodeURIComponent(third.at)}`);
    expect(from.every((entry) => entry.at >= third.at)).toBe(true);
    // `from` is included: the entry at that instant is in the answer.
    expect(from.map((entry) => entry.audit_id)).toContain(third.audit_id);
    const before = await spaceLog(space, security, `&to=${encodeURIComponent(all.data[0]?.at ?? "")}`);
    expect(before).toEqual([]);

    const page = SpaceAudit.page.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/audit?limit=1`, { token: security }), 200),
    );
    const cursor = page.next_cursor ?? "";
    const tampered = `${cursor.slice(0, 2)}${cursor[2] === "1" ? "2" : "1"}${cursor.slice(3)}`;
    const forged = await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/audit?cursor=${encodeURIComponent(tampered)}`, { token: security }),
      422,
      "invalid_input",
    );
    expect(forged.detail).toBe("query.cursor: not_issued_by_this_service");
    const other = await createSpace();
    const otherSecurity = await personToken(other, ["security"]);
    await expectProblem(
      await call("GET", `/spaces/${other.name}/v1/audit?cursor=${encodeURIComponent(cursor)}`, { token: otherSecurity }),
      422,
      "invalid_input",
    );
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/audit?action=profile.delete`, { token: security }),
      422,
      "invalid_input",
    );
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/audit?from=yesterday`, { token: security }),
      422,
      "invalid_input",
    );
  });

  it("is read by `security` and `admin` people only (403 for other roles and keys); no method changes it", async () => {
    const space = await createSpace();
    const path = `/spaces/${space.name}/v1/audit`;
    SpaceAudit.page.parse(await json(await call("GET", path, { token: await personToken(space, ["security"]) }), 200));
    SpaceAudit.page.parse(await json(await call("GET", path, { token: space.tenant.token }), 200));
    for (const roles of [["review"], ["integration"], ["analysis"], ["vendor"]]) {
      await expectProblem(await call("GET", path, { token: await personToken(space, roles) }), 403, "forbidden");
    }
    await expectProblem(await call("GET", path, { token: space.key }), 403, "forbidden");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      await expectProblem(await call(method, path, { token: space.tenant.token }), 405, "method_not_allowed");
    }
  });

  it("records no request whose credential is no credential (401): it names nobody", async () => {
    const space = await createSpace();
    const security = await personToken(space, ["security"]);
    const logged = async () => (await spaceLog(space, security)).filter((entry) => entry.action !== "audit.read");
    const before = await logged();
    for (const token of ["", "cms_live_local_bogus", `${security.slice(0, -4)}AAAA`]) {
      const response = await call("GET", `/spaces/${space.name}/v1/profiles/${crypto.randomUUID()}`, { token });
      expect((await json<{ code: string }>(response, 401)).code).toBe("unauthenticated");
    }
    expect(await logged()).toEqual(before);
  });
});

describe("the audit log and forget", () => {
  it("records forget and receipt reads by receipt id, and keeps every row of the forgotten subject (ids only)", async () => {
    const space = await createSpace();
    const security = await personToken(space, ["security"]);
    const handle = phone("+15555550461");
    await json(await batch(space, [message({ handles: [handle], content: { type: "text", text: TEXT } })]), 200);
    const profile = ProfileSchema.parse(
      await json(await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token: security, body: { handle } }), 200),
    );
    await json(await call("GET", `/spaces/${space.name}/v1/profiles/${profile.profile_id}`, { token: security }), 200);
    const before = (await query(space, "SELECT audit_id FROM audit_log")).map((row) => row.audit_id);

    const receipt = await forgotten(space, security, { handle });
    await json(await receiptResponse(space, security, receipt.receipt_id), 200);
    // From the request on the subject is gone; its profile's id is still named by the rows about it.
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/profiles/${profile.profile_id}`, { token: security }),
      404,
      "not_found",
    );

    const rows = await query(space, "SELECT * FROM audit_log ORDER BY seq");
    expect(rows.slice(0, before.length).map((row) => row.audit_id)).toEqual(before);
    const entries = await spaceLog(space, security);
    const about = entries.filter((entry) => entry.targets.some((target) => target.id === profile.profile_id));
    expect(about.map((entry) => [entry.action, entry.outcome])).toEqual([
      ["profile.lookup", "ok"],
      ["profile.read", "ok"],
      ["profile.read", "not_found"],
    ]);
    const governance = entries.filter((entry) => entry.action === "forget" || entry.action === "receipt.read");
    // A forget that took more than its request is read back once more by `forgotten`: a receipt read too.
    const receiptTarget = [{ type: "receipt", id: receipt.receipt_id }];
    expect(governance[0] && [governance[0].action, governance[0].targets]).toEqual(["forget", receiptTarget]);
    expect(governance.length).toBeGreaterThanOrEqual(2);
    for (const entry of governance.slice(1)) expect([entry.action, entry.targets]).toEqual(["receipt.read", receiptTarget]);
    const stored = JSON.stringify(rows);
    for (const value of [handle.value, handle.value.slice(1), TEXT, "locker"]) expect(stored).not.toContain(value);
  });
});

describe("GET /v1/control-audit: the tenant's control-plane actions, ids only", () => {
  it("records logins, refusals, logouts, people, projects, spaces, sources, keys and configuration", async () => {
    const space = await createSpace();
    const admin = space.tenant.token;
    const adminId = await personId(admin);
    const email = `${uniqueName("audited")}@example.test`;
    const password = "a password long enough";
    const created = await json<{ person_id: string }>(
      await call("POST", "/control/v1/people", { token: admin, body: { email, password, roles: ["review"] } }),
      201,
    );
    await expectProblem(
      await call("POST", "/control/v1/auth/login", { body: { email, password: "wrong password!" } }),
      401,
      "unauthenticated",
    );
    await expectProblem(
      await call("POST", "/control/v1/auth/login", { body: { email: "nobody-at-all@example.test", password } }),
      401,
      "unauthenticated",
    );
    const { token } = await json<{ token: string }>(
      await call("POST", "/control/v1/auth/login", { body: { email, password } }),
      200,
    );
    expect((await call("POST", "/control/v1/auth/logout", { token })).status).toBe(204);
    await json(
      await call("PATCH", `/control/v1/people/${created.person_id}`, { token: admin, body: { roles: ["security"] } }),
      200,
    );
    const key = await createKey(admin, space.sourceId, ["track"]);
    for (const step of ["rotate", "revoke"]) {
      await json(
        await call("POST", `/control/v1/keys/${key.key_id}/${step}`, {
          token: admin,
          headers: { "idempotency-key": crypto.randomUUID() },
        }),
        200,
      );
    }
    await json(
      await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: admin,
        body: { values: { clock_tolerance_s: 60 } },
      }),
      200,
    );
    expect((await call("DELETE", `/control/v1/people/${created.person_id}`, { token: admin })).status).toBe(204);

    const entries = await controlLog(admin);
    const actions = entries.filter((entry) => entry.action !== "audit.read").map((entry) => [entry.action, entry.outcome]);
    expect(actions).toEqual([
      // createSpace: the tenant's first login, its project, space, source and key.
      ["auth.login", "ok"],
      ["project.create", "ok"],
      ["space.create", "ok"],
      ["source.create", "ok"],
      ["key.create", "ok"],
      ["person.create", "ok"],
      ["auth.login_refused", "unauthenticated"],
      ["auth.login", "ok"],
      ["auth.logout", "ok"],
      ["person.update", "ok"],
      ["key.create", "ok"],
      ["key.rotate", "ok"],
      ["key.revoke", "ok"],
      ["config.update", "ok"],
      ["person.remove", "ok"],
    ]);
    const refused = entries.find((entry) => entry.action === "auth.login_refused");
    expect(refused?.actor).toEqual({ kind: "person", id: created.person_id });
    const rotated = entries.find((entry) => entry.action === "key.rotate");
    expect(rotated?.actor).toEqual({ kind: "person", id: adminId });
    expect(rotated?.targets).toEqual([
      { type: "key", id: key.key_id },
      { type: "source", id: space.sourceId },
    ]);
    const configured = entries.find((entry) => entry.action === "config.update");
    expect(configured?.targets).toEqual([{ type: "space", id: space.spaceId }]);

    const text = JSON.stringify(entries);
    for (const value of [email, password, "wrong password!", "nobody-at-all", key.key, space.tenant.email]) {
      expect(text).not.toContain(value);
    }
    // Another tenant sees none of it.
    const other = await createSpace();
    const theirs = await controlLog(other.tenant.token);
    expect(
      theirs.some((entry) => entry.actor.id === adminId || entry.targets.some((target) => target.id === space.spaceId)),
    ).toBe(false);
  });

  it("is read by `security` and `admin` people only", async () => {
    const space = await createSpace();
    ControlAudit.page.parse(
      await json(await call("GET", "/control/v1/control-audit", { token: await personToken(space, ["security"]) }), 200),
    );
    for (const roles of [["review"], ["integration"], ["analysis"], ["vendor"]]) {
      await expectProblem(
        await call("GET", "/control/v1/control-audit", { token: await personToken(space, roles) }),
        403,
        "forbidden",
      );
    }
    await expectProblem(await call("GET", "/control/v1/control-audit", { token: space.key }), 403, "forbidden");
    await expectProblem(
      await call("DELETE", "/control/v1/control-audit", { token: space.tenant.token }),
      405,
      "method_not_allowed",
    );
  });
});
