import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env";
import { CACHE_CONTROL } from "./cache-control";
import { ApiError } from "./errors";
import { openCors } from "./response-headers";

/** Open CORS without credentials: these figures are meant to be embedded on any site. */
export const publicCors = openCors({ allowMethods: ["GET", "HEAD", "OPTIONS"] });

/** The per-client burst limit of the public endpoints, in requests per minute. */
export const PUBLIC_REQUESTS_PER_MINUTE = 120;
const WINDOW_MS = 60_000;
/** Clients one isolate tracks per window; past that, new clients go uncounted until the next minute. */
const MAX_TRACKED_CLIENTS = 50_000;

/**
 * Requests per client address in fixed one-minute windows, counted in this isolate. The public
 * answers are copies held in memory, so what a flood can cost is the isolate's own CPU: counting
 * where it is spent keeps the limit off the network (a Rate Limiting binding call cost as much as
 * the rest of the request; BENCHMARKS.md), at the price of counting per serving instance.
 */
export class ClientWindowCounter {
  private window = -1;
  private readonly counts = new Map<string, number>();

  /** Counts one request; the seconds until this client may call again, or 0 when it may now. */
  take(client: string, nowMs: number): number {
    const window = Math.floor(nowMs / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(client) ?? 0) + 1;
    if (count === 1 && this.counts.size >= MAX_TRACKED_CLIENTS) return 0;
    this.counts.set(client, count);
    return count > PUBLIC_REQUESTS_PER_MINUTE ? Math.ceil(((window + 1) * WINDOW_MS - nowMs) / 1000) : 0;
  }
}

const publicClients = new ClientWindowCounter();

/** Refuses a client over its per-minute burst (by client address, see ClientWindowCounter). */
function refuseBurst(c: Context<AppEnv>): void {
  const retryAfter = publicClients.take(c.req.header("CF-Connecting-IP") ?? "unknown-client", Date.now());
  if (retryAfter > 0) {
    throw new ApiError("rate_limited", "Too many requests from this client; try again in a minute.", {
      headers: { "Retry-After": String(retryAfter) },
    });
  }
}

/**
 * A per-client burst limit of its own; it never touches a key's daily quota. Shared by every
 * endpoint that takes no credential.
 */
export const publicBurstLimit = createMiddleware<AppEnv>((c, next) => {
  refuseBurst(c);
  return next();
});

/**
 * The public figures: the burst limit, and successful answers may be cached by browsers and CDNs
 * for a minute. One layer, not the limit's wrapped around another: each costs every request a
 * promise and a frame.
 */
export const publicAccess = createMiddleware<AppEnv>(async (c, next) => {
  refuseBurst(c);
  await next();
  // On the response itself: c.header() after the handler would copy the whole response.
  if (c.res.status === 200) c.res.headers.set("Cache-Control", CACHE_CONTROL.public);
});
