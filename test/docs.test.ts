import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "./helpers/factories";

describe("GET /docs", () => {
  it("is the reference page, loading only the Worker's own scripts, under a self-only policy", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const policy = res.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).not.toMatch(/https?:|\*/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(["/docs/scalar.js", "/docs/init.js"]);
    expect(html).not.toMatch(/<script>(?!<)/);
    expect(html).toContain('href="/api/openapi.json"');
  });

  it("opens on a first call that runs as shown against the deployment that serves it, and the plain inventory call as the sample", async () => {
    const document = await (await call("/api/openapi.json")).json<{
      info: { description: string };
      paths: Record<string, { get: { parameters: { example?: unknown }[] } }>;
    }>();
    const description = document.info.description;
    expect(description.indexOf("## First call")).toBeLessThan(description.indexOf("## Getting a key"));
    expect(description).toContain("KEY=$(curl -s -X POST https://api.test/api/sandboxes | jq -r .api_key)");
    expect(description).toContain('curl -H "X-Service-API-Key: $KEY" https://api.test/api/v1/inventory');
    expect(document.paths["/api/v1/inventory"].get.parameters.filter((p) => p.example !== undefined)).toEqual([]);
  });
});

describe("static assets", () => {
  it("serve the reference bundle (copied from node_modules at install), its start-up script and the stats widget", async () => {
    for (const [path, marker] of [
      ["/docs/scalar.js", "createApiReference"],
      ["/docs/init.js", 'url: "/api/openapi.json"'],
      ["/embed/stats.js", "customElements.define(TAG"],
    ]) {
      const res = await env.ASSETS.fetch(`https://api.test${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("Content-Type"), path).toMatch(/javascript/);
      expect(await res.text(), path).toContain(marker);
    }
  });
});
