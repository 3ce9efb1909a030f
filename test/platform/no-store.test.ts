import { env } from "cloudflare:workers";
import type { RouteConfig } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createDocumentedApp } from "../../src/app";
import { PERMISSIONS } from "../../src/routes/keys/keys.routes";
import { createApiKey, createOrg, createStore } from "../helpers/factories";
import { fetchOpenApiDocument, type OpenApiDocument } from "../helpers/openapi-document";
import { createTestApp } from "../helpers/test-app";

/**
 * Every authenticated answer is the caller's own (its data, its quota figures), so no cache may
 * keep it: every `/api/v1` route, taken from the app's own route table, answers
 * `Cache-Control: no-store` — its successes and its refusals (401, 403, 400, 404, 422) alike.
 */
const app = await createDocumentedApp();
const v1Routes = app.openAPIRegistry.definitions
  .flatMap((definition) => (definition.type === "route" ? [definition.route] : []))
  .filter((route) => route.path.startsWith("/api/v1/"));
const honoPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ":$1");
const concretePath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, "probe_$1");

/** The request example the served document gives the route (on the route, or on its body schema). */
function exampleBody(doc: OpenApiDocument, route: RouteConfig): unknown {
  const media = doc.paths[route.path]?.[route.method]?.requestBody?.content["application/json"];
  const ref = media?.schema?.$ref?.split("/").pop();
  return media?.example ?? (ref ? doc.components.schemas[ref]?.example : undefined);
}

describe("Cache-Control: no-store on every /api/v1 answer", async () => {
  const org = await createOrg();
  await createStore(org.id);
  const { key } = await createApiKey(org.id, { permissions: [...PERMISSIONS] });
  const { key: unscoped } = await createApiKey(org.id, { scopes: ["no-such-scope"] });
  const { request } = createTestApp(undefined, env);
  const doc = await fetchOpenApiDocument();
  const statuses = new Map<string, number[]>();

  const send = async (route: RouteConfig, headers: Record<string, string>, body?: string) => {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const res = await request(concretePath(route.path), {
      method: route.method.toUpperCase(),
      headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body,
    });
    statuses.set(name, [...(statuses.get(name) ?? []), res.status]);
    expect(res.headers.get("Cache-Control"), `${name} answered ${res.status}`).toBe("no-store");
    return res;
  };

  it("covers every /api/v1 route the app serves", () => {
    const served = new Set(app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/api/v1/")).map((r) => `${r.method} ${r.path}`));
    expect([...served].sort()).toEqual([...new Set(v1Routes.map((r) => `${r.method.toUpperCase()} ${honoPath(r.path)}`))].sort());
    expect(v1Routes.length).toBeGreaterThan(20);
  });

  describe.each(v1Routes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))("%s", (_name, route) => {
    const takesBody = route.request?.body !== undefined;

    it("with a key holding every permission (the documented example body, if any)", async () => {
      await send(route, { "X-Service-API-Key": key }, takesBody ? JSON.stringify(exampleBody(doc, route) ?? {}) : undefined);
    });

    it("refused: no credential (401), a key without the scope (403)", async () => {
      expect((await send(route, {})).status).toBe(401);
      expect((await send(route, { "X-Service-API-Key": unscoped })).status).toBe(403);
    });

    it.runIf(takesBody)("refused: a body that is not JSON, one the schema refuses", async () => {
      for (const body of ["{not json", JSON.stringify({ unexpected: [] })]) {
        const { status } = await send(route, { "X-Service-API-Key": key }, body);
        expect(status >= 400 && status < 500, `${body} answered ${status}`).toBe(true);
      }
    });
  });

  it("POST /api/v1/gross-calc answers its documented example 200 with no-store (the hostile run's case)", async () => {
    const grossCalc = v1Routes.find((route) => route.path === "/api/v1/gross-calc" && route.method === "post");
    expect(grossCalc).toBeDefined();
    if (!grossCalc) return;
    expect((await send(grossCalc, { "X-Service-API-Key": key }, JSON.stringify(exampleBody(doc, grossCalc)))).status).toBe(200);
  });

  it("saw successes too, not only refusals", () => {
    const succeeded = [...statuses].filter(([, seen]) => seen.some((status) => status >= 200 && status < 300)).map(([name]) => name);
    // A route with a path parameter is probed with an id no organization has, so it answers 404: only the others can succeed.
    const withoutPathParameters = v1Routes.filter((route) => !route.path.includes("{"));
    expect(succeeded.length).toBeGreaterThan(withoutPathParameters.length / 2);
  });
});
