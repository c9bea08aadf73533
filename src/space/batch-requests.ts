import type { PresentedCredential } from "../auth/credential";
import { POLICIES } from "../auth/policy";
import type { BatchAnswer } from "../contract/batch";
import { type BodyInput, parseJsonBody } from "../http/body";
import { type Outcome, Problem } from "../http/problem";
import { ingestBatch } from "./intake";
import { mediaCheckOf } from "./media/batch-media";
import type { SpaceRequests } from "./requests";

/** What `GET /v1/whoami` tells a caller about its own credential. */
export interface CallerView {
  space: string;
  principal:
    | { kind: "key"; key_id: string; source_id: string; scopes: string[]; mode: string }
    | { kind: "person"; person_id: string; roles: string[] };
}

/** `POST /v1/batch` and `GET /v1/whoami`: the routes of a source key writing into the space (docs/api/batch.md). */
export class BatchRequests {
  #space: SpaceRequests;
  /** Tells the compiler's pacing how long a batch held the object (`CompilePacing.wrote`). */
  #wrote: (started: number, ended: number) => void;

  constructor(space: SpaceRequests, wrote: (started: number, ended: number) => void) {
    this.#space = space;
    this.#wrote = wrote;
  }

  /**
   * A batch, stored in chunks (`RequestPacing` decides their size), each committed before the next:
   * its events reach the hot tier as each chunk commits, and requests waiting for the object go
   * between chunks.
   */
  ingestBatch(credential: PresentedCredential, body: BodyInput): Promise<Outcome<BatchAnswer>> {
    const space = this.#space;
    return space.admitted(
      credential,
      POLICIES.batch,
      async (caller, now) => {
        if (caller.principal.kind !== "key" || !caller.source) throw new Problem("forbidden", "this route needs a source key");
        const intakeCaller = {
          keyId: caller.principal.keyId,
          sourceId: caller.principal.sourceId,
          scopes: caller.principal.scopes,
          test: caller.principal.mode === "test",
          source: caller.source,
        };
        const config = space.replica().config.values;
        const started = performance.now();
        const parsed = parseJsonBody(body);
        const media = await mediaCheckOf(space.sql, space.env.FILES, space.spaceName(), parsed, space.now);
        const chunkItems = space.requestPacing.chunkItems(performance.now());
        const chunks = ingestBatch(space.intake, intakeCaller, parsed, now, config, chunkItems, media);
        for (let step = chunks.next(); ; step = chunks.next()) {
          if (step.done) {
            this.#wrote(started, performance.now());
            space.limits.eventsAccepted(step.value.accepted, now);
            return step.value;
          }
          // Committed: the next read from any channel sees these events in `live`.
          space.hot.apply(step.value.live);
          if (step.value.more) await scheduler.wait(0);
        }
      },
      "events",
    );
  }

  whoami(credential: PresentedCredential): Promise<Outcome<CallerView>> {
    const space = this.#space;
    return space.admitted(credential, POLICIES.whoami, ({ principal }) => {
      const name = space.spaceName();
      if (principal.kind === "key") {
        const { keyId, sourceId, scopes, mode } = principal;
        return { space: name, principal: { kind: "key", key_id: keyId, source_id: sourceId, scopes: [...scopes], mode } };
      }
      return { space: name, principal: { kind: "person", person_id: principal.personId, roles: [...principal.roles] } };
    });
  }
}
