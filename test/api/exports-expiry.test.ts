import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ExportRecord, ExportSchema } from "../../src/contract/exports";
import { EXPORT_TTL_MS } from "../../src/space/exports/expiry";
import { expectProblem, personToken, phone, query, restartSpaceObject } from "../support/identity";
import { later, moveClock } from "../support/memory";
import { batch, call, createSpace, json, message, ORIGIN, type Space } from "../support/seed";

/**
 * Exports expire (docs/api/privacy.md "Expiry"): 7 days after an export completed its record
 * answers 404 and no link given before then outlives it, and the `export.expire` timer deletes
 * its file from R2 and its rows (after a restart too); an export completed later stays until its
 * own expiry.
 */

const HOUR = 3_600_000;

async function exportOf(space: Space, token: string, value: string): Promise<ExportRecord> {
  return ExportSchema.parse(
    await json(await call("POST", `/spaces/${space.name}/v1/exports`, { token, body: { handle: phone(value) } }), 201),
  );
}

const read = (space: Space, token: string, exportId: string) =>
  call("GET", `/spaces/${space.name}/v1/exports/${exportId}`, { token });

const files = async (space: Space) =>
  (await env.FILES.list({ prefix: `spaces/${space.name}/exports/` })).objects.map((object) => object.key).sort();

/**
 * Waits up to 5 s for `settled`: a restarted object runs its due alarm by itself, beside the
 * test's, and that round holds the expiry's timer while its R2 delete and then its rows' are under way.
 */
async function once(settled: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await settled()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

const fetchLink = (record: ExportRecord) => call("GET", (record.download?.url ?? "").slice(ORIGIN.length));

describe("exports: a completed export expires after 7 days", () => {
  it("answers 404 from then on, never links past it, and deletes the file and the record by timer", async () => {
    const space = await createSpace();
    const security = await personToken(space, ["security"]);
    await json(
      await batch(space, [message({ handles: [phone("+15555550320")] }), message({ handles: [phone("+15555550321")] })]),
      200,
    );
    const t0 = await moveClock(space, 0);
    const first = await exportOf(space, security, "+15555550320");
    const completed = Date.parse(first.completed_at ?? "");
    expect(completed).toBeGreaterThanOrEqual(t0);
    expect(await query(space, "SELECT due_at FROM timers WHERE kind = 'export.expire'")).toEqual([
      { due_at: completed + EXPORT_TTL_MS },
    ]);

    // A day later a second export: it expires a day after the first.
    await moveClock(space, 24 * HOUR);
    const second = await exportOf(space, security, "+15555550321");
    expect(await files(space)).toHaveLength(2);

    // Half an hour before the expiry a read links for half an hour only, and the link works.
    await moveClock(space, EXPORT_TTL_MS - 24 * HOUR - HOUR / 2);
    const late = ExportSchema.parse(await json(await read(space, security, first.export_id), 200));
    expect(Date.parse(late.download?.expires_at ?? "")).toBe(Math.floor((completed + EXPORT_TTL_MS) / 1000) * 1000);
    expect((await fetchLink(late)).status).toBe(200);

    // Past the expiry, before any timer ran: the record is 404, and the link given before has expired with it.
    await moveClock(space, HOUR);
    await expectProblem(await read(space, security, first.export_id), 404, "not_found");
    await expectProblem(await fetchLink(late), 401, "unauthenticated");

    // The object restarts; the timer deletes the file, then the rows; the second export stays.
    const stood = await moveClock(space, 0);
    await restartSpaceObject(space);
    await moveClock(space, stood - Date.now());
    await later(space, 1_000);
    await once(async () => (await query(space, "SELECT export_id FROM exports")).length === 1);
    expect(await files(space)).toEqual([`spaces/${space.name}/exports/${second.export_id}`]);
    expect(await query(space, "SELECT export_id FROM exports")).toEqual([{ export_id: second.export_id }]);
    expect(await query(space, "SELECT export_id FROM export_profiles")).toEqual([{ export_id: second.export_id }]);
    expect(await query(space, "SELECT due_at FROM timers WHERE kind = 'export.expire'")).toEqual([
      { due_at: Date.parse(second.completed_at ?? "") + EXPORT_TTL_MS },
    ]);
    ExportSchema.parse(await json(await read(space, security, second.export_id), 200));

    // A day on, the second goes too, and no timer is left.
    await moveClock(space, 24 * HOUR);
    await later(space, 1_000);
    expect(await files(space)).toEqual([]);
    await expectProblem(await read(space, security, second.export_id), 404, "not_found");
    expect(await query(space, "SELECT count(*) AS n FROM timers WHERE kind = 'export.expire'")).toEqual([{ n: 0 }]);
  });
});
