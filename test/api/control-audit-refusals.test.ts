import { describe, expect, it } from "vitest";
import { ControlAudit } from "../../src/contract/audit";
import { SpaceConfigSchema } from "../../src/contract/config";
import { KeySchema, PersonSchema } from "../../src/contract/control";
import { expectProblem, personToken } from "../support/identity";
import { call, createKey, createSpace, json, type Space } from "../support/seed";

/**
 * Control routes check a person's roles and input at the edge, before the ControlObject: a person
 * refused there is recorded all the same, under the route's action (docs/api/privacy.md#audit,
 * "Refusals are recorded"); a credential that names no person is not.
 */

type ControlEntry = ReturnType<typeof ControlAudit.entry.parse>;

async function personId(token: string): Promise<string> {
  return PersonSchema.parse(await json(await call("GET", "/control/v1/users/me", { token }), 200)).person_id;
}

/** The tenant's whole control log, read by its admin. */
async function controlLog(space: Space): Promise<ControlEntry[]> {
  const entries: ControlEntry[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/control/v1/control-audit?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = ControlAudit.page.parse(await json(await call("GET", path, { token: space.tenant.token }), 200));
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

const revoke = (keyId: string, token: string, idempotencyKey: string = crypto.randomUUID()) =>
  call("POST", `/control/v1/keys/${keyId}/revoke`, { token, headers: { "idempotency-key": idempotencyKey } });

const putConfig = (space: Space, token: string, values: Record<string, unknown>) =>
  call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token, body: { values } });

/** Answered with `status` and `code`; its Request-Id. */
async function refused(response: Response, status: number, code: string): Promise<string> {
  const requestId = response.headers.get("request-id");
  await expectProblem(response, status, code);
  if (!requestId) throw new Error("no Request-Id");
  return requestId;
}

describe("control routes: a person refused at the edge is in the control log", () => {
  it("records a `review` person's refused key revoke and configuration change as `forbidden`; nothing changed", async () => {
    const space = await createSpace();
    const review = await personToken(space, ["review"]);
    const reviewId = await personId(review);
    const before = SpaceConfigSchema.parse(
      await json(await call("GET", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token }), 200),
    );

    const idempotencyKey = crypto.randomUUID();
    const revokeRequest = await refused(await revoke(space.keyId, review, idempotencyKey), 403, "forbidden");
    const configRequest = await refused(await putConfig(space, review, { clock_tolerance_s: 60 }), 403, "forbidden");

    const mine = (await controlLog(space)).filter((entry) => entry.actor.id === reviewId && entry.action !== "auth.login");
    expect(mine).toEqual([
      expect.objectContaining({
        actor: { kind: "person", id: reviewId },
        action: "key.revoke",
        targets: [{ type: "key", id: space.keyId }],
        outcome: "forbidden",
        request_id: revokeRequest,
      }),
      expect.objectContaining({
        actor: { kind: "person", id: reviewId },
        action: "config.update",
        targets: [{ type: "space", id: space.spaceId }],
        outcome: "forbidden",
        request_id: configRequest,
      }),
    ]);

    // The key still works, and its Idempotency-Key was not used up by the refusal.
    expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: space.key })).status).toBe(200);
    const revoked = KeySchema.parse(await json(await revoke(space.keyId, space.tenant.token, idempotencyKey), 200));
    expect(revoked.status).toBe("revoked");
    // The configuration is the one before.
    const after = SpaceConfigSchema.parse(
      await json(await call("GET", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token }), 200),
    );
    expect(after).toEqual(before);
  });

  it("keeps only path ids of the service's own syntax, and records input the edge refused as `invalid_input`", async () => {
    const space = await createSpace();
    const review = await personToken(space, ["review"]);
    const integration = await personToken(space, ["integration"]);
    const reviewId = await personId(review);
    const integrationId = await personId(integration);
    const typed = "someone@example.test";

    const typedRequest = await refused(await revoke(typed, review), 403, "forbidden");
    // A person with the role whose request the edge refuses: no Idempotency-Key, a body that is no JSON.
    const key = await createKey(space.tenant.token, space.sourceId, ["track"]);
    const headerRequest = await refused(
      await call("POST", `/control/v1/keys/${key.key_id}/revoke`, { token: integration }),
      422,
      "invalid_input",
    );
    const bodyRequest = await refused(
      await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        rawBody: "{not json",
        headers: { "content-type": "application/json" },
      }),
      422,
      "invalid_input",
    );
    const valueRequest = await refused(
      await putConfig(space, space.tenant.token, { clock_tolerance_s: -1 }),
      422,
      "invalid_input",
    );

    const entries = await controlLog(space);
    const byRequest = (requestId: string) => entries.filter((entry) => entry.request_id === requestId);
    expect(byRequest(typedRequest)).toEqual([
      expect.objectContaining({
        actor: { kind: "person", id: reviewId },
        action: "key.revoke",
        targets: [],
        outcome: "forbidden",
      }),
    ]);
    expect(byRequest(headerRequest)).toEqual([
      expect.objectContaining({
        actor: { kind: "person", id: integrationId },
        action: "key.revoke",
        targets: [{ type: "key", id: key.key_id }],
        outcome: "invalid_input",
      }),
    ]);
    for (const requestId of [bodyRequest, valueRequest]) {
      expect(byRequest(requestId)).toEqual([
        expect.objectContaining({
          action: "config.update",
          targets: [{ type: "space", id: space.spaceId }],
          outcome: "invalid_input",
        }),
      ]);
    }
    expect(JSON.stringify(entries)).not.toContain(typed);
    // The key was not revoked.
    expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: key.key })).status).toBe(200);
  });

  it("records nobody for a source key, a garbage token or a cut token, nor a refused route that has no action", async () => {
    const space = await createSpace();
    const review = await personToken(space, ["review"]);
    const reviewId = await personId(review);
    const unrecorded = [
      await refused(await revoke(space.keyId, space.key), 403, "forbidden"),
      await refused(await putConfig(space, space.key, { clock_tolerance_s: 60 }), 403, "forbidden"),
      await refused(await revoke(space.keyId, "garbage.token.value"), 401, "unauthenticated"),
      await refused(await putConfig(space, "not-even-a-token", { clock_tolerance_s: 60 }), 401, "unauthenticated"),
      // Listing people is no action of the log, refused or not.
      await refused(await call("GET", "/control/v1/people", { token: review }), 403, "forbidden"),
    ];
    // A logged-out token: the ControlObject refuses it before it would record the person.
    const cut = await personToken(space, ["review"]);
    const cutId = await personId(cut);
    expect((await call("POST", "/control/v1/auth/logout", { token: cut })).status).toBe(204);
    unrecorded.push(await refused(await revoke(space.keyId, cut), 401, "unauthenticated"));
    unrecorded.push(await refused(await putConfig(space, cut, { clock_tolerance_s: -1 }), 401, "unauthenticated"));

    const entries = await controlLog(space);
    expect(entries.filter((entry) => entry.request_id !== null && unrecorded.includes(entry.request_id))).toEqual([]);
    expect(entries.filter((entry) => entry.actor.id === reviewId).map((entry) => entry.action)).toEqual(["auth.login"]);
    expect(entries.filter((entry) => entry.actor.id === cutId).map((entry) => [entry.action, entry.outcome])).toEqual([
      ["auth.login", "ok"],
      ["auth.logout", "ok"],
    ]);
    expect(entries.some((entry) => entry.actor.kind === "key")).toBe(false);
    expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: space.key })).status).toBe(200);
  });
});
