import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import wranglerToml from "../../wrangler.toml?raw";
import { createTestApp } from "../helpers/test-app";

afterEach(() => vi.restoreAllMocks());

/** The first request of a Worker deployed with these vars, and what it logged. */
async function firstRequestWith(overrides: Partial<Record<"PASSWORD_PEPPER" | "STAFF_ALLOWED_ORIGINS", string | undefined>>) {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const { request } = createTestApp(undefined, { ...env, ...overrides } as Env);
  const res = await request("/api/moat/public", { headers: { "CF-Connecting-IP": "198.51.100.60" } });
  return { res, log: logged.mock.calls.map((args) => String(args[0])).join("\n") };
}

describe("Worker configuration is checked at the first request", () => {
  it.each([
    ["a missing PASSWORD_PEPPER", { PASSWORD_PEPPER: undefined }, "PASSWORD_PEPPER"],
    ["a short PASSWORD_PEPPER", { PASSWORD_PEPPER: "short-secret" }, "PASSWORD_PEPPER"],
    ["a malformed STAFF_ALLOWED_ORIGINS", { STAFF_ALLOWED_ORIGINS: "https://ok.example, not an origin/secret-path" }, "STAFF_ALLOWED_ORIGINS"],
    ["a STAFF_ALLOWED_ORIGINS with a path", { STAFF_ALLOWED_ORIGINS: "https://staff.example/app" }, "STAFF_ALLOWED_ORIGINS"],
  ])("%s: the 500 contract body, and a log line naming the variable but not its value", async (_name, overrides, variable) => {
    const { res, log } = await firstRequestWith(overrides);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: "internal_error",
      message: "An unexpected error occurred.",
      request_id: res.headers.get("X-Request-Id"),
    });
    expect(log).toContain("invalid_configuration");
    expect(log).toContain(variable);
    for (const value of Object.values(overrides)) if (value) expect(log).not.toContain(value);
    for (const other of ["PASSWORD_PEPPER", "STAFF_ALLOWED_ORIGINS"].filter((name) => name !== variable)) expect(log).not.toContain(other);
  });

  it("names both variables when both are wrong", async () => {
    const { res, log } = await firstRequestWith({ PASSWORD_PEPPER: undefined, STAFF_ALLOWED_ORIGINS: "" });
    expect(res.status).toBe(500);
    expect(log).toContain("PASSWORD_PEPPER");
    expect(log).toContain("STAFF_ALLOWED_ORIGINS");
  });

  it("lets the test configuration through", async () => {
    const { res, log } = await firstRequestWith({});
    expect(res.status).toBe(200);
    expect(log).toBe("");
  });
});

describe("production is observable (wrangler.toml)", () => {
  it("keeps every log line in Workers Logs and uploads source maps for readable stack traces", () => {
    expect(wranglerToml).toMatch(/^upload_source_maps = true$/m);
    expect(wranglerToml).toMatch(/^\[observability\]\nenabled = true\nhead_sampling_rate = 1$/m);
  });
});
