import { exports } from "cloudflare:workers";
import type { AppRouter } from "../../src/http/router";

export interface OpenApiSchema {
  $ref?: string;
  example?: unknown;
  properties?: Record<string, OpenApiSchema>;
  allOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
}

interface MediaType {
  schema?: OpenApiSchema;
  example?: unknown;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}

export interface OpenApiDocument {
  openapi: string;
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  webhooks?: Record<string, Record<string, OpenApiOperation>>;
  components: {
    securitySchemes: Record<string, { type: string; name?: string; in?: string }>;
    schemas: Record<string, OpenApiSchema>;
  };
}

/** The document as the Worker serves it at `origin` (its `servers` names that origin). */
export async function fetchOpenApiDocument(origin = "https://api.test"): Promise<OpenApiDocument> {
  const res = await exports.default.fetch(`${origin}/api/openapi.json`);
  return res.json<OpenApiDocument>();
}

/** `METHOD /path/{param}` for every API route the app serves (pages such as /docs are not API routes). */
export function servedApiRoutes(app: AppRouter): string[] {
  const routes = app.routes
    .filter((r) => r.method !== "ALL" && (r.path.startsWith("/api/") || r.path === "/health") && r.path !== "/api/openapi.json")
    .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
  return [...new Set(routes)].sort();
}

export function documentedRoutes(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
    .sort();
}

/** The event names the document's `webhooks` section describes. */
export function documentedEvents(doc: OpenApiDocument): string[] {
  return Object.keys(doc.webhooks ?? {})
    .map((name) => name.replace(/^\//, ""))
    .sort();
}

export function resolveSchema(doc: OpenApiDocument, schema: OpenApiSchema | undefined): OpenApiSchema | undefined {
  if (!schema?.$ref) return schema;
  return resolveSchema(doc, doc.components.schemas[schema.$ref.split("/").at(-1) ?? ""]);
}

/** An example at the media type or on its (referenced) schema: what the reference page shows. */
export function hasExample(doc: OpenApiDocument, media: MediaType | undefined): boolean {
  if (!media) return false;
  return media.example !== undefined || resolveSchema(doc, media.schema)?.example !== undefined;
}
