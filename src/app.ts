import { getPath } from "hono/utils/url";
import { AREA_PREFIXES } from "./area-prefixes";
import { claims } from "./area-table";
import type { AppRouter } from "./http/router";

export interface AppOptions {
  /**
   * Extra routes behind the whole production stack; tests and the bench use it (test/helpers/test-app.ts,
   * scripts/bench/entry.ts). They are served for paths no area claims, and are in the document.
   */
  mount?: (app: AppRouter) => void;
}

/**
 * The route areas, each built on its first request. Building every area's zod schemas and routes
 * at start-up was most of the Worker's start-up CPU (7x a bare Hono + zod Worker's, BENCHMARKS.md).
 * wrangler bundles without code splitting, so esbuild turns each `import()` below into an
 * initializer run on its first call: nothing of an area runs before then. Which area claims a path
 * is derived from the areas' routes (src/area-table.ts, written to src/area-prefixes.ts by
 * `npm run routes:areas`), so a route is served by its own area (test/platform/area-prefixes.test.ts,
 * test/platform/lazy-areas.test.ts), 405s included.
 *
 * In the order the document lists them (the reference shows a tag's operations in this order): the
 * deal desk's own four, then appraisal, which the reference lists under the same tag.
 */
const AREAS = {
  health: async () => [(await import("./routes/health")).healthRouter],
  public: async () => [(await import("./routes/public")).publicRouter],
  feeds: async () => [(await import("./routes/feeds")).feedsRouter],
  auth: async () => [(await import("./routes/auth")).authRouter],
  keys: async () => [(await import("./routes/keys")).keysRouter],
  settings: async () => [(await import("./routes/settings")).settingsRouter],
  docs: async () => [(await import("./routes/docs")).docsRouter],
  reports: async () => [(await import("./routes/reports")).reportsRouter],
  compliance: async () => [(await import("./routes/compliance")).complianceRouter],
  "deal-desk": async () => [(await import("./routes/deal-desk")).dealDeskRouter],
  appraisal: async () => [(await import("./routes/appraisal")).appraisalRouter],
  webhooks: async () => [(await import("./routes/webhooks")).webhooksRouter],
  ingest: async () => [(await import("./routes/ingest")).ingestRouter],
  operator: async () => [(await import("./routes/operator")).operatorRouter, (await import("./routes/demo-data")).demoDataRouter],
  sandboxes: async () => [(await import("./routes/sandboxes")).sandboxesRouter],
} satisfies Record<string, () => Promise<AppRouter[]>>;

export type AreaName = keyof typeof AREAS;

/** Each area's route paths (hono syntax), loading every area: what the area table is derived from. */
export async function areaRoutes(): Promise<Record<AreaName, string[]>> {
  const loaded = await Promise.all(
    Object.entries(AREAS).map(async ([area, routers]) => {
      const paths = (await routers()).flatMap((router) => router.routes.filter((route) => route.method !== "ALL").map((route) => route.path));
      return [area, [...new Set(paths)]] as const;
    }),
  );
  return Object.fromEntries(loaded) as Record<AreaName, string[]>;
}

const DOCUMENT_PATH = "/api/openapi.json";

/** The app of `routers` with the production stack around them (src/app-stack.ts, loaded with the first of them). */
async function loadStackedApp(routers: Promise<AppRouter[]>): Promise<AppRouter> {
  const [stack, loaded] = await Promise.all([import("./app-stack"), routers]);
  return stack.withProductionStack(loaded);
}

/**
 * Every area in one app, with the OpenAPI document at /api/openapi.json: what serves the document,
 * and what tests and scripts read the routes and the registry of (scripts/openapi-document.ts).
 */
export async function createDocumentedApp(options: AppOptions = {}): Promise<AppRouter> {
  const [stack, routers, { documentWebhookEvents }] = await Promise.all([
    import("./app-stack"),
    Promise.all(Object.values(AREAS).map((routers) => routers())),
    import("./routes/webhooks"),
  ]);
  const app = stack.withProductionStack(routers.flat());
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
  // Every prefix with its area's app, most specific first: the first that claims a path serves it.
  const areaApps = new Map(Object.entries(AREAS).map(([area, routers]) => [area, onFirstUse(() => loadStackedApp(routers()))]));
  const prefixes = AREA_PREFIXES.map(([prefix, area]) => ({ claims: claims(prefix), serve: areaApps.get(area) as Serve }));
  const document = onFirstUse(() => createDocumentedApp(options));
  const rest = onFirstUse(async () => {
    const app = await loadStackedApp(Promise.resolve([]));
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
