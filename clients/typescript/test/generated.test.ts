import { describe, expect, it } from "vitest";
import { idempotentOperations } from "../../../scripts/lib/idempotent-operations";
import { PUBLISHED_ORIGIN } from "../../../src/http/openapi";
import { fetchOpenApiDocument } from "../../../test/helpers/openapi-document";
import committed from "../openapi.json";
import { IDEMPOTENT_OPERATIONS } from "../src/idempotent-operations";

describe("the client's generated types", () => {
  it("come from the document the Worker serves now (else run `npm run client:generate`)", async () => {
    // The generator writes the document for the published origin; the Worker names the origin it answered on.
    expect(committed, "clients/typescript/openapi.json is behind: run `npm run client:generate`").toEqual(
      await fetchOpenApiDocument(PUBLISHED_ORIGIN),
    );
  });

  it("list the operations that take Idempotency-Key, from that document (else run `npm run client:generate`)", () => {
    expect(IDEMPOTENT_OPERATIONS).toEqual(idempotentOperations(committed));
    expect(IDEMPOTENT_OPERATIONS).toContain("POST /api/v1/webhooks");
  });
});
