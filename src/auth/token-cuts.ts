import type { PersonActor } from "./person-token";

/**
 * A person token ended before its expiry (docs/api/control.md): one token at logout, or every
 * token of a person issued below a generation when the person was removed or their roles changed.
 * The ControlObject keeps cuts and pushes them to the tenant's spaces with their replica, so a
 * space refuses a cut token on the next request without asking the control plane.
 */
export interface TokenCut {
  personId: string;
  /** The one token cut (logout); null cuts every token of the person below `generation`. */
  tokenId: string | null;
  generation: number;
  /** When every token the cut can reach has expired anyway (then the cut is dropped). */
  until: number;
}

/** The cuts a space holds, indexed for the check every person request makes. */
export class TokenCuts {
  #generations = new Map<string, number>();
  #tokens = new Set<string>();

  constructor(cuts: Iterable<TokenCut>) {
    for (const cut of cuts) {
      if (cut.tokenId !== null) this.#tokens.add(cut.tokenId);
      else this.#generations.set(cut.personId, Math.max(cut.generation, this.#generations.get(cut.personId) ?? 0));
    }
  }

  /** Whether the actor's token was cut (an expired cut only reaches tokens that expired with it). */
  reaches(actor: PersonActor): boolean {
    return this.#tokens.has(actor.token.id) || actor.token.generation < (this.#generations.get(actor.personId) ?? 0);
  }
}
