import { createMiddleware } from "hono/factory";
import { getSessionDb, type ReadConsistency } from "../db/client";
import type { AppEnv } from "./app-env";

/**
 * Opens the request's D1 session where its route declares its reads may start
 * (docs/consistency.md). A route that declares nothing reads from the primary (the app's default).
 */
export const readsFrom = (consistency: ReadConsistency) =>
  createMiddleware<AppEnv>((c, next) => {
    c.set("db", getSessionDb(c.env.DB, consistency));
    return next();
  });
