import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { ApiError, MAX_VALIDATION_DETAILS } from "./errors";

export type AppRouter = OpenAPIHono<AppEnv>;

/** Every router shares one validation hook, so a schema failure reads the same on every path. */
export function createRouter(): AppRouter {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const { issues } = result.error;
      // A hostile body can hold thousands of faults; the answer lists the first few and counts the rest.
      const details = issues.slice(0, MAX_VALIDATION_DETAILS).map((issue) => ({
        path: issue.path.map(String).join(".") || result.target,
        code: issue.code,
        message: issue.message,
      }));
      const truncated = issues.length - details.length;
      throw new ApiError("validation_error", `The request ${result.target === "json" ? "body" : result.target} is invalid.`, {
        details,
        body: truncated > 0 ? { details_truncated: truncated } : undefined,
      });
    },
  });
}
