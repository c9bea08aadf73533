import type { Hook } from "@hono/zod-openapi";
import { describeIssues } from "../http/issues";
import { Problem } from "../http/problem";
import type { AppEnv } from "./context";

/** Every validation failure of a route becomes `422 invalid_input` with paths and error types only. */
export const invalidInput: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) {
    const where = result.target === "json" ? "" : result.target;
    // The validator hands the hook the value it parsed, so a field it lacks is named `required`.
    const input = (result as { data?: unknown }).data;
    throw new Problem("invalid_input", describeIssues(undefined, result.error.issues, where, "body", input));
  }
};
