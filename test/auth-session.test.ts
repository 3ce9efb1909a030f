import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { hashPassword } from "../src/credentials/password";
import { DUMMY_PASSWORD_HASH } from "../src/routes/auth/auth.service";
import type { ApiKeyListSchema } from "../src/routes/keys/keys.routes";
import type { ErrorBody } from "./helpers/bodies";
import { call, createOrg } from "./helpers/factories";
import { ageSession, cookiePair, createStaffUser, logIn, loginRequest, STAFF_ORIGIN, sessionIdHash, staffCall } from "./helpers/staff";

const KEYS = "/api/public-api/keys";

async function sessionRow(cookie: string) {
  return env.DB.prepare("SELECT user_id, org_id, last_seen_at, expires_at FROM staff_sessions WHERE id_hash = ?")
    .bind(await sessionIdHash(cookie))
    .first<{ user_id: string; org_id: string; last_seen_at: string; expires_at: string }>();
}

describe("POST /api/auth/login", () => {
  it("sets a __Host- session cookie and stores only the session id's hash", async () => {
    const org = await createOrg();
    const user = await createStaffUser(org.id);
    const res = await loginRequest(user.email, user.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { id: user.id, email: user.email }, org_id: org.id, expires_at: expect.any(String) });
    expect(res.headers.get("Cache-Control")).toBe("no-store");

    const setCookie = res.headers.get("Set-Cookie") ?? "";
    const attributes = setCookie.split(";").map((part) => part.trim());
    expect(attributes[0]).toMatch(/^__Host-session=[0-9A-Za-z]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(["Path=/", "Secure", "HttpOnly", "SameSite=Lax", "Max-Age=43200"]));
    expect(setCookie).not.toMatch(/Domain=/i);

    const cookie = cookiePair(res);
    const row = await sessionRow(cookie);
    expect(row).toMatchObject({ user_id: user.id, org_id: org.id });
    const rawId = cookie.split("=")[1];
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM staff_sessions WHERE id_hash = ?").bind(rawId).first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it("matches the email case-insensitively", async () => {
    const user = await createStaffUser((await createOrg()).id);
    expect((await loginRequest(user.email.toUpperCase(), user.password)).status).toBe(200);
  });

  it("finds a staff user whose stored address has capitals", async () => {
    const user = await createStaffUser((await createOrg()).id);
    await env.DB.prepare("UPDATE staff_users SET email = ? WHERE id = ?").bind(user.email.replace(/^usr/, "Usr"), user.id).run();
    expect((await loginRequest(user.email, user.password)).status).toBe(200);
  });

  it("slows password guessing on one account, whatever the client address", { timeout: 60_000 }, async () => {
    // The limiter counts windows aligned to the clock's minutes: not in a window's last seconds, so
    // the twelve logins (fixture hashes: well under a second) cannot straddle two on a loaded machine.
    const secondsLeft = 60 - ((Date.now() / 1000) % 60);
    if (secondsLeft < 10) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 100));
    const user = await createStaffUser((await createOrg()).id);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await loginRequest(user.email, `guess-${i}`, { "CF-Connecting-IP": `198.18.0.${i + 1}` });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const limited = await loginRequest(user.email, user.password, { "CF-Connecting-IP": "198.18.1.1" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(await limited.json<ErrorBody>()).toMatchObject({ error: "rate_limited" });
    const other = await createStaffUser((await createOrg()).id);
    expect((await loginRequest(other.email, other.password, { "CF-Connecting-IP": "198.18.1.1" })).status).toBe(200);
  });

  it("answers a wrong password and an unknown email with the same 401", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const wrong = await loginRequest(user.email, "not-the-password");
    const unknown = await loginRequest("nobody@staff.example.test", user.password);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const strip = ({ request_id: _, ...rest }: ErrorBody) => rest;
    expect(strip(await unknown.json<ErrorBody>())).toEqual(strip(await wrong.json<ErrorBody>()));
    expect(wrong.headers.get("Set-Cookie")).toBeNull();
  });

  it("refuses a body of the wrong shape with 422 and a non-JSON body with 400", async () => {
    const missing = await call("/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "a@b.c" }),
    });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ error: "validation_error", details: [expect.objectContaining({ path: "password" })] });
    const form = await call("/api/auth/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=a&password=b",
    });
    expect(form.status).toBe(400);
  });

  it("rotates the session: logging in again ends the session the browser held", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const first = await logIn(user);
    const res = await loginRequest(user.email, user.password, { Cookie: first });
    expect(res.status).toBe(200);
    const second = cookiePair(res);
    expect(second).not.toBe(first);
    expect(await sessionRow(first)).toBeNull();
    expect((await staffCall(KEYS, first)).status).toBe(401);
    expect((await staffCall(KEYS, second)).status).toBe(200);
  });

  it("uses a dummy hash with the parameters real hashes get, so unknown emails cost the same", async () => {
    const params = (hash: string) => hash.split("$").slice(0, 4).join("$");
    expect(params(DUMMY_PASSWORD_HASH)).toBe(params(await hashPassword("x", env.PASSWORD_PEPPER)));
  });
});

describe("session lifetime", () => {
  it("authenticates the key routes while live", async () => {
    const user = await createStaffUser((await createOrg()).id);
    expect((await staffCall(KEYS, await logIn(user))).status).toBe(200);
  });

  it("ends after 30 idle minutes, and the lapsed row is removed", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    await ageSession(cookie, { lastSeenMsAgo: 31 * 60_000 });
    const res = await staffCall(KEYS, cookie);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "unauthorized" });
    expect(await sessionRow(cookie)).toBeNull();
  });

  it("ends at the absolute expiry even when in use", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    await ageSession(cookie, { expiresMsAgo: 1_000 });
    expect((await staffCall(KEYS, cookie)).status).toBe(401);
  });

  it("slides the idle clock, but writes it at most once a minute", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);

    await ageSession(cookie, { lastSeenMsAgo: 20_000 });
    const recent = (await sessionRow(cookie))?.last_seen_at;
    expect((await staffCall(KEYS, cookie)).status).toBe(200);
    expect((await sessionRow(cookie))?.last_seen_at).toBe(recent);

    await ageSession(cookie, { lastSeenMsAgo: 25 * 60_000 });
    const before = Date.now();
    expect((await staffCall(KEYS, cookie)).status).toBe(200);
    expect(Date.parse((await sessionRow(cookie))?.last_seen_at ?? "")).toBeGreaterThanOrEqual(before - 1_000);
  });

  it("ignores a malformed cookie value", async () => {
    expect((await staffCall(KEYS, "__Host-session=not-a-session")).status).toBe(401);
  });
});

describe("POST /api/auth/logout", () => {
  it("deletes the session and expires the cookie", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    const res = await staffCall("/api/auth/logout", cookie, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(204);
    const setCookie = res.headers.get("Set-Cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-session=;/);
    expect(setCookie).toContain("Max-Age=0");
    expect(await sessionRow(cookie)).toBeNull();
    expect((await staffCall(KEYS, cookie)).status).toBe(401);
  });

  it("is refused without an allowed Origin or as text/plain, and the session stays live", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    const noOrigin = await call("/api/auth/logout", { method: "POST", headers: { Cookie: cookie, "Content-Type": "application/json" } });
    expect(noOrigin.status).toBe(403);
    expect((await noOrigin.json<{ message: string }>()).message).toContain("STAFF_ALLOWED_ORIGINS");
    const plain = await staffCall("/api/auth/logout", cookie, { method: "POST", headers: { "Content-Type": "text/plain" } });
    expect(plain.status).toBe(403);
    expect((await staffCall(KEYS, cookie)).status).toBe(200);
  });
});

describe("CSRF rules on cookie-authenticated writes", () => {
  const body = JSON.stringify({ label: "csrf probe" });

  it("refuses a POST without an Origin, from a foreign Origin, or not as application/json", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    const cases: Record<string, string>[] = [
      { "Content-Type": "application/json" },
      { "Content-Type": "application/json", Origin: "https://evil.example" },
      { "Content-Type": "text/plain", Origin: STAFF_ORIGIN },
      { "Content-Type": "application/x-www-form-urlencoded", Origin: STAFF_ORIGIN },
    ];
    for (const headers of cases) {
      const res = await call(KEYS, { method: "POST", headers: { Cookie: cookie, ...headers }, body });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ error: "forbidden" });
    }
    const listed = await (await staffCall(KEYS, cookie)).json<z.infer<typeof ApiKeyListSchema>>();
    expect(listed.count).toBe(0);
  });

  it("refuses a DELETE from a foreign Origin", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const cookie = await logIn(user);
    const res = await call(`${KEYS}/key_whatever`, { method: "DELETE", headers: { Cookie: cookie, Origin: "https://evil.example" } });
    expect(res.status).toBe(403);
  });

  it("allows reads without an Origin", async () => {
    const user = await createStaffUser((await createOrg()).id);
    const res = await call(KEYS, { headers: { Cookie: await logIn(user) } });
    expect(res.status).toBe(200);
  });
});

describe("CORS on the staff routes", () => {
  const preflight = (origin: string) =>
    call(KEYS, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });

  it("allows the configured origin, with credentials", async () => {
    const res = await preflight(STAFF_ORIGIN);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(STAFF_ORIGIN);
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBe("true");
  });

  it("gives any other origin no CORS grant at all", async () => {
    const res = await preflight("https://evil.example");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
  });
});
