import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call } from "./helpers/factories";

interface ErrorBody {
  error: string;
  message: string;
  request_id: string;
  details?: unknown[];
}

afterEach(() => vi.restoreAllMocks());

describe("error contract", () => {
  it("answers an unknown path with 404 not_found and the request id", async () => {
    const res = await call("/api/v1/no-such-endpoint");
    expect(res.status).toBe(404);
    const body = await res.json<ErrorBody>();
    expect(body).toMatchObject({ error: "not_found" });
    expect(body.request_id).toBe(res.headers.get("X-Request-Id"));
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const res = await call("/api/v1/inventory", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toContain("GET");
    expect(await res.json<ErrorBody>()).toMatchObject({ error: "method_not_allowed" });
  });

  it("gives 405 on the public endpoints too", async () => {
    const res = await call("/api/public/stats", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
  });

  it("answers an unexpected failure with 500 internal_error and nothing but the request id", async () => {
    vi.spyOn(env.DB, "batch").mockRejectedValue(new Error("SQLITE_BUSY: secret table detail"));
    const res = await call("/api/public/stats", { headers: { "CF-Connecting-IP": "203.0.113.50" } });
    expect(res.status).toBe(500);
    const body = await res.json<ErrorBody>();
    expect(body).toEqual({ error: "internal_error", message: "An unexpected error occurred.", request_id: res.headers.get("X-Request-Id") });
    expect(JSON.stringify(body)).not.toContain("SQLITE");
  });

  it("puts X-Request-Id on every response and keeps a caller's own id", async () => {
    const res = await call("/api/moat/public", { headers: { "X-Request-Id": "caller-trace-123" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toBe("caller-trace-123");
  });
});
