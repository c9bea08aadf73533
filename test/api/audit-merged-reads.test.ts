import { describe, expect, it } from "vitest";
import { SpaceAudit } from "../../src/contract/audit";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { ContextAnswerSchema, ContextSchema } from "../../src/contract/context";
import { ProfileSchema } from "../../src/contract/identity";
import { expectProblem, identifyItem, personToken, phone } from "../support/identity";
import { moveClock } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * A person's read by a merged-away profile id (docs/api/privacy.md#audit): audited with the profile
 * answered, its survivor, not the id asked for; a refused read names the id it asked for.
 */

const OLDER = phone("+15555550471");
const YOUNGER = phone("+15555550472");

async function accept(space: Space, items: unknown[]) {
  expect(BatchAnswerSchema.parse(await json(await batch(space, items), 200)).accepted).toBe(items.length);
}

async function auditLog(space: Space, token: string) {
  const page = SpaceAudit.page.parse(await json(await call("GET", `/spaces/${space.name}/v1/audit?limit=200`, { token }), 200));
  return page.data.filter((entry) => entry.action !== "audit.read");
}

describe("a person's read by a merged-away id is audited with the survivor answered", () => {
  it("records context and profile reads with the survivor, and a refused read with the id asked for", async () => {
    const space = await createSpace();
    // The object's clock stands still, so no compile comes due between the two context reads.
    await moveClock(space, 0);
    await accept(space, [message({ handles: [OLDER] })]);
    await accept(space, [message({ handles: [YOUNGER] })]);
    const lookup = (handle: typeof OLDER) =>
      call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token: space.key, body: { handle } });
    const survivor = ProfileSchema.parse(await json(await lookup(OLDER), 200)).profile_id;
    const absorbed = ProfileSchema.parse(await json(await lookup(YOUNGER), 200)).profile_id;
    await accept(space, [identifyItem([OLDER, YOUNGER])]);

    const review = await personToken(space, ["review"]);
    const read = (path: string) => call("GET", `/spaces/${space.name}/v1/profiles/${path}`, { token: review });
    expect(ContextSchema.parse(await json(await read(`${absorbed}/context`), 200)).profile_id).toBe(survivor);
    expect(ProfileSchema.parse(await json(await read(absorbed), 200)).profile_id).toBe(survivor);
    const missing = crypto.randomUUID();
    await expectProblem(await read(`${missing}/context`), 404, "not_found");
    await expectProblem(await read(missing), 404, "not_found");

    await expectProblem(await read(`${missing}/timeline`), 404, "not_found");
    await expectProblem(await read(`${missing}/search?q=parcel`), 404, "not_found");
    // A context the person already holds answers `unchanged`, and still names whose it was.
    const held = ContextSchema.parse(
      await json(await call("POST", `/spaces/${space.name}/v1/context`, { token: review, body: { handle: YOUNGER } }), 200),
    );
    const again = await json(
      await call("POST", `/spaces/${space.name}/v1/context`, { token: review, body: { handle: YOUNGER, known_etag: held.etag } }),
      200,
    );
    expect(ContextAnswerSchema.parse(again)).toEqual({ unchanged: true, etag: held.etag });

    const entries = await auditLog(space, await personToken(space, ["security"]));
    expect(entries.map((entry) => [entry.action, entry.outcome, entry.targets])).toEqual([
      ["context.read", "ok", [{ type: "profile", id: survivor }]],
      ["profile.read", "ok", [{ type: "profile", id: survivor }]],
      ["context.read", "not_found", [{ type: "profile", id: missing }]],
      ["profile.read", "not_found", [{ type: "profile", id: missing }]],
      ["timeline.read", "not_found", [{ type: "profile", id: missing }]],
      ["search.read", "not_found", [{ type: "profile", id: missing }]],
      ["context.read", "ok", [{ type: "profile", id: survivor }]],
      ["context.read", "ok", [{ type: "profile", id: survivor }]],
    ]);
  });
});
