/** SPEC's `context_stamp`: the etag of the context put in the prompt, and when it went in. */
export interface ContextStamp {
  etag: string;
  injected_at: string;
}

/**
 * The stamp of a context answer (a full context or `{unchanged: true, etag}`), taken when the
 * context goes into the prompt: call it then, and put it on the agent's turn (its messages).
 * An agent reads the context again for every turn, so each turn carries a fresh stamp.
 */
export function stampFrom(answer: { etag: string }, at: number = Date.now()): ContextStamp {
  return { etag: answer.etag, injected_at: new Date(at).toISOString() };
}
