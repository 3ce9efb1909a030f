import { env } from "cloudflare:workers";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { v1Route } from "../../src/http/v1-chain";
import type { ApiKeyListSchema, CreatedApiKeySchema } from "../../src/routes/keys/keys.routes";
import { recordingD1 } from "../helpers/d1-recorder";
import { createApiKey, createOrg, createStore, createUnit } from "../helpers/factories";
import { brokerCall, createBrokerToken } from "../helpers/staff";
import { createTestApp } from "../helpers/test-app";

/**
 * Which D1 session each request's statements ran in (docs/consistency.md): reads from the nearest
 * replica (`first-unconstrained`), writes and key management from the primary (`first-primary`).
 */
describe("read consistency", async () => {
  const org = await createOrg();
  const store = await createStore(org.id);
  await createUnit(org.id, store.id, { stockedOn: "2026-01-01" });
  const { key } = await createApiKey(org.id);
  const { token } = await createBrokerToken(org.id);
  const d1 = recordingD1();
  const probe = async (c: { var: { db: { $client: D1Database } }; body: (data: null, status: 200) => Response }) => {
    await c.var.db.$client.prepare("SELECT 1 AS probe").all();
    return c.body(null, 200);
  };
  const { request } = createTestApp(
    (app) =>
      app
        .openapi(
          v1Route({
            endpoint: "lender-route",
            body: true,
            reads: "nearest-replica",
            method: "post",
            path: "/api/v1/probe-compute",
            request: { body: { content: { "application/json": { schema: z.object({}) } }, required: true } },
            responses: { 200: { description: "ok" } },
          }),
          probe,
        )
        .openapi(
          v1Route({
            endpoint: "inventory",
            reads: "primary",
            method: "get",
            path: "/api/v1/probe-primary",
            responses: { 200: { description: "ok" } },
          }),
          probe,
        ),
    { ...env, DB: d1.DB },
  );

  /** The sessions the request's own statements ran in (usage flushes use the binding and are left out). */
  async function sessionsOf(path: string, init: RequestInit = {}) {
    d1.clear();
    const res = await request(path, { ...init, headers: { "CF-Connecting-IP": "198.51.100.40", ...init.headers } });
    expect(res.status).toBeLessThan(300);
    const sessions = d1.statements.filter((s) => s.session !== "binding").map((s) => s.session);
    expect(sessions.length).toBeGreaterThan(0);
    return new Set(sessions);
  }

  it("a GET feed reads from the nearest replica", async () => {
    expect(await sessionsOf("/api/v1/inventory", { headers: { "X-Service-API-Key": key } })).toEqual(new Set(["first-unconstrained"]));
  });

  it.each(["/api/public/stats", "/api/moat/public"])("a public read (%s) reads from the nearest replica", async (path) => {
    // These may be answered from a cached copy without any statement; the session is what counts.
    d1.clear();
    expect((await request(path, { headers: { "CF-Connecting-IP": "198.51.100.41" } })).status).toBe(200);
    expect(new Set(d1.sessions)).toEqual(new Set(["first-unconstrained"]));
  });

  it("a POST that only computes reads from the nearest replica when its route says so, from its first statement", async () => {
    const sessions = await sessionsOf("/api/v1/probe-compute", {
      method: "POST",
      headers: { "X-Service-API-Key": key, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(sessions).toEqual(new Set(["first-unconstrained"]));
  });

  it("a GET whose route declares the primary reads from the primary", async () => {
    expect(await sessionsOf("/api/v1/probe-primary", { headers: { "X-Service-API-Key": key } })).toEqual(new Set(["first-primary"]));
  });

  it("a key's credential is read at the nearest replica, whatever the route's reads (its revocation is told by its quota counter)", async () => {
    const fresh = await createApiKey(org.id);
    await sessionsOf("/api/v1/probe-primary", { headers: { "X-Service-API-Key": fresh.key } });
    const lookups = d1.statements.filter((s) => /from "api_keys"/i.test(s.sql));
    expect(lookups.map((s) => s.session)).toEqual(["first-unconstrained"]);
  });

  it("creating a key starts at the primary", async () => {
    const sessions = await sessionsOf("/api/public-api/keys", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ label: "consistency" }),
    });
    expect(sessions).toEqual(new Set(["first-primary"]));
  });

  it("every /api/public-api/* request starts at the primary, reads included", async () => {
    expect(await sessionsOf("/api/public-api/keys", { headers: { Authorization: `Bearer ${token}` } })).toEqual(new Set(["first-primary"]));
  });

  it("a key created is in the key list at once", async () => {
    const created = await brokerCall("/api/public-api/keys", token, { method: "POST", body: { label: "just made" } });
    expect(created.status).toBe(201);
    const { id } = await created.json<z.infer<typeof CreatedApiKeySchema>>();
    const list = await brokerCall("/api/public-api/keys", token);
    expect((await list.json<z.infer<typeof ApiKeyListSchema>>()).keys.map((k) => k.id)).toContain(id);
  });
});
