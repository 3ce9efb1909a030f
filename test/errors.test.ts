import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ErrorBody } from "./helpers/bodies";
import { call, createOrg } from "./helpers/factories";
import { createBrokerToken } from "./helpers/staff";

afterEach(() => vi.restoreAllMocks());

describe("error contract", () => {
  it("answers an unknown path with 404 not_found and the request id", async () => {
    const res = await call("/api/v1/no-such-endpoint");
    expect(res.status).toBe(404);
    const body = await res.json<ErrorBody>();
    expect(body).toMatchObject({ error: "not_found" });
    expect(body.request_id).toBe(res.headers.get("X-Request-Id"));
  });

  it("answers a path with a trailing slash as a 308 to the path without it, method and query kept", async () => {
    const res = await call("/api/v1/inventory/?limit=2", { redirect: "manual" });
    expect(res.status).toBe(308);
    expect(res.headers.get("Location")).toBe("/api/v1/inventory?limit=2");
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
    const session = env.DB.withSession("first-primary");
    vi.spyOn(session, "batch").mockRejectedValue(new Error("SQLITE_BUSY: secret table detail"));
    vi.spyOn(env.DB, "withSession").mockReturnValue(session);
    const res = await call("/api/public/stats", { headers: { "CF-Connecting-IP": "203.0.113.50" } });
    expect(res.status).toBe(500);
    const body = await res.json<ErrorBody>();
    expect(body).toEqual({ error: "internal_error", message: "An unexpected error occurred.", request_id: res.headers.get("X-Request-Id") });
    expect(JSON.stringify(body)).not.toContain("SQLITE");
  });

  it("logs the cause of a failed query but never its bound values", async () => {
    const failing = () => Promise.reject(new Error("D1_ERROR: disk I/O error"));
    const statement = { all: failing, raw: failing, first: failing, run: failing, bind: () => statement };
    const session = env.DB.withSession("first-primary");
    vi.spyOn(session, "prepare").mockReturnValue(statement as unknown as D1PreparedStatement);
    vi.spyOn(env.DB, "withSession").mockReturnValue(session);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await call("/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.51" },
      body: JSON.stringify({ email: "victim@corp.example", password: "hunter2-hunter2" }),
    });
    expect(res.status).toBe(500);
    const lines = logged.mock.calls.map((args) => String(args[0])).join("\n");
    expect(lines).toContain("disk I/O error");
    expect(lines).not.toContain("victim@corp.example");
    expect(lines).not.toContain("hunter2");
  });

  it("puts X-Request-Id on every response and keeps a caller's own id", async () => {
    const res = await call("/api/moat/public", { headers: { "X-Request-Id": "caller-trace-123" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toBe("caller-trace-123");
  });

  describe("on a JSON body", async () => {
    const org = await createOrg();
    const { token } = await createBrokerToken(org.id);
    const post = (body: BodyInit | undefined, headers: Record<string, string> = { "Content-Type": "application/json" }) =>
      call("/api/public-api/keys", { method: "POST", headers: { Authorization: `Bearer ${token}`, ...headers }, body });

    it("answers malformed JSON with 400 invalid_request", async () => {
      const res = await post('{"label": "desk",');
      expect(res.status).toBe(400);
      expect(await res.json<ErrorBody>()).toMatchObject({ error: "invalid_request" });
    });

    it("names where malformed JSON stops parsing, by line and column, and never quotes the body", async () => {
      const res = await post('{\n  "label": "desk",\n  "ssn": "123-45-6789",\n}');
      expect(res.status).toBe(400);
      const { message } = await res.json<ErrorBody>();
      expect(message).toContain("line 4, column 1");
      expect(message).not.toContain("6789");
    });

    it("answers a missing body with 400 invalid_request", async () => {
      const res = await post(undefined);
      expect(res.status).toBe(400);
      expect((await res.json<ErrorBody>()).error).toBe("invalid_request");
    });

    it("answers a body that is not JSON with 400 invalid_request", async () => {
      const res = await post("label=desk", { "Content-Type": "application/x-www-form-urlencoded" });
      expect(res.status).toBe(400);
    });

    it("answers a body over 1 MiB with 413 payload_too_large", async () => {
      const res = await post(JSON.stringify({ label: "x", padding: "a".repeat(1024 * 1024) }));
      expect(res.status).toBe(413);
      expect(await res.json<ErrorBody>()).toMatchObject({ error: "payload_too_large" });
    });

    it("answers a schema failure with 422 validation_error and field details", async () => {
      const res = await post(JSON.stringify({ label: "", rate_limit: 0 }));
      expect(res.status).toBe(422);
      const { error, details = [] } = await res.json<ErrorBody>();
      expect(error).toBe("validation_error");
      expect(details.map((d) => d.path).sort()).toEqual(["label", "rate_limit"]);
      for (const detail of details) expect(detail.message).toBeTruthy();
    });
  });
});
