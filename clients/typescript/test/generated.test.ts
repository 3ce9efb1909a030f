import { describe, expect, it } from "vitest";
import { fetchOpenApiDocument } from "../../../test/helpers/openapi-document";
import committed from "../openapi.json";

describe("the client's generated types", () => {
  it("come from the document the Worker serves now (else run `npm run client:generate`)", async () => {
    expect(committed, "clients/typescript/openapi.json is behind: run `npm run client:generate`").toEqual(await fetchOpenApiDocument());
  });
});
