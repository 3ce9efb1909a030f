import { getPath } from "hono/utils/url";
import type { AppRouter } from "./http/router";

export interface AppOptions {
  /**
   * Extra routes behind the whole production stack; tests and the bench use it (test/helpers/test-app.ts,
   * scripts/bench/entry.ts). They are served for paths no area claims, and are in the document.
   */
  mount?: (app: AppRouter) => void;
}

/**
 * A route area: the paths it claims and its routers, built on the area's first request. Building
 * every area's zod schemas and routes at start-up was most of the Worker's start-up CPU (7x a bare
 * Hono + zod Worker's, BENCHMARKS.md). wrangler bundles without code splitting, so esbuild turns each
 * `import()` below into an initializer run on its first call: nothing of an area runs before then.
 * The first area whose prefix matches a path serves it; every route is reached in its own area
 * (test/platform/lazy-areas.test.ts), so an area's routes are all that can answer its paths, 405s included.
 */
interface Area {
  /** Each claims the path itself and everything under it (a hono path: `:name` is any one segment). */
  prefixes: string[];
  routers: () => Promise<AppRouter[]>;
}

/** In the order the document lists them (the reference shows a tag's operations in this order). */
export const AREAS: readonly Area[] = [
  { prefixes: ["/health"], routers: async () => [(await import("./routes/health")).healthRouter] },
  { prefixes: ["/api/public/stats", "/api/moat"], routers: async () => [(await import("./routes/public")).publicRouter] },
  { prefixes: ["/api/v1/inventory", "/api/v1/sales-summary"], routers: async () => [(await import("./routes/feeds")).feedsRouter] },
  { prefixes: ["/api/auth"], routers: async () => [(await import("./routes/auth")).authRouter] },
  { prefixes: ["/api/public-api/keys"], routers: async () => [(await import("./routes/keys")).keysRouter] },
  // With the operator's copies of the settings routes, claimed before the operator's own area below.
  {
    prefixes: ["/api/settings", "/api/operator/organizations/:org_id/settings"],
    routers: async () => [(await import("./routes/settings")).settingsRouter],
  },
  { prefixes: ["/docs"], routers: async () => [(await import("./routes/docs")).docsRouter] },
  {
    prefixes: ["/api/v1/inventory-alerts", "/api/v1/market-pulse", "/api/v1/morning-briefing"],
    routers: async () => [(await import("./routes/reports")).reportsRouter],
  },
  {
    prefixes: ["/api/v1/compliance-check", "/api/v1/compliance-checks"],
    routers: async () => [(await import("./routes/compliance")).complianceRouter],
  },
  // The deal desk's own four, then appraisal, which the reference lists under the same tag.
  {
    prefixes: ["/api/v1/deal-coach", "/api/v1/gross-calc", "/api/v1/lender-route", "/api/v1/stip-check"],
    routers: async () => [(await import("./routes/deal-desk")).dealDeskRouter],
  },
  { prefixes: ["/api/v1/trade-appraisal", "/api/v1/vehicles"], routers: async () => [(await import("./routes/appraisal")).appraisalRouter] },
  { prefixes: ["/api/v1/webhooks"], routers: async () => [(await import("./routes/webhooks")).webhooksRouter] },
  { prefixes: ["/api/v1/ingest"], routers: async () => [(await import("./routes/ingest")).ingestRouter] },
  { prefixes: ["/api/operator"], routers: async () => [(await import("./routes/operator")).operatorRouter] },
  { prefixes: ["/api/sandboxes"], routers: async () => [(await import("./routes/sandboxes")).sandboxesRouter] },
];

const DOCUMENT_PATH = "/api/openapi.json";

/** The app of `routers` with the production stack around them (src/app-stack.ts, loaded with the first of them). */
async function stackedApp(routers: Promise<AppRouter[]>): Promise<AppRouter> {
  const [stack, loaded] = await Promise.all([import("./app-stack"), routers]);
  return stack.stackedApp(loaded);
}

/**
 * Every area in one app, with the OpenAPI document at /api/openapi.json: what serves the document,
 * and what tests and scripts read the routes and the registry of (scripts/openapi-document.ts).
 */
export async function createDocumentedApp(options: AppOptions = {}): Promise<AppRouter> {
  const [stack, routers, { documentWebhookEvents }] = await Promise.all([
    import("./app-stack"),
    Promise.all(AREAS.map((area) => area.routers())),
    import("./routes/webhooks"),
  ]);
  const app = stack.stackedApp(routers.flat());
  options.mount?.(app);
  documentWebhookEvents(app);
  stack.serveDocument(app, DOCUMENT_PATH);
  return app;
}

type Serve = (request: Request, env: Env, ctx: ExecutionContext) => Promise<Response>;

/**
 * Builds an app on its first use. The app is kept, not the promise of it, so that no request awaits
 * a promise another request resolves (workerd holds such a continuation until that request ends).
 * Deployed, building is synchronous work (no I/O), done before any other request can start.
 */
function onFirstUse(build: () => Promise<AppRouter>): Serve {
  let app: AppRouter | undefined;
  return async (request, env, ctx) => {
    app ??= await build();
    return app.fetch(request, env, ctx);
  };
}

/** Whether a path is `prefix` or under it, as hono matches `${prefix}/*` (a `:name` is any one segment). */
function claims(prefix: string): (path: string) => boolean {
  if (!prefix.includes(":")) {
    return (path) => path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) /* "/" */;
  }
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+")}(?:/|$)`);
  return (path) => pattern.test(path);
}

/** An area that cannot be built (a defect that once failed the Worker's start-up) still answers in the house error shape, and is logged. */
async function areaLoadFailed(error: unknown): Promise<Response> {
  const { describeError, logEvent } = await import("./lib/log");
  const requestId = crypto.randomUUID();
  logEvent("error", { event: "area_load_failed", request_id: requestId, ...describeError(error) });
  return Response.json(
    { error: "internal_error", message: "An unexpected error occurred.", request_id: requestId },
    { status: 500, headers: { "X-Request-Id": requestId } },
  );
}

/**
 * The Worker's app: it sends each request to the app of the area that claims its path, built on
 * that area's first request; the document to the app of every area; any other path to an app
 * with no area's routes (the stack's 404, and `options.mount`'s routes). The path is read as hono
 * reads it (`getPath`), and picked by a plain scan of the prefixes: a router of its own in front of
 * each area's was a measurable share of a metered call (BENCHMARKS.md, "Profiles").
 */
export function createApp(options: AppOptions = {}) {
  // Every prefix with its area's app, in the areas' order: the first that claims a path serves it.
  const prefixes = AREAS.flatMap((area) => {
    const serve = onFirstUse(() => stackedApp(area.routers()));
    return area.prefixes.map((prefix) => ({ claims: claims(prefix), serve }));
  });
  const document = onFirstUse(() => createDocumentedApp(options));
  const rest = onFirstUse(async () => {
    const app = await stackedApp(Promise.resolve([]));
    options.mount?.(app);
    return app;
  });
  const appFor = (path: string): Serve => {
    if (path === DOCUMENT_PATH) return document;
    for (const prefix of prefixes) if (prefix.claims(path)) return prefix.serve;
    return rest;
  };
  const fetch = async (request: Request, env: Env, ctx: ExecutionContext): Promise<Response> => {
    const serve = appFor(getPath(request));
    try {
      return await serve(request, env, ctx);
    } catch (error) {
      return areaLoadFailed(error);
    }
  };
  return { fetch };
}
