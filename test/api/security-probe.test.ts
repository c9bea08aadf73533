import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { KeySchema, PersonSchema } from "../../src/contract/control";
import { LinkSchema, SuggestionPageSchema, SuggestionSchema } from "../../src/contract/identity";
import { SearchPageSchema } from "../../src/contract/search";
import type { ControlObject } from "../../src/control/object";
import { app } from "../../src/edge/app";
import type { SpaceObject } from "../../src/space/object";
import { createSource, email, event, linkResponse, lookupResponse, personToken, phone, systemId } from "../support/identity";
import { moveClock, runAlarms } from "../support/memory";
import { erasureOf } from "../support/privacy";
import { batch, call, createSpace, createTenant, json, message, ORIGIN, uniqueName } from "../support/seed";

/**
 * What a security probe across two tenants, every role and every data route found (issue 32,
 * part 8), each pinned by a test that failed before its fix.
 */

async function problemOf(response: Response, status: number) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  return JSON.parse(text) as { code: string; detail: string | null; status: number; title: string; type: string };
}

/** A problem without its request id: what must be the same for answers that may not differ. */
const sameness = ({ code, detail, status, title, type }: Awaited<ReturnType<typeof problemOf>>) => ({
  code,
  detail,
  status,
  title,
  type,
});

describe("Idempotency-Key answers belong to the credential that made them", () => {
  function customer(value: string, attributes: Record<string, string>) {
    return message({
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      handles: [{ type: "phone_e164", value }],
      attributes,
    });
  }

  it("identity review writes: a review person sending an admin's key gets a fresh, masked answer, never the admin's", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [
        customer("+15555550171", { name: "Cy Twombly", zip: "1000" }),
        customer("+15555550172", { name: "cy twombly", zip: "1000" }),
      ]),
      200,
    );
    await runInDurableObject(env.SPACE.get(env.SPACE.idFromName(space.name)), (instance: SpaceObject) => {
      const base = instance.clock.now();
      instance.clock = { now: () => base + 60_000 };
    });
    await runAlarms(space);
    const listed = SuggestionPageSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/identity/suggestions`, { token: space.key }), 200),
    );
    const suggestion = listed.data[0];
    if (!suggestion) throw new Error("no suggestion");
    const path = `/spaces/${space.name}/v1/identity/suggestions/${suggestion.suggestion_id}/dismiss`;
    const dismiss = (token: string) => call("POST", path, { token, headers: { "idempotency-key": "shared-key" } });

    const admin = SuggestionSchema.parse(await json(await dismiss(space.tenant.token), 200));
    expect(admin.identifier_a?.value).toMatch(/^\+1555555017[12]$/);
    const reviewer = await personToken(space, ["review"]);
    const fresh = SuggestionSchema.parse(await json(await dismiss(reviewer), 200));
    expect(fresh.status).toBe("rejected");
    expect(fresh.identifier_a?.value).toMatch(/^\+\*+017[12]$/);
    // The reviewer's own retry replays the reviewer's answer.
    expect(SuggestionSchema.parse(await json(await dismiss(reviewer), 200))).toEqual(fresh);
  });

  it("identity writes by key: another key's Idempotency-Key is a fresh request, not another's answer or a 409", async () => {
    const space = await createSpace();
    const other = await createSource(space, ["identify"]);
    const body = (account: string) => ({
      person: { handle: email("pat@example.com") },
      organization: { handle: systemId(account) },
      kind: "account",
    });
    const first = LinkSchema.parse(await json(await linkResponse(space, body("acct-1"), space.key, "link-key"), 201));
    const second = LinkSchema.parse(await json(await linkResponse(space, body("acct-2"), other.key, "link-key"), 201));
    expect(second.link_id).not.toBe(first.link_id);
    // Each key's resend still replays its own answer.
    const again = LinkSchema.parse(await json(await linkResponse(space, body("acct-2"), other.key, "link-key"), 201));
    expect(again).toEqual(second);
  });

  it("control key creation: another integration person with the same key gets a new key, never the first one's secret", async () => {
    const space = await createSpace();
    const create = (token: string) =>
      call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token,
        headers: { "idempotency-key": "key-creation" },
        body: { scopes: ["track"] },
      });
    const first = KeySchema.parse(await json(await create(space.tenant.token), 201));
    const integration = await personToken(space, ["integration"]);
    const second = KeySchema.parse(await json(await create(integration), 201));
    expect(second.key_id).not.toBe(first.key_id);
    expect(second.key).not.toBe(first.key);
    expect(KeySchema.parse(await json(await create(space.tenant.token), 201))).toEqual(first);
  });

  it("forget: another security person's Idempotency-Key erases their own subject and answers their own receipt", async () => {
    const space = await createSpace();
    await json(
      await batch(space, [message({ handles: [phone("+15555550181")] }), message({ handles: [phone("+15555550182")] })]),
      200,
    );
    const forget = (token: string, value: string) =>
      call("POST", `/spaces/${space.name}/v1/forget`, {
        token,
        headers: { "idempotency-key": "forget-key" },
        body: { handle: { type: "phone_e164", value } },
      });
    const idOf = async (response: Response) => {
      const erasure = await erasureOf(response);
      return erasure.status === 200 ? erasure.receipt.receipt_id : erasure.receiptId;
    };
    const first = await idOf(await forget(await personToken(space, ["security"]), "+15555550181"));
    const second = await idOf(await forget(await personToken(space, ["security"]), "+15555550182"));
    expect(second).not.toBe(first);
    const lookup = (value: string) =>
      call("POST", `/spaces/${space.name}/v1/profiles/lookup`, {
        token: space.key,
        body: { handle: { type: "phone_e164", value } },
      });
    expect((await lookup("+15555550182")).status).toBe(404);
  });
});

describe("kept Idempotency-Key answers are deleted when their 24 hours are over", () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("control: a key creation's answer, which holds the key whole, is gone after its day, by the object's alarm", async () => {
    const space = await createSpace();
    const idempotencyKey = crypto.randomUUID();
    const created = KeySchema.parse(
      await json(
        await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
          token: space.tenant.token,
          headers: { "idempotency-key": idempotencyKey },
          body: { scopes: ["track"] },
        }),
        201,
      ),
    );
    const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
    const kept = () =>
      runInDurableObject(control, (_instance: ControlObject, state) =>
        state.storage.sql
          .exec<{ answer: string }>("SELECT answer FROM idempotency_records WHERE key = ?", idempotencyKey)
          .toArray()
          .map((row) => row.answer),
      );
    expect((await kept()).join()).toContain(created.key ?? "");
    expect(await runInDurableObject(control, (_instance: ControlObject, state) => state.storage.getAlarm())).not.toBeNull();

    // A day less a second on, the answer stays; a day on, the alarm deletes it.
    const at = (ms: number) =>
      runInDurableObject(control, (instance: ControlObject) => {
        instance.clock = { now: () => Date.now() + ms };
      });
    try {
      await at(DAY - 1_000);
      await runDurableObjectAlarm(control);
      expect(await kept()).toHaveLength(1);
      await at(DAY + 1_000);
      await runDurableObjectAlarm(control);
      expect(await kept()).toEqual([]);
    } finally {
      await at(0);
    }
  });

  it("space: an identity write's answer, which holds whole handles, is gone after its day, by a timer", async () => {
    const space = await createSpace();
    const idempotencyKey = crypto.randomUUID();
    const body = { person: { handle: phone("+15555550781") }, organization: { handle: systemId("acct-781") }, kind: "account" };
    LinkSchema.parse(await json(await linkResponse(space, body, space.key, idempotencyKey), 201));
    const kept = () =>
      runInDurableObject(env.SPACE.get(env.SPACE.idFromName(space.name)), (_instance: SpaceObject, state) =>
        state.storage.sql.exec("SELECT 1 FROM idempotency_records WHERE key = ?", idempotencyKey).toArray(),
      );
    expect(await kept()).toHaveLength(1);
    await moveClock(space, DAY - 1_000);
    await runAlarms(space);
    expect(await kept()).toHaveLength(1);
    await moveClock(space, 2_000);
    await runAlarms(space);
    expect(await kept()).toEqual([]);
  });
});

describe("a handle that is not the caller's: one 404 for every kind of not yours", () => {
  it("a vendor's lookup and search by a handle only another source wrote answer exactly as for an unknown handle", async () => {
    const space = await createSpace();
    const second = await createSource(space, ["track"]);
    // Only the second source writes this customer; the vendor is bound to the first.
    expect((await batch(space, [event([phone("+15555550181")])], second.key)).status).toBe(200);
    // The vendor's source and the second both write another customer, who gets an e-mail from the second only.
    expect((await batch(space, [event([phone("+15555550182")])])).status).toBe(200);
    expect((await batch(space, [event([phone("+15555550182"), email("kim@example.com")])], second.key)).status).toBe(200);
    const vendor = await personToken(space, ["vendor"], [space.sourceId]);

    const unknownLookup = sameness(await problemOf(await lookupResponse(space, phone("+15555550189"), vendor), 404));
    for (const handle of [phone("+15555550181"), email("kim@example.com")]) {
      expect(sameness(await problemOf(await lookupResponse(space, handle, vendor), 404))).toEqual(unknownLookup);
    }
    const search = (handle: ReturnType<typeof phone>) =>
      call("POST", `/spaces/${space.name}/v1/search`, { token: vendor, body: { query: "order", handle } });
    const unknownSearch = sameness(await problemOf(await search(phone("+15555550189")), 404));
    expect(unknownSearch).toEqual(unknownLookup);
    for (const handle of [phone("+15555550181"), email("kim@example.com")]) {
      expect(sameness(await problemOf(await search(handle), 404))).toEqual(unknownSearch);
    }
    // What the vendor's source wrote is found.
    SearchPageSchema.parse(await json(await search(phone("+15555550182")), 200));
  });
});

describe("a request body that cannot be read whole", () => {
  function cutShort(): ReadableStream<Uint8Array> {
    let sent = false;
    return new ReadableStream({
      pull(controller) {
        if (sent) return controller.error(new Error("Network connection lost."));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"items": ['));
      },
    });
  }

  it("is 422 invalid_input as a problem document, on a data route and a control route, never a 500", async () => {
    const space = await createSpace();
    for (const [path, token] of [
      [`/spaces/${space.name}/v1/batch`, space.key],
      ["/control/v1/auth/login", null],
      ["/control/v1/projects", space.tenant.token],
    ] as const) {
      const request = new Request(`${ORIGIN}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": "100",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: cutShort(),
        duplex: "half",
      } as RequestInit);
      const problem = await problemOf(await app.fetch(request, env, createExecutionContext()), 422);
      expect(problem.code, path).toBe("invalid_input");
      expect(problem.detail, path).toBe("body could not be read whole: shorter than its Content-Length, or cut off");
    }
  });
});

describe("vendor_sources: sources of the person's own tenant only", () => {
  it("refuses another tenant's source and an unknown id alike with 422, on creation and on change", async () => {
    const space = await createSpace();
    const foreign = await createSpace();
    const person = (vendorSources: string[]) => ({
      email: `${uniqueName("v")}@example.test`,
      password: "correct horse battery staple",
      roles: ["vendor"],
      vendor_sources: vendorSources,
    });
    const create = (vendorSources: string[]) =>
      call("POST", "/control/v1/people", { token: space.tenant.token, body: person(vendorSources) });

    const crossTenant = sameness(await problemOf(await create([space.sourceId, foreign.sourceId]), 422));
    expect(crossTenant.detail).toBe("vendor_sources.1: not_a_source_of_this_tenant");
    const unknown = sameness(await problemOf(await create([space.sourceId, crypto.randomUUID()]), 422));
    expect(unknown).toEqual(crossTenant);

    const created = PersonSchema.parse(await json(await create([space.sourceId]), 201));
    const change = (vendorSources: string[]) =>
      call("PATCH", `/control/v1/people/${created.person_id}`, {
        token: space.tenant.token,
        body: { vendor_sources: vendorSources },
      });
    expect((await problemOf(await change([foreign.sourceId]), 422)).detail).toBe("vendor_sources.0: not_a_source_of_this_tenant");
    // The other tenant's admin cannot bind its people to this tenant's source either.
    const stranger = await createTenant();
    const bound = await call("POST", "/control/v1/people", { token: stranger.token, body: person([space.sourceId]) });
    expect((await problemOf(bound, 422)).detail).toBe("vendor_sources.0: not_a_source_of_this_tenant");
  });
});
