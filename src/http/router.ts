import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";

export type AppRouter = OpenAPIHono<AppEnv>;

/** Every router shares one validation hook, so a schema failure reads the same on every path. */
export function createRouter(): AppRouter {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const details = result.error.issues.map((issue) => ({
        path: issue.path.map(String).join(".") || result.target,
        code: issue.code,
        message: issue.message,
      }));
      throw new ApiError("validation_error", `The request ${result.target === "json" ? "body" : result.target} is invalid.`, { details });
    },
  });
}
