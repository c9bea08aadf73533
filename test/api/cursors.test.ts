import { describe, expect, it } from "vitest";
import { PersonSchema, pageOf } from "../../src/contract/control";
import { TimelinePageSchema } from "../../src/contract/history";
import { SearchPageSchema } from "../../src/contract/search";
import { encodeCursor } from "../../src/http/cursor";
import { later } from "../support/memory";
import { batch, call, createSpace, json, message, type Space, uniqueName } from "../support/seed";

/**
 * Every cursor-taking route takes only cursors the service issued: a well-formed cursor it never
 * issued (a search position with an infinite score, a timeline position far in the future, an
 * id) is `422 not_issued_by_this_service`, as is an issued cursor of another list or another
 * space; an issued one pages on.
 */

const PHONE = { type: "phone_e164", value: "+15555550142" };

async function expectNotIssued(response: Response, place: string) {
  const text = await response.text();
  expect(response.status, text).toBe(422);
  const problem = JSON.parse(text);
  expect(problem.code).toBe("invalid_input");
  expect(problem.detail).toBe(`${place}: not_issued_by_this_service`);
}

/** A space with three messages of one customer, all matching "parcel". */
async function seeded(): Promise<{ space: Space; profileId: string }> {
  const space = await createSpace();
  const items = [0, 1, 2].map((i) =>
    message({
      handles: [PHONE],
      content: { type: "text", text: `parcel ${i} is late` },
      occurred_at: new Date(Date.now() - (i + 1) * 60_000).toISOString(),
    }),
  );
  expect((await batch(space, items)).status).toBe(200);
  // The compile done before paging: a compile between two pages changes the words' statistics,
  // and with them the scores a cursor is compared with (docs/api/search.md, "Paging").
  await later(space, 60_000);
  const profile = await json<{ profile_id: string }>(
    await call("POST", `/spaces/${space.name}/v1/profiles/lookup`, { token: space.key, body: { handle: PHONE } }),
    200,
  );
  return { space, profileId: profile.profile_id };
}

const searchBody = (space: Space, body: Record<string, unknown>) =>
  call("POST", `/spaces/${space.name}/v1/search`, { token: space.key, body: { query: "parcel", limit: 1, ...body } });
const timelineBody = (space: Space, body: Record<string, unknown>) =>
  call("POST", `/spaces/${space.name}/v1/timeline`, { token: space.key, body: { handle: PHONE, limit: 1, ...body } });

describe("cursors: only issued ones pass", () => {
  it("POST /v1/search and GET /v1/profiles/{id}/search: a forged position is 422, an issued cursor pages on", async () => {
    const { space, profileId } = await seeded();
    const forged = encodeCursor(JSON.stringify({ s: 1e308, r: 1 }));
    await expectNotIssued(await searchBody(space, { cursor: encodeCursor('{"s":1e999,"r":1}') }), "cursor");
    await expectNotIssued(await searchBody(space, { cursor: forged }), "cursor");
    const first = SearchPageSchema.parse(await json(await searchBody(space, {}), 200));
    expect(first.next_cursor).not.toBeNull();
    const second = SearchPageSchema.parse(await json(await searchBody(space, { cursor: first.next_cursor }), 200));
    expect(second.results[0]?.id).not.toBe(first.results[0]?.id);
    // The issued cursor with its signature cut off, or altered, is not issued either.
    const unsigned = (first.next_cursor as string).split(".")[0] as string;
    await expectNotIssued(await searchBody(space, { cursor: unsigned }), "cursor");
    await expectNotIssued(
      await searchBody(space, { cursor: `${unsigned}x.${(first.next_cursor as string).split(".")[1]}` }),
      "cursor",
    );

    const path = `/spaces/${space.name}/v1/profiles/${profileId}/search?q=parcel&limit=1`;
    await expectNotIssued(await call("GET", `${path}&cursor=${forged}`, { token: space.key }), "query.cursor");
    const page = SearchPageSchema.parse(await json(await call("GET", path, { token: space.key }), 200));
    const next = await call("GET", `${path}&cursor=${page.next_cursor}`, { token: space.key });
    expect(SearchPageSchema.parse(await json(next, 200)).results).toHaveLength(1);
  });

  it("POST /v1/timeline and GET /v1/profiles/{id}/timeline: a position far in the future is 422", async () => {
    const { space, profileId } = await seeded();
    const future = encodeCursor(`${Date.now() + 10 * 365 * 86_400_000}:1`);
    await expectNotIssued(await timelineBody(space, { cursor: future }), "cursor");
    const first = TimelinePageSchema.parse(await json(await timelineBody(space, {}), 200));
    const second = TimelinePageSchema.parse(await json(await timelineBody(space, { cursor: first.next_cursor }), 200));
    expect(second.data[0]?.event_id).not.toBe(first.data[0]?.event_id);

    const path = `/spaces/${space.name}/v1/profiles/${profileId}/timeline?limit=1`;
    await expectNotIssued(await call("GET", `${path}&cursor=${future}`, { token: space.key }), "query.cursor");
    const page = TimelinePageSchema.parse(await json(await call("GET", path, { token: space.key }), 200));
    expect((await call("GET", `${path}&cursor=${page.next_cursor}`, { token: space.key })).status).toBe(200);
  });

  it("a cursor of one list is not one of another, nor of another space", async () => {
    const { space } = await seeded();
    const other = await seeded();
    const search = SearchPageSchema.parse(await json(await searchBody(space, {}), 200));
    await expectNotIssued(await timelineBody(space, { cursor: search.next_cursor }), "cursor");
    await expectNotIssued(await searchBody(other.space, { cursor: search.next_cursor }), "cursor");
  });

  it("GET /v1/identity/suggestions: a forged cursor is 422", async () => {
    const { space } = await seeded();
    const path = `/spaces/${space.name}/v1/identity/suggestions?cursor=${encodeCursor("zzzzzzzz")}`;
    await expectNotIssued(await call("GET", path, { token: space.key }), "query.cursor");
  });

  it("control lists: a forged cursor is 422, an issued one pages on", async () => {
    const space = await createSpace();
    for (let i = 0; i < 2; i++) {
      const body = { email: `${uniqueName("p")}@example.test`, password: "correct horse battery staple", roles: ["review"] };
      await json(await call("POST", "/control/v1/people", { token: space.tenant.token, body }), 201);
    }
    const forged = encodeCursor("00000000-0000-7000-8000-000000000000");
    const projects = await json<{ data: { project_id: string }[] }>(
      await call("GET", "/control/v1/projects", { token: space.tenant.token }),
      200,
    );
    const lists = [
      "/control/v1/people",
      "/control/v1/projects",
      `/control/v1/projects/${projects.data[0]?.project_id}/spaces`,
      `/control/v1/spaces/${space.spaceId}/sources`,
      "/control/v1/control-audit",
    ];
    for (const path of lists) {
      await expectNotIssued(await call("GET", `${path}?cursor=${forged}`, { token: space.tenant.token }), "query.cursor");
    }
    const People = pageOf(PersonSchema, "PersonPage");
    const first = People.parse(await json(await call("GET", "/control/v1/people?limit=1", { token: space.tenant.token }), 200));
    const next = `/control/v1/people?limit=1&cursor=${first.next_cursor}`;
    const second = People.parse(await json(await call("GET", next, { token: space.tenant.token }), 200));
    expect(second.data[0]?.person_id).not.toBe(first.data[0]?.person_id);
    await expectNotIssued(
      await call("GET", `/control/v1/projects?cursor=${first.next_cursor}`, { token: space.tenant.token }),
      "query.cursor",
    );
  });
});
