import { describe, expect, it } from "vitest";
import { expectProblem, personToken, query } from "../support/identity";
import { receiptKey } from "../support/privacy";
import { AGENT_SCOPES, call, createKey, createSpace, json, type Space } from "../support/seed";

/**
 * `GET /v1/privacy/receipt-key` (docs/api/privacy.md): any valid key of the space and any person
 * of its tenant read it; a person of another tenant and a key of another space are `403
 * forbidden` (the contract's order of checks), and a `kid` of another space's key is `404`, as a
 * `kid` this space never used. A refused read makes no key.
 */

const keyPath = (space: Space, kid?: string) =>
  `/spaces/${space.name}/v1/privacy/receipt-key${kid === undefined ? "" : `?kid=${encodeURIComponent(kid)}`}`;

/** Another space of the same tenant (its own project), with a source and a key of every scope an agent may hold. */
async function siblingSpace(space: Space): Promise<{ name: string; key: string }> {
  const token = space.tenant.token;
  const project = await json<{ project_id: string }>(
    await call("POST", "/control/v1/projects", { token, body: { name: "Sibling" } }),
    201,
  );
  const sibling = await json<{ space_id: string; name: string }>(
    await call("POST", `/control/v1/projects/${project.project_id}/spaces`, { token, body: { name: `${space.name}-b` } }),
    201,
  );
  const source = await json<{ source_id: string }>(
    await call("POST", `/control/v1/spaces/${sibling.space_id}/sources`, { token, body: { name: "Agent", kind: "agent" } }),
    201,
  );
  return { name: sibling.name, key: (await createKey(token, source.source_id, AGENT_SCOPES)).key };
}

describe("the receipt key: refused to other tenants' people and other spaces' keys", () => {
  it("answers a person of another tenant and a key of another space (another tenant's or the same tenant's) 403", async () => {
    const space = await createSpace();
    const stranger = await createSpace();
    const sibling = await siblingSpace(space);
    const refused = [
      stranger.tenant.token,
      await personToken(stranger, ["security"]),
      await personToken(stranger, ["analysis"]),
      stranger.key,
      sibling.key,
    ];
    for (const token of refused) {
      await expectProblem(await call("GET", keyPath(space), { token }), 403, "forbidden");
    }
    // A refused read made no key: the space has none until an admitted read.
    expect(await query(space, "SELECT kid FROM receipt_keys")).toEqual([]);

    const published = await receiptKey(space, space.key);
    expect(await receiptKey(space, await personToken(space, ["analysis"]))).toEqual(published);
    // Naming the space's own kid does not open it to them either.
    for (const token of refused) {
      await expectProblem(await call("GET", keyPath(space, published.kid), { token }), 403, "forbidden");
    }
    expect(await query(space, "SELECT kid FROM receipt_keys")).toEqual([{ kid: published.kid }]);
  });

  it("answers the kid of another space's key 404, as a kid this space never used", async () => {
    const space = await createSpace();
    const stranger = await createSpace();
    const sibling = await siblingSpace(space);
    const own = await receiptKey(space, space.key);
    const theirs = await receiptKey(stranger, stranger.key);
    const siblings = await receiptKey({ ...space, name: sibling.name }, sibling.key);
    // A key per space.
    expect(new Set([own.kid, theirs.kid, siblings.kid]).size).toBe(3);

    const never = await expectProblem(await call("GET", keyPath(space, "never-used"), { token: space.key }), 404, "not_found");
    for (const kid of [theirs.kid, siblings.kid]) {
      for (const token of [space.key, space.tenant.token]) {
        const problem = await expectProblem(await call("GET", keyPath(space, kid), { token }), 404, "not_found");
        expect(problem.detail).toBe(never.detail);
      }
    }
    expect(await receiptKey(space, space.key, own.kid)).toEqual(own);
  });
});
