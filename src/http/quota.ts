import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";

export const RATE_LIMIT_EXPOSED_HEADERS = ["X-Service-RateLimit-Limit", "X-Service-RateLimit-Remaining", "X-Service-RateLimit-Reset", "Retry-After"];

export const meterQuota = createMiddleware<AppEnv>(async (_c, next) => next());
