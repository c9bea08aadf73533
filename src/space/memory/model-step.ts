import { queueCompile } from "./compiler";
import { MODEL_CONCURRENCY, type SummaryJob, storeSummary, takeSummaries } from "./model-summaries";
import { type SummaryModel, summarizeSession } from "./model-summarizer";

/** A model that summarizes a space's sessions: the binding, the model named in config, its bounds. */
export interface ModelSettings {
  binding: SummaryModel;
  model: string;
  timeoutMs: number;
  dailyLimit: number;
}

/** What the step needs of its object. */
export interface StepHost {
  sql: SqlStorage;
  transaction<T>(work: () => T): T;
  /** Keeps the object alive while a call is out (DO `ctx.waitUntil`). */
  waitUntil(promise: Promise<unknown>): void;
  now(): number;
  /** Called after a call's outcome is written: sets the alarm for the timers it set. */
  written(): Promise<void>;
}

/**
 * The background step of model summaries (`memory.summarize` timer): starts calls for due
 * sessions and returns at once, so neither the alarm nor the compile ever waits for a model.
 * Each call settles into a stored digest and a compile of its session, or a counted failure
 * (its reason logged, never text). Calls in flight are counted here, in memory: a call lost
 * with the object is not retried (its version was noted as asked).
 */
export class ModelStep {
  #inFlight = 0;

  start(host: StepHost, settings: ModelSettings, now: number): void {
    const slots = MODEL_CONCURRENCY - this.#inFlight;
    const jobs = host.transaction(() => takeSummaries(host.sql, now, { slots, dailyLimit: settings.dailyLimit }));
    for (const job of jobs) {
      this.#inFlight++;
      host.waitUntil(this.#call(host, settings, job));
    }
  }

  async #call(host: StepHost, settings: ModelSettings, job: SummaryJob): Promise<void> {
    let outcome: Awaited<ReturnType<typeof summarizeSession>>;
    try {
      outcome = await summarizeSession(settings.binding, settings.model, job.events, settings.timeoutMs);
    } finally {
      this.#inFlight--;
    }
    const now = host.now();
    host.transaction(() => {
      const stored = storeSummary(host.sql, job, outcome, settings.model, now, settings.dailyLimit);
      if (stored) queueCompile(host.sql, new Map([[job.sessionId, { profileId: job.profileId, events: 0 }]]), now);
    });
    if (!outcome.ok)
      console.warn(JSON.stringify({ message: "model summary failed", reason: outcome.reason, session_id: job.sessionId }));
    await host.written();
  }
}
