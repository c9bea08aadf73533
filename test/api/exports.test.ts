import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { type ExportRecord, ExportSchema } from "../../src/contract/exports";
import { routedRequest } from "../../src/edge/address";
import { app } from "../../src/edge/app";
import type { SpaceObject } from "../../src/space/object";
import { email, expectProblem, identifyItem, personToken, phone, query, restartSpaceObject } from "../support/identity";
import { later, moveClock, runAlarms, stub } from "../support/memory";
import { forgotten } from "../support/privacy";
import { batch, call, createSpace, json, message, ORIGIN, type Space } from "../support/seed";

/**
 * Exports (docs/api/privacy.md#export): one subject's profile, handles, events and memory as
 * NDJSON in R2, nothing of another subject; small subjects complete in the answer, large ones
 * by timer in slices (across a restart too); the development download link signed and expiring.
 */

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const A_PHONE = "+15555550301";
const A_EMAIL = "alex.export@example.com";
const B_PHONE = "+15555550399";
const B_TEXT = "Bravo keeps a secret: the gate code is 7731.";
const A_TEXTS = ["Hi, my size is 42.", "Where is my parcel for order o-1?", "I prefer e-mail from now on."];

async function accept(space: Space, items: unknown[]): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 200));
  expect(answer.errors).toEqual([]);
}

const say = (handles: { type: string; value: string }[], at: number, text: string, conversation = "conv-a") =>
  message({ handles, occurred_at: iso(at), conversation_id: conversation, content: { type: "text", text } });

/** Subject A (a phone and an e-mail, first two profiles, then merged), with facts, a question, a promise; subject B beside it. */
async function seed(): Promise<{ space: Space; security: string }> {
  const space = await createSpace();
  const t0 = await moveClock(space, 0);
  await accept(space, [
    say([phone(A_PHONE)], t0 - 10 * MINUTE, A_TEXTS[0] as string),
    say([phone(A_PHONE)], t0 - 9 * MINUTE, A_TEXTS[1] as string),
    say([email(A_EMAIL)], t0 - 8 * MINUTE, A_TEXTS[2] as string, "mail-a"),
    say([phone(B_PHONE)], t0 - 7 * MINUTE, B_TEXT, "conv-b"),
    message({
      handles: [phone(A_PHONE)],
      kind: "action",
      speaker: { role: "ai_agent" },
      action: { operation: "promise", object_type: "order", object_id: "o-1", due_at: iso(t0 + 60 * MINUTE) },
      content: undefined,
      conversation_id: "conv-a",
      occurred_at: iso(t0 - 6 * MINUTE),
    }),
    // A's event that also names B's phone: A's data, but B's handle is not.
    say([phone(A_PHONE), phone(B_PHONE)], t0 - 5 * MINUTE, "Calling about my order o-1 again.", "conv-a"),
  ]);
  await accept(space, [identifyItem([phone(A_PHONE), email(A_EMAIL)])]);
  await later(space, 1_000);
  return { space, security: await personToken(space, ["security"]) };
}

function postExport(space: Space, body: unknown, token: string) {
  return call("POST", `/spaces/${space.name}/v1/exports`, { token, body });
}

function getExport(space: Space, exportId: string, token: string) {
  return call("GET", `/spaces/${space.name}/v1/exports/${exportId}`, { token });
}

async function exportRecord(response: Response, status: number): Promise<ExportRecord> {
  return ExportSchema.parse(await json(response, status));
}

/** The file behind a download link: its lines, parsed. */
async function download(record: ExportRecord): Promise<{ text: string; lines: Record<string, unknown>[] }> {
  const url = record.download?.url ?? "";
  expect(url.startsWith(`${ORIGIN}/spaces/`)).toBe(true);
  const response = await call("GET", url.slice(ORIGIN.length));
  const text = new TextDecoder().decode(await response.arrayBuffer());
  expect(response.status, text).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson");
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(text.endsWith("\n")).toBe(true);
  return {
    text,
    lines: text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

const tally = (lines: Record<string, unknown>[]) => {
  const counts: Record<string, number> = {};
  for (const line of lines) counts[line.record as string] = (counts[line.record as string] ?? 0) + 1;
  return counts;
};

describe("POST /v1/exports: the subject's data as NDJSON", () => {
  it("writes every kind of record of the subject, whole, and nothing of another subject", async () => {
    const { space, security } = await seed();
    const record = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 201);
    expect(record.state).toBe("completed");
    expect(record.completed_at).not.toBeNull();
    const { text, lines } = await download(record);
    expect(record.bytes).toBe(new TextEncoder().encode(text).byteLength);

    const counts = tally(lines);
    expect(counts).toMatchObject({ export: 1, profile: 1, merged_profile: 1, handle: 2, event: 5 });
    // In the documented order, the header first.
    const order = ["export", "profile", "merged_profile", "handle", "event", "episode", "fact", "object", "promise", "open_item"];
    const kinds = lines.map((line) => line.record as string);
    expect(kinds.filter((kind, i) => kinds[i - 1] !== kind)).toEqual(order.filter((kind) => kinds.includes(kind)));
    expect(lines[0]).toEqual({
      record: "export",
      export_id: record.export_id,
      space: space.name,
      profile_id: record.profile_id,
      created_at: record.created_at,
    });
    for (const kind of ["episode", "fact", "open_item", "promise", "object"]) expect(counts[kind], kind).toBeGreaterThan(0);
    expect(record.counts).toEqual({
      profiles: 2,
      handles: 2,
      events: 5,
      episodes: counts.episode,
      facts: counts.fact,
      open_items: counts.open_item,
      promises: counts.promise,
      objects: counts.object,
    });
    // Whole values for `security`: no masking in an export.
    const profile = lines.find((line) => line.record === "profile") as { profile_id: string; identifiers: { value: string }[] };
    expect(profile.profile_id).toBe(record.profile_id);
    expect(profile.identifiers.map((identifier) => identifier.value).sort()).toEqual([A_PHONE, A_EMAIL].sort());
    for (const said of A_TEXTS) expect(text).toContain(said);
    expect(lines.some((line) => line.record === "fact" && line.key === "size" && line.value === "42")).toBe(true);
    // Nothing of B: not its phone (not even on A's event that named it), not its text.
    expect(text).not.toContain(B_PHONE);
    expect(text).not.toContain("7731");
    expect(text).not.toContain("gate code");
  });

  it("exports the survivor for a merged-away profile id, and answers 404 for an unknown subject", async () => {
    const { space, security } = await seed();
    const byHandle = await exportRecord(await postExport(space, { handle: email(A_EMAIL) }, security), 201);
    const { lines } = await download(byHandle);
    const merged = lines.find((line) => line.record === "merged_profile") as { profile_id: string };
    const byMember = await exportRecord(await postExport(space, { profile_id: merged.profile_id }, security), 201);
    expect(byMember.profile_id).toBe(byHandle.profile_id);
    expect(byMember.counts).toEqual(byHandle.counts);

    await expectProblem(await postExport(space, { handle: phone("+15555550388") }, security), 404, "not_found");
    await expectProblem(await postExport(space, { profile_id: crypto.randomUUID() }, security), 404, "not_found");
    await expectProblem(await getExport(space, crypto.randomUUID(), security), 404, "not_found");
    const both = await expectProblem(
      await postExport(space, { handle: phone(A_PHONE), profile_id: byHandle.profile_id }, security),
      422,
      "invalid_input",
    );
    expect(both.detail).toContain("needs_handle_or_profile_id");
    await expectProblem(await postExport(space, {}, security), 422, "invalid_input");
  });
});

describe("GET /v1/exports/{id}: status, and a large subject written in slices by timer", () => {
  it("is running until the timer has written every slice, then completed with the same file", async () => {
    const { space, security } = await seed();
    const whole = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 201);
    const expected = tally((await download(whole)).lines);

    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.exportJobs.linesPerSlice = 1;
      instance.exportJobs.inlineMs = 0;
    });
    const started = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 202);
    expect(started.state).toBe("running");
    expect(started.download).toBeNull();
    expect(started.completed_at).toBeNull();
    const running = await exportRecord(await getExport(space, started.export_id, security), 200);
    expect(running.state).toBe("running");

    expect(await runAlarms(space)).toBeGreaterThan(0);
    const done = await exportRecord(await getExport(space, started.export_id, security), 200);
    expect(done.state).toBe("completed");
    expect(done.counts).toEqual(whole.counts);
    expect(tally((await download(done)).lines)).toEqual(expected);
  });

  it("starts again from the first line after a restart, and completes whole", async () => {
    const { space, security } = await seed();
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.exportJobs.linesPerSlice = 1;
      instance.exportJobs.inlineMs = 0;
      // The object dies before its alarm writes the rest: that alarm does nothing.
      instance.alarm = async () => undefined;
    });
    const started = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 202);
    await restartSpaceObject(space);
    // The clock the test froze ran ahead of the restarted object's: past it, and what is due runs.
    await later(space, 5_000);
    const done = await exportRecord(await getExport(space, started.export_id, security), 200);
    // A second attempt: the first one's lines were in the memory the restart lost.
    const [row] = await query<{ attempts: number }>(space, "SELECT attempts FROM exports WHERE export_id = ?", started.export_id);
    expect(row?.attempts).toBe(2);
    expect(done.state).toBe("completed");
    const { lines } = await download(done);
    expect(tally(lines)).toMatchObject({ export: 1, profile: 1, merged_profile: 1, handle: 2, event: 5 });
    expect(done.counts.events).toBe(5);
  });
});

describe("exports are erasable", () => {
  it("forget of a subject takes its exports: record 404, link refused, R2 file and rows gone; another subject's kept", async () => {
    const { space, security } = await seed();
    const theirs = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 201);
    const others = await exportRecord(await postExport(space, { handle: phone(B_PHONE) }, security), 201);
    // By the handle of the profile merged into the subject: the export holds it too.
    const receipt = await forgotten(space, security, { handle: email(A_EMAIL) });
    expect(receipt.counts).toMatchObject({ exports: 1 });
    await expectProblem(await getExport(space, theirs.export_id, security), 404, "not_found");
    await expectProblem(await call("GET", (theirs.download?.url ?? "").slice(ORIGIN.length)), 404, "not_found");
    const stored = await runInDurableObject(stub(space), async (_instance: SpaceObject, state) => ({
      theirs: await env.FILES.head(`spaces/${space.name}/exports/${theirs.export_id}`),
      others: await env.FILES.head(`spaces/${space.name}/exports/${others.export_id}`),
      rows: state.storage.sql.exec("SELECT export_id FROM exports UNION ALL SELECT export_id FROM export_profiles").toArray(),
    }));
    expect(stored.theirs).toBeNull();
    expect(stored.others).not.toBeNull();
    expect(stored.rows.every((row) => row.export_id === others.export_id)).toBe(true);
    expect((await download(await exportRecord(await getExport(space, others.export_id, security), 200))).text).toContain(B_TEXT);
  });
});

describe("an export erased while it is written", () => {
  it("stops at its next slice and leaves no file in R2, and nothing of it answers", async () => {
    const { space, security } = await seed();
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.exportJobs.linesPerSlice = 1;
      instance.exportJobs.inlineMs = 0;
    });
    const started = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 202);
    const receipt = await forgotten(space, security, { handle: phone(A_PHONE) });
    expect(receipt.counts).toMatchObject({ exports: 1 });
    // The export's timer comes due after the erasure: its slices find nothing to write.
    await later(space, 120_000);
    await expectProblem(await getExport(space, started.export_id, security), 404, "not_found");
    const left = await runInDurableObject(stub(space), async (_instance: SpaceObject, state) => ({
      files: (await env.FILES.list({ prefix: `spaces/${space.name}/exports/` })).objects.map((object) => object.key),
      rows: state.storage.sql.exec("SELECT export_id FROM exports UNION ALL SELECT export_id FROM export_profiles").toArray(),
      timers: state.storage.sql.exec("SELECT kind FROM timers WHERE kind LIKE 'export.%'").toArray(),
    }));
    expect(left).toEqual({ files: [], rows: [], timers: [] });
  });
});

/** A subject of `count` messages of about 800 KB each (an export of them spans R2 parts), and a `security` person. */
async function largeSubject(number: string, count: number) {
  const space = await createSpace();
  const t0 = await moveClock(space, 0);
  const handle = phone(number);
  const texts = Array.from({ length: count }, (_, at) => `${`Message ${at} says: ${"all is well here ".repeat(47_000)}`.trim()}`);
  for (let at = 0; at < texts.length; at += 2) {
    await accept(
      space,
      texts.slice(at, at + 2).map((text, i) => say([handle], t0 - (30 - at - i) * MINUTE, text)),
    );
  }
  return { space, handle, texts, security: await personToken(space, ["security"]) };
}

/** The texts of an export's event lines, in the file's order. */
const eventTexts = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.record === "event").map((line) => (line.item as { content: { text: string } }).content.text);

describe("exports larger than one R2 part", () => {
  it("writes a file of several 5 MiB parts as one multipart object, whole and in order", async () => {
    // 14 messages of about 800 KB: 11 MB, three parts (5 MiB, 5 MiB and the rest).
    const { space, handle, texts, security } = await largeSubject("+15555550311", 14);
    const posted = ExportSchema.parse(await json(await postExport(space, { handle }, security)));
    await runAlarms(space);
    const done = await exportRecord(await getExport(space, posted.export_id, security), 200);
    expect(done.state).toBe("completed");
    expect(done.bytes).toBeGreaterThan(10 * 1024 * 1024);
    const { text, lines } = await download(done);
    expect(new TextEncoder().encode(text).byteLength).toBe(done.bytes);
    expect(eventTexts(lines)).toEqual(texts);
  });
});

describe("an export whose attempt was lost", () => {
  it("aborts the lost attempt's multipart upload before it starts again, and completes whole", async () => {
    // 8 messages of about 800 KB: more than one 5 MiB part.
    const { space, handle, texts, security } = await largeSubject("+15555550312", 8);
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.exportJobs.linesPerSlice = 1;
      instance.exportJobs.inlineMs = 0;
      // The object dies before its alarm writes the rest: slices are taken by hand below.
      instance.alarm = async () => undefined;
    });
    const started = await exportRecord(await postExport(space, { handle }, security), 202);
    const uploadOf = async () =>
      (
        await query<{ upload_id: string | null }>(space, "SELECT upload_id FROM exports WHERE export_id = ?", started.export_id)
      )[0]?.upload_id ?? null;
    let lost: string | null = null;
    for (let slice = 0; slice < 20 && lost === null; slice++) {
      await runInDurableObject(stub(space), (instance: SpaceObject) => instance.exportJobs.step(started.export_id));
      lost = await uploadOf();
    }
    expect(lost).not.toBeNull();
    await restartSpaceObject(space);
    await later(space, 5_000);
    await runAlarms(space);
    const done = await exportRecord(await getExport(space, started.export_id, security), 200);
    expect(done.state).toBe("completed");
    expect(eventTexts((await download(done)).lines)).toEqual(texts);
    // R2 knows the lost upload no more: a part for it is refused.
    const key = `spaces/${space.name}/exports/${started.export_id}`;
    await expect(env.FILES.resumeMultipartUpload(key, lost ?? "").uploadPart(9, "x")).rejects.toThrow();
  });
});

describe("exports that cannot finish", () => {
  it("is failed after its third attempt, with no link", async () => {
    const { space, security } = await seed();
    await runInDurableObject(stub(space), (instance: SpaceObject) => {
      instance.exportJobs.linesPerSlice = 1;
      instance.exportJobs.inlineMs = 0;
      instance.alarm = async () => undefined;
    });
    const started = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 202);
    // Two attempts were lost before this one (restarts, or R2 refusing a write).
    await query(space, "UPDATE exports SET attempts = 3 WHERE export_id = ?", started.export_id);
    await restartSpaceObject(space);
    await later(space, 5_000);
    const failed = await exportRecord(await getExport(space, started.export_id, security), 200);
    expect(failed.state).toBe("failed");
    expect(failed.download).toBeNull();
    expect(failed.completed_at).toBeNull();
    expect(await query(space, "SELECT key FROM timers WHERE kind = 'export.run'")).toEqual([]);
  });
});

describe("export download links (development): signed, bound to their export, expiring", () => {
  it("refuses an expired, a tampered and another export's token with problem documents; a fresh read gives a new link", async () => {
    const { space, security } = await seed();
    const first = await exportRecord(await postExport(space, { handle: phone(A_PHONE) }, security), 201);
    const second = await exportRecord(await postExport(space, { handle: phone(B_PHONE) }, security), 201);
    const url = first.download?.url.slice(ORIGIN.length) ?? "";
    const token = new URL(url, ORIGIN).searchParams.get("token") ?? "";
    // The link names a space, an export and an expiry: no personal data.
    expect(url).not.toContain(encodeURIComponent(A_PHONE));
    expect(url).toMatch(/^\/spaces\/[^/]+\/v1\/exports\/[0-9a-f-]{36}\/download\?token=\d+\.[A-Za-z0-9_-]{43}$/);

    const path = (exportId: string, given: string) => `/spaces/${space.name}/v1/exports/${exportId}/download?token=${given}`;
    const flipped = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.at(-1)}`;
    await expectProblem(await call("GET", path(first.export_id, flipped)), 401, "unauthenticated");
    const [expires, signature] = token.split(".");
    await expectProblem(
      await call("GET", path(first.export_id, `${Number(expires) + 3600}.${signature}`)),
      401,
      "unauthenticated",
    );
    await expectProblem(await call("GET", path(second.export_id, token)), 401, "unauthenticated");
    await expectProblem(await call("GET", path("not-an-export", token)), 401, "unauthenticated");
    await expectProblem(await call("GET", `/spaces/${space.name}/v1/exports/${first.export_id}/download`), 422, "invalid_input");

    await moveClock(space, 3_601_000);
    const expired = await expectProblem(await call("GET", url), 401, "unauthenticated");
    expect(expired.detail).toContain("expired");
    const again = await exportRecord(await getExport(space, first.export_id, security), 200);
    expect(again.download?.url).not.toBe(first.download?.url);
    expect(Date.parse(again.download?.expires_at ?? "")).toBeGreaterThan(Date.parse(first.download?.expires_at ?? ""));
    expect((await download(again)).lines.length).toBeGreaterThan(0);
  });
});

describe("exports: who may", () => {
  it("lets `security` and `admin` people export and read; refuses other roles and source keys with 403", async () => {
    const { space, security } = await seed();
    const body = { handle: phone(A_PHONE) };
    const made = await exportRecord(await postExport(space, body, security), 201);
    await exportRecord(await postExport(space, body, space.tenant.token), 201);
    await exportRecord(await getExport(space, made.export_id, space.tenant.token), 200);
    for (const roles of [["review"], ["integration"], ["analysis"], ["vendor"]]) {
      const token = await personToken(space, roles);
      await expectProblem(await postExport(space, body, token), 403, "forbidden");
      await expectProblem(await getExport(space, made.export_id, token), 403, "forbidden");
    }
    await expectProblem(await postExport(space, body, space.key), 403, "forbidden");
    await expectProblem(await getExport(space, made.export_id, space.key), 403, "forbidden");
    await expectProblem(await postExport(space, body, "cms_live_bogus"), 401, "unauthenticated");
  });
});

describe("exports in production without R2's settings", () => {
  it("answers 503 before writing anything: no record, no file, nothing a retry would write again", async () => {
    const space = await createSpace();
    const subject = phone("+15555550196");
    expect(await json(await batch(space, [message({ handles: [subject] })]), 200)).toMatchObject({ accepted: 1 });
    const token = await personToken(space, ["security"]);
    // Every secret a production deployment needs, but not R2's account and bucket (variables).
    const production = { ...env, ENVIRONMENT: "production", R2_ACCESS_KEY_ID: "key-id", R2_SECRET_ACCESS_KEY: "secret" };
    const request = new Request(`http://${space.name}.local.memory.localhost/v1/exports`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ handle: subject }),
    });
    const answer = await app.fetch(routedRequest(request, production), production);
    expect((await json<{ code: string }>(answer, 503)).code).toBe("unavailable");
    expect(await query(space, "SELECT export_id FROM exports")).toEqual([]);
    expect((await env.FILES.list({ prefix: `spaces/${space.name}/exports/` })).objects).toEqual([]);
  });
});
