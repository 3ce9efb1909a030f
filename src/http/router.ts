import { OpenAPIHono } from "@hono/zod-openapi";
import type { z } from "zod";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export type AppRouter = OpenAPIHono<AppEnv>;

/** The one 422 a schema failure becomes, wherever the schema ran (a route's validator or a parsed CSV body). */
export function validationError(error: z.ZodError, target: string): ApiError {
  const details = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    code: issue.code,
    message: issue.message,
  }));
  return new ApiError("validation_error", `The request ${target === "json" ? "body" : target} is invalid.`, { details });
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
