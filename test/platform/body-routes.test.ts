import { env } from "cloudflare:workers";
import type { RouteConfig } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createDocumentedApp } from "../../src/app";
import { METHODS_WITH_BODY } from "../../src/http/body";
import { PERMISSIONS } from "../../src/routes/keys/keys.routes";
import { createApiKey, createOrg } from "../helpers/factories";
import { createOperatorToken } from "../helpers/operator";
import { createBrokerToken, createStaffUser, logIn, STAFF_ORIGIN } from "../helpers/staff";
import { createTestApp } from "../helpers/test-app";

/**
 * Every route of the real app that takes a body, found from the app's own route list (not a list
 * written here), so a route added later is covered the day it is added.
 */
const app = await createDocumentedApp();
const documentedRoutes = app.openAPIRegistry.definitions.flatMap((definition) => (definition.type === "route" ? [definition.route] : []));
const bodyRoutes = documentedRoutes.filter((route) => route.request?.body !== undefined);
const honoPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ":$1");
/** The caller's organization where the path names one (the operator's routes find it before the body), a probe id elsewhere. */
const concretePath = (openApiPath: string, orgId: string) => openApiPath.replace("{org_id}", orgId).replace(/\{(\w+)\}/g, "probe_$1");

/** The body limit among the route's own handlers (`limitBody` carries its limit). */
function bodyLimitOf(route: RouteConfig): number | undefined {
  const method = route.method.toUpperCase();
  const path = honoPath(route.path);
  const handlers = app.routes.filter((r) => r.method === method && r.path === path).map((r) => r.handler as { maxBytes?: number });
  return handlers.find((handler) => typeof handler.maxBytes === "number")?.maxBytes;
}

type AuthKind = "api_key" | "broker" | "staff" | "operator" | "none";

/** How to authenticate, from the route's documented `security` (any one alternative will do). */
function authKindOf(route: RouteConfig): AuthKind {
  const schemes = new Set((route.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  if (schemes.has("ServiceApiKey")) return "api_key";
  if (schemes.has("BrokerToken")) return "broker";
  if (schemes.has("StaffSession")) return "staff";
  if (schemes.has("OperatorToken")) return "operator";
  expect(schemes.size, `${route.method} ${route.path} documents a security scheme this test does not know`).toBe(0);
  return "none";
}

describe("every body-taking route", async () => {
  const org = await createOrg();
  const credentials = {
    // Every permission, so each route is refused for its body alone.
    api_key: { "X-Service-API-Key": (await createApiKey(org.id, { permissions: [...PERMISSIONS] })).key },
    broker: { Authorization: `Bearer ${(await createBrokerToken(org.id)).token}` },
    staff: { Cookie: await logIn(await createStaffUser(org.id)), Origin: STAFF_ORIGIN },
    operator: { Authorization: `Bearer ${await createOperatorToken()}` },
    none: {},
  } satisfies Record<AuthKind, Record<string, string>>;
  const { request } = createTestApp(undefined, env);
  let client = 0;

  const send = (route: RouteConfig, body: string, contentType: string) =>
    request(concretePath(route.path, org.id), {
      method: route.method.toUpperCase(),
      // A fresh client address each time, so per-client limits (login attempts) never interfere.
      headers: { ...credentials[authKindOf(route)], "Content-Type": contentType, "CF-Connecting-IP": `192.0.2.${++client % 250}` },
      body,
    });

  it("are found: the app has some, and every route that accepts a body method is documented", () => {
    expect(bodyRoutes.length).toBeGreaterThan(0);
    const documented = new Set(documentedRoutes.map((route) => `${route.method.toUpperCase()} ${honoPath(route.path)}`));
    const served = app.routes.filter((route) => METHODS_WITH_BODY.has(route.method)).map((route) => `${route.method} ${route.path}`);
    for (const route of served) expect(documented, `${route} is served but not in the OpenAPI registry`).toContain(route);
  });

  describe.each(bodyRoutes.map((route) => [`${route.method.toUpperCase()} ${route.path}`, route] as const))("%s", (_name, route) => {
    it("has a body limit of its own", () => {
      expect(bodyLimitOf(route)).toBeGreaterThan(0);
    });

    it("accepts a small JSON body as far as validation (so the refusals below are about the body)", async () => {
      const res = await send(route, "{}", "application/json");
      expect([400, 401, 403, 413, 500]).not.toContain(res.status);
    });

    it("answers a body one byte over its limit with 413 payload_too_large", async () => {
      const limit = bodyLimitOf(route) ?? Number.NaN;
      const body = `{"padding":"${"a".repeat(limit - 13)}"}`;
      expect(body.length).toBe(limit + 1);
      const res = await send(route, body, "application/json");
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: "payload_too_large" });
    });

    it.each([
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json;",
      "application/json ; charset=utf-8",
      "application/json; charset",
      "application/json;charset=",
      "application/jsonp",
    ])("answers Content-Type: %s with 400 invalid_request (403 forbidden on a cookie-authenticated write), never a 5xx", async (contentType) => {
      const res = await send(route, "{}", contentType);
      const expected = authKindOf(route) === "staff" ? { status: 403, error: "forbidden" } : { status: 400, error: "invalid_request" };
      expect(res.status).toBe(expected.status);
      expect(await res.json()).toMatchObject({ error: expected.error });
    });

    it.each(["application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON"])(
      "accepts Content-Type: %s",
      async (contentType) => {
        const res = await send(route, "{}", contentType);
        expect([400, 401, 403, 413, 415, 500]).not.toContain(res.status);
      },
    );
  });
});
