import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDocumentedApp } from "../../src/app";
import { createTestApp } from "../helpers/test-app";

/**
 * Every operation outside /api/v1 is declared through `route({ caller })` (src/http/route.ts),
 * which derives its chain, security and documented refusals: called without a credential, an
 * operation that takes one refuses with a 401 it documents, sent with `Cache-Control: no-store`
 * like every answer of a credentialed route (src/http/cache-control.ts).
 */
const app = await createDocumentedApp();
const credentialed = app.openAPIRegistry.definitions
  .flatMap((definition) => (definition.type === "route" ? [definition.route] : []))
  .filter((route) => !route.path.startsWith("/api/v1/") && (route.security ?? []).length > 0 && route.path !== "/api/auth/logout");
const concretePath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, "probe_$1");

describe("a credentialed route outside /api/v1, called without its credential", () => {
  const { request } = createTestApp(undefined, env);

  it("covers the key, settings and operator routes", () => {
    expect(credentialed.length).toBeGreaterThan(30);
  });

  it.each(credentialed.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))("%s", async (_name, route) => {
    const res = await request(concretePath(route.path), { method: route.method.toUpperCase() });
    expect(res.status).toBe(401);
    expect(route.responses[401]).toBeDefined();
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });
});
