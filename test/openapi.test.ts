import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { EVENT_NAMES } from "../src/events/emit";
import { call } from "./helpers/factories";

interface OpenApiSchema {
  properties?: Record<string, unknown>;
  allOf?: (OpenApiSchema & { $ref?: string })[];
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { operationId?: string; security?: unknown[]; responses: Record<string, unknown> }>>;
  components: {
    securitySchemes: Record<string, { type: string; name?: string; in?: string }>;
    schemas: Record<string, OpenApiSchema>;
  };
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

describe("GET /api/openapi.json", async () => {
  const res = await call("/api/openapi.json");
  const doc = await res.json<OpenApiDocument>();

  it("is an OpenAPI 3.1 document", () => {
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("documents every route the Worker serves, each with an operationId", () => {
    const served = createApp()
      .routes.filter((r) => r.method !== "ALL" && r.path !== "/api/openapi.json")
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`);
    expect(served.length).toBeGreaterThan(0);
    for (const route of new Set(served)) {
      const [method, path] = route.split(" ");
      expect(doc.paths[path]?.[method], `${route} is not in the OpenAPI document`).toBeDefined();
      expect(doc.paths[path][method].operationId).toBeTruthy();
    }
  });

  it("declares the security schemes, and the key scheme on the data API", () => {
    expect(doc.components.securitySchemes.ServiceApiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-Service-API-Key" });
    expect(doc.components.securitySchemes.LegacyToken).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Token" });
    expect(doc.components.securitySchemes.BrokerToken).toMatchObject({ type: "http" });
    for (const [path, operations] of Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/v1/"))) {
      for (const operation of Object.values(operations)) {
        expect(operation.security, path).toContainEqual({ ServiceApiKey: [] });
        expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(["401", "403", "429"]));
        expect(
          Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
          path,
        ).toBe(true);
      }
    }
  });

  it("describes the 429 body with its reset time, limit and count", () => {
    const resolve = (schema: OpenApiSchema & { $ref?: string }): string[] =>
      schema.$ref
        ? resolve(doc.components.schemas[schema.$ref.split("/").at(-1) ?? ""])
        : [...Object.keys(schema.properties ?? {}), ...(schema.allOf ?? []).flatMap(resolve)];
    expect(resolve(doc.components.schemas.QuotaExceeded)).toEqual(
      expect.arrayContaining(["error", "message", "request_id", "reset_at", "limit", "used"]),
    );
  });
});

describe("the webhooks section", async () => {
  const doc = await (await call("/api/openapi.json")).json<{ webhooks: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>();

  it("documents every event partners can subscribe to, with its envelope and data", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_NAMES].sort());
    expect(JSON.stringify(doc.webhooks["inventory.aged_alert"])).toContain("#/components/schemas/WebhookEvent_inventory_aged");
    const aged = JSON.stringify(doc.components.schemas.WebhookEvent_inventory_aged_alert);
    for (const field of ["id", "org_id", "store_id", "timestamp", "stock_no", "days_on_lot", "recommendation"]) expect(aged).toContain(`"${field}"`);
  });
});
