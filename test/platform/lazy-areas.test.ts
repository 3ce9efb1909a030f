import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp, createDocumentedApp } from "../../src/app";
import type { ErrorBody } from "../helpers/bodies";

/**
 * The Worker serves each path from the app of the one area that claims it, built on first use
 * (src/app.ts). Every route of every area, called without a credential, must reach its own route:
 * a path claimed by the wrong area, or by none, answers the stack's 404 ("No endpoint at …") or a 405.
 */
const app = await createDocumentedApp();
const routes = [...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`))];

describe("every route is served by its own area", () => {
  it.each(routes)("%s", async (route) => {
    const [method, path] = route.split(" ");
    const res = await SELF.fetch(`https://api.test${path.replace(/:\w+/g, "x")}`, { method });
    expect(res.status).not.toBe(405);
    if (res.status === 404) expect((await res.json<ErrorBody>()).message).not.toMatch(/^No endpoint at/);
  });
});

describe("an area that cannot be built", () => {
  it("answers 500 in the house error shape, not a bare text", async () => {
    const app = createApp({
      mount: () => {
        throw new Error("a defect in an area's module");
      },
    });
    const res = await app.fetch(new Request("https://api.test/nowhere"), env, {
      waitUntil() {},
      passThroughOnException() {},
      props: {},
    } as unknown as ExecutionContext);
    expect(res.status).toBe(500);
    const body = await res.json<ErrorBody>();
    expect(body).toMatchObject({ error: "internal_error", message: "An unexpected error occurred." });
    expect(res.headers.get("X-Request-Id")).toBe(body.request_id);
  });
});
