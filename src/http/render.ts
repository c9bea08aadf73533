import { CATALOG, type Problem } from "./problem";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** A problem document (RFC 9457) with SPEC's fields. */
export function problemResponse(problem: Problem, requestId: string, errorsUrl: string): Response {
  const { status, title } = CATALOG[problem.code];
  const body = {
    type: errorsUrl ? `${errorsUrl.replace(/\/$/, "")}/${problem.code}` : "about:blank",
    title,
    status,
    code: problem.code,
    detail: problem.detail,
    request_id: requestId,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...problem.headers, "Content-Type": PROBLEM_CONTENT_TYPE },
  });
}
