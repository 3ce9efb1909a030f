import { createMiddleware } from "hono/factory";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { loadConfig } from "./config";
import type { AppEnv } from "./http/app-env";
import { onError, onMethodNotAllowed, onNotFound } from "./http/error-handler";
import { IDEMPOTENCY_CORS, IdempotencyKeyParameter } from "./http/idempotency";
import { openApiDocument, SECURITY_SCHEMES } from "./http/openapi";
import { publicCors } from "./http/public-access";
import { RATE_LIMIT_EXPOSED_HEADERS } from "./http/quota";
import { readsFrom } from "./http/read-consistency";
import { openCors, securityHeaders } from "./http/response-headers";
import { type AppRouter, createRouter } from "./http/router";
import { staffCors } from "./http/staff-auth";
import { trackUsage } from "./http/usage";
import { appraisalRouter } from "./routes/appraisal";
import { authRouter } from "./routes/auth";
import { complianceRouter } from "./routes/compliance";
import { dealDeskRouter } from "./routes/deal-desk";
import { docsRouter } from "./routes/docs";
import { feedsRouter, orgStoragePrototypeRouter } from "./routes/feeds";
import { healthRouter } from "./routes/health";
import { ingestRouter } from "./routes/ingest";
import { keysRouter } from "./routes/keys";
import { operatorRouter } from "./routes/operator";
import { publicRouter } from "./routes/public";
import { reportsRouter } from "./routes/reports";
import { sandboxesRouter } from "./routes/sandboxes";
import { settingsRouter } from "./routes/settings";
import { documentWebhookEvents, webhooksRouter } from "./routes/webhooks";

/** Vars and secrets are checked at the first request; a bad one is a logged 500, not a later surprise. */
const provideConfig = createMiddleware<AppEnv>(async (c, next) => {
  c.set("config", loadConfig(c.env));
  await next();
});

export interface AppOptions {
  /** Extra routes behind the whole production stack; tests use it (test/helpers/test-app.ts). */
  mount?: (app: AppRouter) => void;
}

export function createApp(options: AppOptions = {}) {
  const app = createRouter();

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(securityHeaders);
  app.use(trackUsage);
  app.use(provideConfig);
  // Reads start at the primary unless the route declares otherwise (docs/consistency.md).
  app.use(readsFrom("primary"));
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

  app.route("/", healthRouter);
  app.route("/", publicRouter);
  app.route("/", feedsRouter);
  app.route("/", authRouter);
  app.route("/", keysRouter);
  app.route("/", settingsRouter);
  app.route("/", docsRouter);
  app.route("/", reportsRouter);
  app.route("/", complianceRouter);
  // The reference lists a tag's operations in this order: the deal desk's own four, then appraisal.
  app.route("/", dealDeskRouter);
  app.route("/", appraisalRouter);
  app.route("/", webhooksRouter);
  app.route("/", ingestRouter);
  app.route("/", operatorRouter);
  app.route("/", sandboxesRouter);
  // Development only, answered when ORG_STORAGE_PROTOTYPE=1 (docs/scaling.md); not in the document.
  app.route("/", orgStoragePrototypeRouter);
  options.mount?.(app);

  documentWebhookEvents(app);
  app.openAPIRegistry.registerParameter("IdempotencyKey", IdempotencyKeyParameter);
  app.openAPIRegistry.registerComponent("securitySchemes", "ServiceApiKey", SECURITY_SCHEMES.ServiceApiKey);
  app.openAPIRegistry.registerComponent("securitySchemes", "LegacyToken", SECURITY_SCHEMES.LegacyToken);
  app.openAPIRegistry.registerComponent("securitySchemes", "BrokerToken", SECURITY_SCHEMES.BrokerToken);
  app.openAPIRegistry.registerComponent("securitySchemes", "StaffSession", SECURITY_SCHEMES.StaffSession);
  app.openAPIRegistry.registerComponent("securitySchemes", "OperatorToken", SECURITY_SCHEMES.OperatorToken);
  app.doc31("/api/openapi.json", (c) => openApiDocument(new URL(c.req.url).origin));

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
