import { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import type { AppEnv } from "./app-env";
import { ApiError, MAX_VALIDATION_DETAILS } from "./errors";

export type AppRouter = OpenAPIHono<AppEnv>;

/**
 * The one 422 a schema failure becomes, wherever the schema ran (a route's validator or a parsed
 * CSV body). A hostile body can hold thousands of faults; the answer lists the first few and
 * counts the rest.
 */
export function validationError(error: z.ZodError, target: string): ApiError {
  // An undeclared field is one detail per field, its path naming it (docs/versioning.md#unknown-request-fields).
  const issues = error.issues.flatMap((issue): { path: PropertyKey[]; code: string; message: string }[] =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          code: issue.code,
          path: [...issue.path, key],
          message: `Unknown field "${key}": not part of this endpoint's body.`,
        }))
      : [issue],
  );
  const details = issues.slice(0, MAX_VALIDATION_DETAILS).map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    code: issue.code,
    message: issue.message,
  }));
  const truncated = issues.length - details.length;
  return new ApiError("validation_error", `The request ${target === "json" ? "body" : target} is invalid.`, {
    details,
    body: truncated > 0 ? { details_truncated: truncated } : undefined,
  });
}

/** Every router shares one validation hook, so a schema failure reads the same on every path. */
export function createRouter(): AppRouter {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      throw validationError(result.error, result.target);
    },
  });
}
