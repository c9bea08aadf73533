import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { event, type Handle, identifyItem, personToken, query, undo } from "../support/identity";
import { runs } from "../support/property-runs";
import { batch, createSpace, json, type Space } from "../support/seed";

/**
 * Properties of identity resolution, run through the API against the object's real SQLite
 * (DESIGN 3.5): random sequences of events and identify items over a small pool of handles
 * (several spellings each) against a reference model of "first known handle" and "merge into
 * the oldest"; and merge followed by undo restoring every handle's and every event's profile
 * exactly. One space per property; each run writes its handles in a scope of its own, so runs
 * never meet.
 */

const RUNS = { assignment: 40, undo: 30, interleaved: 30 };

/** Eight handles, each with the spellings a client may send; `value` is the normalized one. */
const POOL: { type: string; value: string; spellings: string[]; scope?: string }[] = [
  { type: "phone_e164", value: "+15555550110", spellings: ["+15555550110", "+1 (555) 555-0110"] },
  { type: "phone_e164", value: "+15555550111", spellings: ["0015555550111", "+1.555.555.0111"] },
  { type: "phone_e164", value: "+442079460958", spellings: ["+44 (0)20 7946 0958", "0044 20 7946 0958"] },
  { type: "email", value: "ana@example.com", spellings: ["ana@example.com", " ANA@Example.com "] },
  { type: "email", value: "bo@example.com", spellings: ["Bo@example.com", "bo@EXAMPLE.com"] },
  { type: "system_id", value: "crm-1", spellings: ["crm-1"] },
  { type: "system_id", value: "crm-1", spellings: ["crm-1"], scope: "erp" },
  { type: "system_id", value: "CRM-1", spellings: ["CRM-1"] },
];

type Ref = { handle: number; spelling: number };
type Op = { type: "event" | "identify"; refs: Ref[]; newBatch: boolean } | { type: "undo"; pick: number };

const refArb: fc.Arbitrary<Ref> = fc.record({ handle: fc.nat(POOL.length - 1), spelling: fc.nat(1) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    type: fc.constant("event" as const),
    refs: fc.array(refArb, { minLength: 1, maxLength: 3 }),
    newBatch: fc.boolean(),
  }),
  fc.record({
    type: fc.constant("identify" as const),
    refs: fc.array(refArb, { minLength: 2, maxLength: 3 }),
    newBatch: fc.boolean(),
  }),
);
/**
 * First some handles of the pool, each alone in an event of its own in a random order (so that
 * there are many profiles, of every age order), then the random ops.
 */
const withProfiles = (ops: fc.Arbitrary<Op[]>): fc.Arbitrary<Op[]> =>
  fc
    .tuple(
      fc.shuffledSubarray(
        POOL.map((_, index) => index),
        { minLength: 0 },
      ),
      ops,
    )
    .map(([first, rest]) => [
      ...first.map((handle): Op => ({ type: "event", refs: [{ handle, spelling: handle }], newBatch: handle % 2 === 0 })),
      ...rest,
    ]);
const opsArb = withProfiles(fc.array(opArb, { minLength: 1, maxLength: 12 }));
/** Events and identify items with undos of earlier merges (any of them, undone or not) in between. */
const opsWithUndoArb = withProfiles(
  fc.array(
    fc.oneof(
      { arbitrary: opArb, weight: 5 },
      { arbitrary: fc.record({ type: fc.constant("undo" as const), pick: fc.nat(5) }), weight: 1 },
    ),
    { minLength: 1, maxLength: 20, size: "medium" },
  ),
);

/** How often the case that matters most came up: undoing a merge whose absorbed side had merges of its own. */
const coverage = { nestedInIdentify: 0 };

let runCounter = 0;
/** A run's own namespace: every handle it writes has a scope starting with it. */
const newRun = () => `run${++runCounter}x${Math.random().toString(36).slice(2, 6)}.`;

const scopeOf = (run: string, index: number) => `${run}${POOL[index]?.scope ?? ""}`;
/** The handle a run sends for a ref, spelled as the ref says. */
function sent(run: string, ref: Ref): Handle {
  const entry = POOL[ref.handle];
  if (!entry) throw new Error("no such handle");
  return {
    type: entry.type,
    value: entry.spellings[ref.spelling % entry.spellings.length] ?? entry.value,
    scope: scopeOf(run, ref.handle),
  };
}
/** The handle as the server stores it, named the way the model names it. */
const storedKey = (type: string, scope: string, value: string) => `${type}|${scope}|${value}`;
const poolKey = (run: string, index: number) => {
  const entry = POOL[index];
  return storedKey(entry?.type ?? "", scopeOf(run, index), entry?.value ?? "");
};

/**
 * The reference: profiles numbered by age; an event belongs to its first known handle's profile
 * (else a new one) and its unknown handles join it; an identify merges the roots of its known
 * handles into the oldest (else makes a new one) and its unknown handles join that.
 */
class Model {
  parent: number[] = [];
  handleProfile = new Map<string, number>();
  /** Each event item's profile, by idempotency key. */
  eventProfile = new Map<string, number>();

  root(profile: number): number {
    let at = profile;
    while (this.parent[at] !== at) at = this.parent[at] ?? at;
    return at;
  }

  #create(): number {
    this.parent.push(this.parent.length);
    return this.parent.length - 1;
  }

  #join(keys: readonly string[], profile: number): void {
    for (const key of keys) if (!this.handleProfile.has(key)) this.handleProfile.set(key, profile);
  }

  event(idempotencyKey: string, keys: readonly string[]): void {
    const known = keys.map((key) => this.handleProfile.get(key)).find((profile) => profile !== undefined);
    const profile = known ?? this.#create();
    this.#join(keys, profile);
    this.eventProfile.set(idempotencyKey, profile);
  }

  identify(idempotencyKey: string, keys: readonly string[]): void {
    const roots = new Set<number>();
    for (const key of keys) {
      const profile = this.handleProfile.get(key);
      if (profile !== undefined) roots.add(this.root(profile));
    }
    const survivor = roots.size === 0 ? this.#create() : Math.min(...roots);
    // One merge per younger root, in the order of their age.
    const absorbed = [...roots].filter((root) => root !== survivor).sort((a, b) => a - b);
    absorbed.forEach((root, index) => {
      this.parent[root] = survivor;
      this.merges.push({ item: idempotencyKey, index, survivor, absorbed: root, undone: false });
    });
    this.#join(keys, survivor);
  }

  /** Every merge made, oldest first: the identify item that made it and its place among that item's merges. */
  merges: { item: string; index: number; survivor: number; absorbed: number; undone: boolean }[] = [];

  /** Undo splits the absorbed profile (and all below it) off again; an undone merge stays as it is. */
  undo(merge: Model["merges"][number]): void {
    if (merge.undone) return;
    merge.undone = true;
    if (this.parent[merge.absorbed] === merge.survivor) this.parent[merge.absorbed] = merge.absorbed;
  }
}

interface Answer {
  accepted: number;
  duplicates: number;
  errors: unknown[];
}

/**
 * Sends a run's ops as items in order (increasing occurred_at), cut into batches where an op
 * asks; an undo sends what is pending, then undoes the merge it picks through the API (a person
 * with role review). Applies everything to the model.
 */
async function play(space: Space, run: string, ops: readonly Op[], model: Model, reviewer = ""): Promise<void> {
  let pending: Record<string, unknown>[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const answer = await json<Answer>(await batch(space, pending), 200);
    expect(answer).toEqual({ accepted: pending.length, duplicates: 0, errors: [] });
    pending = [];
  };
  for (const [index, op] of ops.entries()) {
    if (op.type === "undo") {
      // Counted from the newest, so recent merges (of larger clusters) are undone more often.
      const merge = model.merges[model.merges.length - 1 - (op.pick % Math.max(model.merges.length, 1))];
      if (!merge) continue;
      await flush();
      const ids = await query<{ merge_id: string }>(
        space,
        `SELECT m.merge_id FROM merges m JOIN items i ON i.item_id = m.item_id
           JOIN profiles p ON p.profile_id = m.absorbed_id WHERE i.idempotency_key = ? ORDER BY p.seq`,
        merge.item,
      );
      expect((await undo(space, ids[merge.index]?.merge_id ?? "", reviewer)).undone).toBe(true);
      model.undo(merge);
      continue;
    }
    const handles = op.refs.map((ref) => sent(run, ref));
    const keys = op.refs.map((ref) => poolKey(run, ref.handle));
    const idempotencyKey = `${run}op${index}`;
    const occurred_at = new Date(Date.now() - 3_600_000 + index * 1000).toISOString();
    if (op.newBatch) await flush();
    if (op.type === "event") {
      pending.push(event(handles, { idempotency_key: idempotencyKey, occurred_at }));
      model.event(idempotencyKey, keys);
    } else {
      pending.push(identifyItem(handles, { idempotency_key: idempotencyKey, occurred_at }));
      model.identify(idempotencyKey, keys);
    }
  }
  await flush();
}

interface Assignment {
  /** Handle (`type|scope|value`) → the profile it joined and the root it resolves to. */
  handles: Map<string, { profile: string; root: string }>;
  /** Event item (idempotency key) → the profile it was stored with and the root it resolves to. */
  events: Map<string, { profile: string; root: string }>;
}

/** What a run's handles and event items resolve to now, read from SQLite. */
async function assignmentOf(space: Space, run: string): Promise<Assignment> {
  const handles = await query<{ type: string; scope: string; value: string; profile_id: string; root_id: string }>(
    space,
    `SELECT h.type, h.scope, h.value, h.profile_id, p.root_id FROM handles h
       JOIN profiles p ON p.profile_id = h.profile_id WHERE substr(h.scope, 1, length(?)) = ?`,
    run,
    run,
  );
  const events = await query<{ idempotency_key: string; profile_id: string; root_id: string }>(
    space,
    `SELECT i.idempotency_key, i.profile_id, p.root_id FROM items i
       JOIN profiles p ON p.profile_id = i.profile_id
     WHERE i.type = 'event' AND substr(i.idempotency_key, 1, length(?)) = ?`,
    run,
    run,
  );
  return {
    handles: new Map(
      handles.map((row) => [storedKey(row.type, row.scope, row.value), { profile: row.profile_id, root: row.root_id }]),
    ),
    events: new Map(events.map((row) => [row.idempotency_key, { profile: row.profile_id, root: row.root_id }])),
  };
}

/**
 * What must hold for the whole space whatever was sent: every handle's profile exists and
 * resolves, through `root_id`, to a live root (its own root, not merged); every profile's chain
 * of `merged_into` ends at its `root_id`; every event item has a profile that exists.
 */
async function expectSpaceInvariants(space: Space): Promise<void> {
  const profiles = await query<{ profile_id: string; merged_into: string | null; root_id: string }>(
    space,
    "SELECT profile_id, merged_into, root_id FROM profiles",
  );
  const byId = new Map(profiles.map((row) => [row.profile_id, row]));
  for (const profile of profiles) {
    const root = byId.get(profile.root_id);
    expect(root, `root of ${profile.profile_id}`).toBeDefined();
    expect(root?.root_id).toBe(root?.profile_id);
    expect(root?.merged_into).toBeNull();
    let at = profile;
    for (let steps = 0; at.merged_into !== null; steps++) {
      expect(steps).toBeLessThan(profiles.length);
      const next = byId.get(at.merged_into);
      expect(next, `merged_into of ${at.profile_id}`).toBeDefined();
      if (!next) break;
      at = next;
    }
    expect(at.profile_id).toBe(profile.root_id);
  }
  const handles = await query<{ handle_id: string; profile_id: string }>(space, "SELECT handle_id, profile_id FROM handles");
  for (const handle of handles) {
    const root = byId.get(byId.get(handle.profile_id)?.root_id ?? "");
    expect(root, `live root of handle ${handle.handle_id}`).toBeDefined();
    expect(root?.root_id).toBe(root?.profile_id);
  }
  const orphans = await query(
    space,
    "SELECT i.item_id FROM items i LEFT JOIN profiles p ON p.profile_id = i.profile_id WHERE i.type = 'event' AND p.profile_id IS NULL",
  );
  expect(orphans).toEqual([]);
}

/**
 * The server's assignment is the model's, exactly: each model profile is the server profile its
 * first handle joined; every handle joined the profile the model says and resolves to that
 * profile's root in the model; every event item likewise.
 */
function expectModel(model: Model, actual: Assignment): Map<number, string> {
  expect(new Set(actual.handles.keys())).toEqual(new Set(model.handleProfile.keys()));
  const serverProfile = new Map<number, string>();
  for (const [key, profile] of model.handleProfile) {
    const stored = actual.handles.get(key)?.profile ?? "";
    const known = serverProfile.get(profile);
    if (known === undefined) serverProfile.set(profile, stored);
    else expect(stored, `profile of ${key}`).toBe(known);
  }
  expect(new Set(serverProfile.values()).size).toBe(serverProfile.size);
  for (const [key, profile] of model.handleProfile) {
    expect(actual.handles.get(key)?.root, `root of ${key}`).toBe(serverProfile.get(model.root(profile)));
  }
  expect(actual.events.size).toBe(model.eventProfile.size);
  for (const [key, profile] of model.eventProfile) {
    expect(actual.events.get(key), `event ${key}`).toEqual({
      profile: serverProfile.get(profile),
      root: serverProfile.get(model.root(profile)),
    });
  }
  return serverProfile;
}

describe("identity properties: handles and events resolve as the model says, and undo restores exactly", () => {
  let space: Space;
  let reviewer: string;

  beforeAll(async () => {
    space = await createSpace();
    reviewer = await personToken(space, ["review"]);
  }, 60_000);

  it("any sequence of events and identify items leaves every handle in exactly one live profile, every event with a profile, as the model assigns them", async () => {
    let done = 0;
    await fc.assert(
      fc.asyncProperty(opsArb, async (ops) => {
        done++;
        const run = newRun();
        const model = new Model();
        await play(space, run, ops, model);
        expectModel(model, await assignmentOf(space, run));
      }),
      { numRuns: runs(RUNS.assignment) },
    );

    await expectSpaceInvariants(space);
    expect(done).toBeGreaterThanOrEqual(RUNS.assignment);
  });

  it("an identify that merges two or more profiles, undone merge by merge, leaves every handle and event where it was", async () => {
    let done = 0;
    const pickArb = fc.record({
      roots: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }),
      handles: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      nested: fc.boolean(),
      withUnknown: fc.boolean(),
      reverse: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(opsWithUndoArb, pickArb, async (ops, pick) => {
        done++;
        const run = newRun();
        const model = new Model();
        // The random state (earlier merges, some undone), plus three profiles of handles outside
        // the pool (at least two roots); with `nested`, the two youngest of them merged, so that
        // there is a cluster younger than every other root.
        await play(space, run, ops, model, reviewer);
        const extras = ["extra-1", "extra-2", "extra-3"].map((value) => ({
          handle: { type: "system_id", value, scope: run },
          key: storedKey("system_id", run, value),
          idempotencyKey: `${run}${value}`,
        }));
        const occurred_at = new Date().toISOString();
        const items = extras.map((extra) => event([extra.handle], { idempotency_key: extra.idempotencyKey, occurred_at }));
        for (const extra of extras) model.event(extra.idempotencyKey, [extra.key]);
        if (pick.nested) {
          items.push(identifyItem([extras[1]?.handle, extras[2]?.handle] as Handle[], { idempotency_key: `${run}pair` }));
          model.identify(`${run}pair`, [extras[1]?.key ?? "", extras[2]?.key ?? ""]);
        }
        const answer = await json<Answer>(await batch(space, items), 200);
        expect(answer.accepted).toBe(items.length);

        const before = await assignmentOf(space, run);
        const serverProfile = expectModel(model, before);

        // Choose two or more roots (model profiles, oldest first) and one handle of each. With
        // `nested`, a root that has profiles merged into it and an older root come first, so that
        // the identify absorbs a whole cluster.
        const keysOf = new Map<number, string[]>();
        for (const [key, profile] of [...model.handleProfile].sort(([a], [b]) => a.localeCompare(b))) {
          const root = model.root(profile);
          keysOf.set(root, [...(keysOf.get(root) ?? []), key]);
        }
        const roots = [...keysOf.keys()].sort((a, b) => a - b);
        const isCluster = (root: number) => model.parent.some((parent, profile) => parent === root && profile !== root);
        const chosen: number[] = [];
        const cluster = roots.find((root, index) => index > 0 && isCluster(root));
        if (pick.nested && cluster !== undefined) {
          chosen.push(cluster, roots[(pick.roots[0] ?? 0) % roots.indexOf(cluster)] ?? 0);
        }
        for (const index of pick.roots) {
          const root = roots[index % roots.length] ?? 0;
          if (!chosen.includes(root)) chosen.push(root);
        }
        for (const root of roots) if (chosen.length < 2 && !chosen.includes(root)) chosen.push(root);
        const survivor = Math.min(...chosen);
        if (chosen.some((root) => root !== survivor && isCluster(root))) coverage.nestedInIdentify++;
        if (pick.nested) expect(chosen.some((root) => root !== survivor && isCluster(root))).toBe(true);

        const handles: Handle[] = chosen.map((root, index) => {
          const keys = keysOf.get(root) ?? [];
          const [type = "", scope = "", value = ""] = (keys[(pick.handles[index] ?? 0) % keys.length] ?? "").split("|");
          return { type, scope, value };
        });
        const unknown: Handle = { type: "system_id", value: "joins-the-survivor", scope: run };
        if (pick.withUnknown) handles.push(unknown);

        const identifyKey = `${run}merge`;
        await json(await batch(space, [identifyItem(handles, { idempotency_key: identifyKey })]), 200);
        const merged = await assignmentOf(space, run);
        for (const handle of handles) {
          expect(merged.handles.get(storedKey(handle.type, handle.scope ?? "", handle.value))?.root).toBe(
            serverProfile.get(survivor),
          );
        }

        const merges = await query<{ merge_id: string; survivor_id: string; absorbed_id: string }>(
          space,
          "SELECT m.merge_id, m.survivor_id, m.absorbed_id FROM merges m JOIN items i ON i.item_id = m.item_id WHERE i.idempotency_key = ? ORDER BY m.merge_id",
          identifyKey,
        );
        expect(merges.map((merge) => merge.survivor_id)).toEqual(chosen.slice(1).map(() => serverProfile.get(survivor)));
        expect(new Set(merges.map((merge) => merge.absorbed_id))).toEqual(
          new Set(chosen.filter((root) => root !== survivor).map((root) => serverProfile.get(root))),
        );
        if (pick.reverse) merges.reverse();
        for (const merge of merges) expect((await undo(space, merge.merge_id, reviewer)).undone).toBe(true);

        const after = await assignmentOf(space, run);
        expect(after.events).toEqual(before.events);
        for (const [key, assigned] of before.handles) expect(after.handles.get(key), key).toEqual(assigned);
        // The only handle that is new is the identify's unknown one, and it stays with the survivor (the oldest root).
        expect(after.handles.size).toBe(before.handles.size + (pick.withUnknown ? 1 : 0));
        if (pick.withUnknown) {
          expect(after.handles.get(storedKey(unknown.type, run, unknown.value))?.root).toBe(serverProfile.get(survivor));
        }
      }),
      { numRuns: runs(RUNS.undo) },
    );

    await expectSpaceInvariants(space);
    expect(done).toBeGreaterThanOrEqual(RUNS.undo);
    expect(coverage.nestedInIdentify).toBeGreaterThan(0);
  });

  it("undos of earlier merges in between, in any order and repeated, keep the assignment the model's", async () => {
    let done = 0;
    let undos = 0;
    await fc.assert(
      fc.asyncProperty(opsWithUndoArb, async (ops) => {
        done++;
        const run = newRun();
        const model = new Model();
        await play(space, run, ops, model, reviewer);
        undos += model.merges.filter((merge) => merge.undone).length;
        expectModel(model, await assignmentOf(space, run));
      }),
      { numRuns: runs(RUNS.interleaved) },
    );

    await expectSpaceInvariants(space);
    expect(done).toBeGreaterThanOrEqual(RUNS.interleaved);
    expect(undos).toBeGreaterThan(0);
  });
});
