// The benchmark's "minimal path" (DESIGN §6): what `POST /v1/batch` costs with nothing but the
// runtime and storage. The Worker parses the batch JSON and makes ONE RPC to a SQLite-backed
// Durable Object, which inserts the items raw into the service's own `items` table (the SQL of
// migrations/space/0000_init.sql: same table, same indexes) in one `transactionSync`, with the
// same kind of column values as src/space/intake.ts. No auth, no validation, no ORM.
//
// It also serves the "storage limit" (`/storage/stage` + `/storage/drain`), see `drain()`, and
// an empty RPC (`/noop`) so the driver can subtract the cost of one request.
import { DurableObject } from "cloudflare:workers";
import migrationSql from "../../../migrations/space/0000_init.sql";
import { uuidv7 } from "../../../src/ids";

interface Env {
  SINK: DurableObjectNamespace<MinimalSink>;
}

type Item = Record<string, unknown> & { idempotency_key: string; type: string };
type Row = (string | number | null)[];

const INSERT = `INSERT INTO items (item_id, idempotency_key, type, kind, channel, conversation_id, task_id, source_id,
  key_id, test, occurred_at, claimed_occurred_at, clock_corrected, received_at, body)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

export interface LoopTiming {
  inserted: number;
  /** `performance.now()` and `Date.now()` deltas around the loop, as the object saw them. */
  performanceMs: number;
  dateMs: number;
}

export class MinimalSink extends DurableObject<Env> {
  readonly #sourceId = crypto.randomUUID();
  readonly #keyId = crypto.randomUUID();
  #staged: Row[][] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    const exists = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'items'").toArray().length > 0;
    if (!exists) {
      for (const statement of migrationSql.split("--> statement-breakpoint")) {
        if (statement.trim()) sql.exec(statement);
      }
    }
  }

  /** One batch: the minimal counterpart of SpaceObject.ingestBatch. */
  async ingest(items: Item[]): Promise<{ accepted: number; duplicates: number; errors: never[] }> {
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    let accepted = 0;
    this.ctx.storage.transactionSync(() => {
      for (const item of items) accepted += sql.exec(INSERT, ...this.#row(item, now)).rowsWritten > 0 ? 1 : 0;
    });
    return { accepted, duplicates: items.length - accepted, errors: [] };
  }

  /** Builds the rows of `reps` copies of a batch (fresh keys each), kept in memory for `drain()`. */
  async stage(items: Item[], reps: number, tag: string): Promise<number> {
    const now = Date.now();
    this.#staged = [];
    for (let rep = 0; rep < reps; rep++) {
      this.#staged.push(
        items.map((item) => this.#row({ ...item, idempotency_key: `${item.idempotency_key}-${tag}-${rep}` }, now)),
      );
    }
    return reps * items.length;
  }

  /**
   * The storage limit: only the insert loop over the staged rows, one transaction per batch as
   * on the real path; the rows are committed once, after the call. The driver times this call
   * from outside (storageLimit() in run.mjs); the clock deltas returned here are shown beside.
   */
  async drain(): Promise<LoopTiming> {
    const sql = this.ctx.storage.sql;
    const perf0 = performance.now();
    const date0 = Date.now();
    let inserted = 0;
    for (const batch of this.#staged) {
      this.ctx.storage.transactionSync(() => {
        for (const row of batch) inserted += sql.exec(INSERT, ...row).rowsWritten > 0 ? 1 : 0;
      });
    }
    this.#staged = [];
    return { inserted, performanceMs: performance.now() - perf0, dateMs: Date.now() - date0 };
  }

  async noop(): Promise<number> {
    return 0;
  }

  #row(item: Item, now: number): Row {
    const occurredAt = typeof item.occurred_at === "string" ? Date.parse(item.occurred_at) : now;
    return [
      uuidv7(now),
      item.idempotency_key,
      item.type,
      typeof item.kind === "string" ? item.kind : null,
      typeof item.channel === "string" ? item.channel : null,
      typeof item.conversation_id === "string" ? item.conversation_id : null,
      typeof item.task_id === "string" ? item.task_id : null,
      this.#sourceId,
      this.#keyId,
      0,
      occurredAt,
      null,
      0,
      now,
      JSON.stringify(item),
    ];
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const sink = env.SINK.get(env.SINK.idFromName("bench"));
    if (request.method === "POST" && url.pathname === "/v1/batch") {
      const body = JSON.parse(await request.text()) as { items: Item[] };
      return Response.json(await sink.ingest(body.items));
    }
    if (request.method === "POST" && url.pathname === "/storage/stage") {
      const body = JSON.parse(await request.text()) as { items: Item[] };
      const reps = Number(url.searchParams.get("reps") ?? 1);
      return Response.json({ staged: await sink.stage(body.items, reps, url.searchParams.get("tag") ?? "s") });
    }
    if (request.method === "POST" && url.pathname === "/storage/drain") return Response.json(await sink.drain());
    if (url.pathname === "/noop") return Response.json({ noop: await sink.noop() });
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
