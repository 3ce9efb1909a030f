import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";

/** How long browsers and CDNs may keep a public answer, and the oldest copy the Worker itself serves. */
export const PUBLIC_MAX_AGE_SECONDS = 60;

/** What a shared or browser cache may keep, by kind of answer: the one place that decides it. */
export const CACHE_CONTROL = {
  /**
   * Every answer to a credential (its organization's data, credentials it was issued, its quota
   * figures), and checks that must run again (health): no cache may keep it. Set by `v1Route` and
   * `route` on every answer of the route, refusals included.
   */
  private: "no-store",
  /** The public figures' successful answers: the same for everyone, at most a minute old (`publicAccess`). */
  public: `public, max-age=${PUBLIC_MAX_AGE_SECONDS}`,
  /** The reference page (/docs), a static shell. */
  reference: "public, max-age=300",
} as const;

/** `Cache-Control: no-store` on whatever the rest of the chain answers: set after it, so it covers the refusals too. */
export const noStore = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  c.res.headers.set("Cache-Control", CACHE_CONTROL.private);
});
