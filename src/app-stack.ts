/**
 * The production stack every request goes through, and the OpenAPI document's registrations. Loaded
 * by src/app.ts on the first request, not at start-up: these modules bring zod's and drizzle's
 * schemas (config, errors, usage, sessions), which a request needs and start-up does not.
 */
import { createMiddleware } from "hono/factory";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { loadConfig } from "./config";
import { getSessionDb } from "./db/client";
import type { AppEnv } from "./http/app-env";
import { onError, onMethodNotAllowed, onNotFound } from "./http/error-handler";
import { IDEMPOTENCY_CORS, IdempotencyKeyParameter } from "./http/idempotency";
import { openApiDocument, SECURITY_SCHEMES } from "./http/openapi";
import { publicCors } from "./http/public-access";
import { RATE_LIMIT_EXPOSED_HEADERS } from "./http/quota";
import { openCors, securityHeaders } from "./http/response-headers";
import { type AppRouter, createRouter } from "./http/router";
import { staffCors } from "./http/staff-cors";
import { trackUsage } from "./http/usage";

/**
 * What every route finds on its context: the configuration, whose vars and secrets are checked at
 * the first request (a bad one is a logged 500, not a later surprise), and a D1 session whose reads
 * start at the primary unless the route declares otherwise (docs/consistency.md). One layer for
 * both: every middleware costs every request a promise and a frame of its own.
 */
const provideRequestContext = createMiddleware<AppEnv>((c, next) => {
  c.set("config", loadConfig(c.env));
  c.set("db", getSessionDb(c.env.DB, "primary"));
  return next();
});

/**
 * An app with the whole production stack (request id, headers, usage, config, read consistency,
 * 405, CORS, 404 and errors) around `routers`. Every request is served by one such app from start
 * to end, so its context is the one the stack set, as when all routes were in one app.
 */
export function withProductionStack(routers: AppRouter[]): AppRouter {
  const app = createRouter();

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(securityHeaders);
  app.use(trackUsage);
  app.use(provideRequestContext);
  app.use(methodNotAllowed({ app, onMethodNotAllowed }));
  app.use("/api/public/*", publicCors);
  app.use("/api/moat/*", publicCors);
  // Keys travel in a header, never a cookie, so any origin may call the data API from a browser.
  app.use(
    "/api/v1/*",
    openCors({
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      allowHeaders: ["X-Service-API-Key", "X-Api-Token", "Content-Type", "Authorization", ...IDEMPOTENCY_CORS.allowHeaders],
      exposeHeaders: [
        ...RATE_LIMIT_EXPOSED_HEADERS,
        "X-Request-Id",
        "X-Service-Version",
        "X-Service-Mode",
        "Deprecation",
        "Sunset",
        "Link",
        ...IDEMPOTENCY_CORS.exposeHeaders,
      ],
    }),
  );
  app.use("/api/auth/*", staffCors);
  app.use("/api/public-api/*", staffCors);
  app.use("/api/settings/*", staffCors);

  for (const router of routers) app.route("/", router);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

/** The document at /api/openapi.json, from `app`'s routes, with the components no route registers. */
export function serveDocument(app: AppRouter, documentPath: string): void {
  app.openAPIRegistry.registerParameter("IdempotencyKey", IdempotencyKeyParameter);
  app.openAPIRegistry.registerComponent("securitySchemes", "ServiceApiKey", SECURITY_SCHEMES.ServiceApiKey);
  app.openAPIRegistry.registerComponent("securitySchemes", "LegacyToken", SECURITY_SCHEMES.LegacyToken);
  app.openAPIRegistry.registerComponent("securitySchemes", "BrokerToken", SECURITY_SCHEMES.BrokerToken);
  app.openAPIRegistry.registerComponent("securitySchemes", "StaffSession", SECURITY_SCHEMES.StaffSession);
  app.openAPIRegistry.registerComponent("securitySchemes", "OperatorToken", SECURITY_SCHEMES.OperatorToken);
  app.doc31(documentPath, (c) => openApiDocument(new URL(c.req.url).origin));
}
