import { describe, expect, it } from "vitest";
import { createDocumentedApp } from "../../src/app";
import { fetchOpenApiDocument } from "../helpers/openapi-document";

/**
 * The routes that take `Idempotency-Key`, found from the app itself: the document promises the
 * header exactly where the middleware runs, and every create (a POST answering 201) takes it.
 */
const app = await createDocumentedApp();
const doc = await fetchOpenApiDocument();
const honoPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ":$1");
const PARAMETER_REF = "#/components/parameters/IdempotencyKey";

const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, operation })),
);
const documented = operations.filter(({ operation }) => (operation.parameters ?? []).some((p) => (p as { $ref?: string }).$ref === PARAMETER_REF));

function runsTheMiddleware(method: string, path: string): boolean {
  return app.routes.some(
    (route) =>
      route.method === method.toUpperCase() &&
      route.path === honoPath(path) &&
      (route.handler as { takesIdempotencyKey?: boolean }).takesIdempotencyKey === true,
  );
}

describe("routes that take Idempotency-Key", () => {
  it("are documented exactly where the middleware runs", () => {
    expect(documented.length).toBeGreaterThan(0);
    const served = operations.filter(({ method, path }) => runsTheMiddleware(method, path)).map(({ name }) => name);
    expect(documented.map(({ name }) => name).sort()).toEqual(served.sort());
  });

  it("include every create: a POST that answers 201", () => {
    const creates = operations.filter(({ method, operation }) => method === "post" && "201" in operation.responses).map(({ name }) => name);
    expect(creates.length).toBeGreaterThan(0);
    expect(documented.map(({ name }) => name)).toEqual(expect.arrayContaining(creates));
  });

  it.each(documented.map(({ name, operation }) => [name, operation] as const))(
    "%s documents 409 idempotency_in_progress and 422 idempotency_key_reused",
    (_name, operation) => {
      expect(operation.responses["409"]?.description).toContain("idempotency_in_progress");
      expect(operation.responses["422"]?.description).toContain("idempotency_key_reused");
    },
  );
});
