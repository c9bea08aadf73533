import { call, createKey, json, type Space } from "./seed";

/**
 * Ids of real objects of the space's tenant for the templates of documented paths, by the segment
 * before the template: `/v1/keys/{id}` takes `keys`. The key is a spare one, so a request that
 * rotates or revokes it leaves the space's own key working.
 */
export async function pathFixtures(space: Space): Promise<Record<string, string>> {
  const projects = await json<{ data: { project_id: string }[] }>(
    await call("GET", "/control/v1/projects", { token: space.tenant.token }),
    200,
  );
  const spare = await createKey(space.tenant.token, space.sourceId, ["track"]);
  return {
    spaces: space.spaceId,
    projects: projects.data[0]?.project_id ?? "",
    sources: space.sourceId,
    keys: spare.key_id,
  };
}
