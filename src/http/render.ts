import { CATALOG, type Problem } from "./problem";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** A problem document's fields (RFC 9457, with SPEC's `code` and `request_id`). */
export function problemDocument(problem: Problem, requestId: string, errorsUrl: string) {
  const { status, title } = CATALOG[problem.code];
  return {
    type: errorsUrl ? `${errorsUrl.replace(/\/$/, "")}/${problem.code}` : "about:blank",
    title,
    status,
    code: problem.code,
    detail: problem.detail,
    request_id: requestId,
  };
}

/** A problem document (RFC 9457) with SPEC's fields. */
export function problemResponse(problem: Problem, requestId: string, errorsUrl: string): Response {
  return new Response(JSON.stringify(problemDocument(problem, requestId, errorsUrl)), {
    status: problem.status,
    headers: { ...problem.headers, "Content-Type": PROBLEM_CONTENT_TYPE },
  });
}
