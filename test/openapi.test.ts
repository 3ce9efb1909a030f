import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createDocumentedApp } from "../src/app";
import { EVENT_NAMES } from "../src/events/emit";
import { documentedWebhook } from "../src/http/openapi";
import { call } from "./helpers/factories";
import {
  documentedEvents,
  documentedRoutes,
  fetchOpenApiDocument,
  hasExample,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiSchema,
  resolveSchema,
  servedApiRoutes,
} from "./helpers/openapi-document";
import { createTestApp } from "./helpers/test-app";

const doc = await fetchOpenApiDocument();
const operations: [string, OpenApiOperation][] = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, operation]): [string, OpenApiOperation] => [`${method} ${path}`, operation]),
);

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document", async () => {
    const res = await call("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("documents exactly the API routes the Worker serves", async () => {
    const served = servedApiRoutes(await createDocumentedApp());
    expect(served.length).toBeGreaterThan(0);
    expect(documentedRoutes(doc)).toEqual(served);
  });

  it("gives every operation an operationId, tags, a summary and a description", () => {
    for (const [route, operation] of operations) {
      expect(operation.operationId, route).toBeTruthy();
      expect(operation.tags?.length, `${route} has no tag`).toBeGreaterThan(0);
      expect(operation.summary, `${route} has no summary`).toBeTruthy();
      expect(operation.description, `${route} has no description`).toBeTruthy();
      expect(operation.security, `${route} does not say which credentials it takes`).toBeDefined();
    }
  });

  it("declares every tag its operations and webhooks use, each with a description, and no tag without an operation", () => {
    const declared = (doc.tags ?? []).map((tag) => tag.name);
    const used = new Set(
      [...operations, ...Object.entries(doc.webhooks ?? {}).map(([name, item]) => [name, item.post] as const)].flatMap(
        ([, operation]) => operation?.tags ?? [],
      ),
    );
    expect(new Set(declared)).toEqual(used);
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toBeTruthy();
    // The product before the plumbing: the deal tools are the first group a reader meets.
    expect(declared[0]).toBe("Deal desk");
    expect(doc.paths["/api/v1/trade-appraisal"].post?.tags).toEqual(["Deal desk"]);
  });

  it("shows an example request (when there is a body) and an example of every JSON success response", () => {
    for (const [route, operation] of operations) {
      if (operation.requestBody) expect(hasExample(doc, operation.requestBody.content["application/json"]), `${route} request`).toBe(true);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith("2") || !response.content) continue;
        expect(hasExample(doc, response.content["application/json"]), `${route} ${status} response`).toBe(true);
      }
    }
  });

  it("documents the error responses every operation can give", () => {
    for (const [route, operation] of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, route).toContain("500");
      if (operation.requestBody) expect(statuses, `${route} takes a body`).toEqual(expect.arrayContaining(["400", "413", "422"]));
      // The v1 chain refuses a body's content type with a 400; a route without a body has no such check.
      else if (route.includes(" /api/v1/")) expect(statuses, `${route} takes no body`).not.toContain("400");
      // Logout answers 204 with or without a session, so it is the one credentialed route with no 401.
      if (route.includes(" /api/public-api/") || route.includes(" /api/settings/"))
        expect(statuses, `${route} requires credentials`).toContain("401");
      if (route.includes(" /api/v1/")) expect(statuses, route).toEqual(expect.arrayContaining(["401", "403", "429"]));
      if (route.includes(" /api/public/") || route.includes(" /api/moat/")) expect(statuses, route).toContain("429");
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const schema = resolveSchema(doc, operation.responses[status].content?.["application/json"]?.schema);
        expect(schema, `${route} ${status} has no body schema`).toBeDefined();
      }
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
    const properties = (schema: OpenApiSchema | undefined): string[] =>
      schema?.$ref
        ? properties(resolveSchema(doc, schema))
        : [...Object.keys(schema?.properties ?? {}), ...(schema?.allOf ?? []).flatMap(properties)];
    expect(properties(doc.components.schemas.QuotaExceeded)).toEqual(
      expect.arrayContaining(["error", "message", "request_id", "reset_at", "limit", "used"]),
    );
  });

  it("documents every event a webhook endpoint can receive, with its data and an example", () => {
    expect(documentedEvents(doc)).toEqual([...EVENT_NAMES].sort());
    for (const event of EVENT_NAMES) {
      const delivery = (doc.webhooks?.[event] ?? doc.webhooks?.[`/${event}`])?.post;
      const data = resolveSchema(doc, delivery?.requestBody?.content["application/json"]?.schema?.properties?.data);
      // One object, or (lender.environment_change) one object per `source`, each with its properties.
      const variants = data?.oneOf ?? data?.anyOf ?? [data];
      for (const variant of variants) expect(resolveSchema(doc, variant)?.properties, event).toBeDefined();
      expect(hasExample(doc, delivery?.requestBody?.content["application/json"]), event).toBe(true);
    }
    const agedData = resolveSchema(
      doc,
      doc.webhooks?.["inventory.aged_alert"]?.post.requestBody?.content["application/json"]?.schema?.properties?.data,
    );
    expect(Object.keys(agedData?.properties ?? {})).toEqual(["stock_no", "days_on_lot", "recommendation"]);
  });
});

describe("documentedWebhook", () => {
  it("puts an event in the webhooks section: envelope, data, signature headers and an example", async () => {
    const { request } = createTestApp((app) =>
      app.openAPIRegistry.registerWebhook(
        documentedWebhook({
          event: "test.unit_aged",
          summary: "A unit crossed its store's aged threshold",
          description: "Raised once per crossing.",
          data: z.object({ stock_no: z.string(), days_on_lot: z.int() }).openapi("TestAgedAlertData"),
          example: { stock_no: "S24117", days_on_lot: 46 },
        }),
      ),
    );
    const withEvent = await (await request("/api/openapi.json")).json<OpenApiDocument>();
    expect(documentedEvents(withEvent)).toContain("test.unit_aged");
    const delivery = withEvent.webhooks?.["test.unit_aged"]?.post;
    const body = delivery?.requestBody?.content["application/json"];
    expect(Object.keys(body?.schema?.properties ?? {})).toEqual(["id", "event", "org_id", "store_id", "timestamp", "sample", "data"]);
    expect(body?.example).toMatchObject({ event: "test.unit_aged", data: { stock_no: "S24117", days_on_lot: 46 } });
    expect(delivery?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual([
      "header x-service-signature",
      "header x-service-webhook-id",
      "header x-service-webhook-timestamp",
    ]);
    expect(Object.keys(delivery?.responses ?? {})).toEqual(["200", "410"]);
  });
});
