import { createMiddleware } from "hono/factory";
import { SERVICE_VERSION } from "../version";
import type { AppEnv } from "./app-env";

/**
 * The few security headers a JSON API needs, set once the response exists. (Hono's secureHeaders
 * and cors write to `c.res` before the handler runs, which makes every response be built twice —
 * measurable on the metered path; see BENCHMARKS.md.)
 */
const SECURITY_HEADERS: [string, string][] = [
  ["Strict-Transport-Security", "max-age=31536000; includeSubDomains"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "no-referrer"],
  // Cross-origin reads are the point of the public and data APIs; CORS, not CORP, governs them.
  ["Cross-Origin-Resource-Policy", "cross-origin"],
  // Not a security header, but set in the same pass: which release answered (see GET /health).
  ["X-Service-Version", SERVICE_VERSION],
];

export const securityHeaders = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  for (const [name, value] of SECURITY_HEADERS) c.res.headers.set(name, value);
});

/**
 * CORS for a credential-less API that any origin may call: keys travel in headers, never in
 * cookies, so `*` without credentials is safe. Preflights are answered here.
 */
export function openCors(options: { allowMethods: string[]; allowHeaders?: string[]; exposeHeaders?: string[] }) {
  const preflight: Record<string, string> = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": options.allowMethods.join(", "),
    "Access-Control-Max-Age": "86400",
  };
  if (options.allowHeaders) preflight["Access-Control-Allow-Headers"] = options.allowHeaders.join(", ");
  const exposed = options.exposeHeaders?.join(", ");
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "OPTIONS" && c.req.header("Origin")) return c.body(null, 204, preflight);
    await next();
    c.res.headers.set("Access-Control-Allow-Origin", "*");
    if (exposed) c.res.headers.set("Access-Control-Expose-Headers", exposed);
  });
}
