import { type ContextUseQuery, type ContextUseReport, DEFAULT_REPORT_DAYS, MAX_REPORT_DAYS } from "../../contract/measurement";
import { Problem } from "../../http/problem";
import { supersedeServedContexts, writeServedContexts } from "./served-contexts";

/**
 * Context-use measurement: whether agents had the customer's memory in the prompt when they
 * spoke. Every agent turn (a `message` by an `ai_agent` or `human_agent`) counts once, at intake,
 * for the UTC day of its `occurred_at` and its source, by what its `context_stamp` says
 * (`context_uses`, one row per day and source).
 */

export type ContextUse = "current" | "late" | "unknown" | "none";

/** A turn's `context_stamp`: the etag put in the prompt, and when (ms). */
export interface Stamp {
  etag: string;
  injectedAt: number;
}

/** What the space knows of a stamped etag: the root (now) of the profile it was answered for, and when it was superseded. */
export interface Served {
  root: string;
  supersededAt: number | null;
}

/**
 * How a turn of the profile whose root is `root` used its context. `late` when the profile had
 * received items by `injected_at` that the stamped context did not hold (the supersession at or
 * before the injection); an etag answered for another profile is as unknown as one never answered.
 */
export function classify(stamp: Stamp | null, served: Served | null, root: string): ContextUse {
  if (stamp === null) return "none";
  if (served === null || served.root !== root) return "unknown";
  if (served.supersededAt !== null && served.supersededAt <= stamp.injectedAt) return "late";
  return "current";
}

type Counts = Record<ContextUse, number>;

type TurnRow = {
  source_id: string;
  occurred_at: number;
  root: string;
  etag: string | null;
  injected_at: string | null;
  served_root: string | null;
  superseded_at: number | null;
};

/** An agent turn a batch stored: who wrote it, when, about whom, and its `context_stamp`. */
export interface AgentTurn {
  sourceId: string;
  occurredAt: number;
  profileId: string;
  stamp: { etag: string; injected_at: string } | null;
}

/**
 * The intake hook, inside the batch's transaction once its items are written: counts the batch's
 * agent turns, then marks superseded the served contexts of every profile it wrote to. The turns
 * are judged before their own batch supersedes anything: an agent reply sent in one batch with
 * the customer message it answers had that message in front of it, not in the service, so it
 * cannot have read a context holding it. Items of `test` keys are not turns (like coverage and
 * insights: the caller leaves them out) but do supersede: they are in the context.
 *
 * A batch stored in chunks calls it once a chunk, with its turns; `written`, the profiles the
 * whole batch stored items for, comes with the last chunk (empty before), so that no turn of the
 * batch is judged after the batch superseded anything.
 */
export function measureBatch(sql: SqlStorage, turns: readonly AgentTurn[], written: ReadonlySet<string>, now: number): void {
  writeServedContexts(sql);
  countAgentTurns(sql, turns);
  supersedeServedContexts(sql, written, now);
}

/** Whether an item is an agent turn (a message by an AI or human agent). */
export const isAgentTurn = (item: { type: string; kind?: string; speaker?: { role: string } }) =>
  item.type === "event" && item.kind === "message" && (item.speaker?.role === "ai_agent" || item.speaker?.role === "human_agent");

function countAgentTurns(sql: SqlStorage, turns: readonly AgentTurn[]): void {
  if (turns.length === 0) return;
  // By source, then by day number: a batch's hundreds of turns make no date string or key each.
  const counts = new Map<string, Map<number, Counts>>();
  const count = (sourceId: string, occurredAt: number, use: ContextUse) => {
    const day = Math.floor(occurredAt / DAY_MS);
    let days = counts.get(sourceId);
    if (!days) {
      days = new Map();
      counts.set(sourceId, days);
    }
    let entry = days.get(day);
    if (!entry) {
      entry = { current: 0, late: 0, unknown: 0, none: 0 };
      days.set(day, entry);
    }
    entry[use]++;
  };
  // An unstamped turn is `none` whatever the space knows: only stamped ones are looked up.
  const stamped: AgentTurn[] = [];
  for (const turn of turns) {
    if (turn.stamp === null) count(turn.sourceId, turn.occurredAt, classify(null, null, ""));
    else stamped.push(turn);
  }
  // The turns come from the batch as parsed, not from the stored bodies: no JSON read back.
  const looked =
    stamped.length === 0
      ? []
      : sql
          .exec<TurnRow>(
            `SELECT turn.value ->> 0 AS source_id, turn.value ->> 1 AS occurred_at, author.root_id AS root,
                    turn.value ->> 3 AS etag, turn.value ->> 4 AS injected_at,
                    owner.root_id AS served_root, served.superseded_at
             FROM json_each(?) turn
             JOIN profiles author ON author.profile_id = turn.value ->> 2
             LEFT JOIN served_contexts served ON served.etag = turn.value ->> 3
             LEFT JOIN profiles owner ON owner.profile_id = served.profile_id`,
            JSON.stringify(
              stamped.map((turn) => [turn.sourceId, turn.occurredAt, turn.profileId, turn.stamp?.etag, turn.stamp?.injected_at]),
            ),
          )
          .toArray();
  for (const row of looked) {
    const stamp =
      row.etag === null || row.injected_at === null ? null : { etag: row.etag, injectedAt: Date.parse(row.injected_at) };
    const served = row.served_root === null ? null : { root: row.served_root, supersededAt: row.superseded_at };
    count(row.source_id, row.occurred_at, classify(stamp, served, row.root));
  }
  const uses = [...counts].flatMap(([source_id, days]) =>
    [...days].map(([day, counted]) => ({ day: dayOf(day * DAY_MS), source_id, ...counted })),
  );
  if (uses.length === 0) return;
  // The upsert's SELECT needs its WHERE: without one SQLite reads `ON CONFLICT` as a join's `ON`.
  sql.exec(
    `INSERT INTO context_uses (day, source_id, current, late, unknown, none)
     SELECT value ->> 'day', value ->> 'source_id', value ->> 'current', value ->> 'late', value ->> 'unknown', value ->> 'none'
     FROM json_each(?) WHERE true
     ON CONFLICT (day, source_id) DO UPDATE SET current = current + excluded.current, late = late + excluded.late,
       unknown = unknown + excluded.unknown, none = none + excluded.none`,
    JSON.stringify(uses),
  );
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
/** The first day a date of four digits can name: a default `from` never goes before it. */
const FIRST_DAY = dayStart("0000-01-01");

/**
 * `GET /v1/measurement/context-use`: per UTC day and source in `[from, to]`, by day then source.
 * `to` defaults to today at the object's clock, `from` to 29 days before `to`; a range reversed
 * or longer than 90 days is `422`.
 */
export function contextUseReport(sql: SqlStorage, query: ContextUseQuery, now: number): ContextUseReport {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? dayOf(Math.max(FIRST_DAY, dayStart(to) - (DEFAULT_REPORT_DAYS - 1) * DAY_MS));
  if (from > to) throw new Problem("invalid_input", "query: from_after_to");
  if ((dayStart(to) - dayStart(from)) / DAY_MS + 1 > MAX_REPORT_DAYS) {
    throw new Problem("invalid_input", `query: range_over_${MAX_REPORT_DAYS}_days`);
  }
  const rows = sql
    .exec<{ day: string; source_id: string; current: number; late: number; unknown: number; none: number }>(
      `SELECT day, source_id, current, late, unknown, none FROM context_uses
       WHERE day >= ? AND day <= ? AND (? IS NULL OR source_id = ?) ORDER BY day, source_id`,
      from,
      to,
      query.source_id ?? null,
      query.source_id ?? null,
    )
    .toArray();
  return {
    from,
    to,
    days: rows.map((row) => ({ ...row, agent_turns: row.current + row.late + row.unknown + row.none })),
  };
}
