/**
 * SPEC's error catalog, the one place where a code meets its status and title.
 * Anything thrown that is not a Problem is a bug and is answered 500 internal_error.
 */
export const CATALOG = {
  invalid_input: { status: 422, title: "Invalid input" },
  verification_not_allowed: { status: 422, title: "Verification not allowed" },
  about_without_link: { status: 422, title: "About without link" },
  unauthenticated: { status: 401, title: "Unauthenticated" },
  forbidden: { status: 403, title: "Forbidden" },
  scope_missing: { status: 403, title: "Scope missing" },
  operation_not_allowed: { status: 403, title: "Operation not allowed" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  wrong_cell: { status: 421, title: "Wrong cell" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal_error: { status: 500, title: "Internal error" },
  unavailable: { status: 503, title: "Unavailable" },
} as const;

export type ProblemCode = keyof typeof CATALOG;

/** Codes an item of a batch can be rejected with: the catalog plus `too_large`. */
export type ItemCode = ProblemCode | "too_large";

/** An expected failure that goes on the wire. `detail` must never carry input values. */
export class Problem extends Error {
  readonly code: ProblemCode;
  readonly detail: string | null;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, detail: string | null = null, headers: Record<string, string> = {}) {
    super(detail ?? code);
    this.name = "Problem";
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }

  get status(): number {
    return CATALOG[this.code].status;
  }
}

/**
 * What an RPC method returns: a thrown Error loses its class and code when it crosses the
 * Durable Object boundary, a plain object does not.
 */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; problem: { code: ProblemCode; detail: string | null; headers: Record<string, string> } };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

export function failed(problem: Problem): Outcome<never> {
  return { ok: false, problem: { code: problem.code, detail: problem.detail, headers: problem.headers } };
}

/** Runs `work`, turning a thrown Problem into a failed Outcome; anything else stays thrown. */
export async function outcomeOf<T>(work: () => T | Promise<T>): Promise<Outcome<T>> {
  try {
    return ok(await work());
  } catch (error) {
    if (error instanceof Problem) return failed(error);
    throw error;
  }
}

/** The edge side: the value, or the Problem thrown again for the renderer. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  const { code, detail, headers } = outcome.problem;
  throw new Problem(code, detail, headers);
}
