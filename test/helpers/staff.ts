import { env } from "cloudflare:workers";
import { hashPassword } from "../../src/credentials/password";
import { BROKER_TOKEN_PREFIX, generateToken, sha256Hex } from "../../src/credentials/tokens";
import { getDb } from "../../src/db/client";
import { brokerTokens, staffUsers } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { call } from "./factories";

/** The one origin the test bindings allow (vitest.config.ts). */
export const STAFF_ORIGIN = "https://staff.example.test";

/**
 * Staff passwords of the fixtures are hashed with 1/80 of the production scrypt work: logins still
 * verify a real scrypt hash (its parameters travel with it) without spending ~0.3 s of CPU on each.
 */
const FIXTURE_SCRYPT = { N: 2 ** 10, r: 8, p: 1 };

export async function createStaffUser(orgId: string, options: { password?: string } = {}) {
  const id = newId("usr");
  const email = `${id.toLowerCase()}@staff.example.test`;
  const password = options.password ?? `pw-${id}`;
  await getDb(env.DB)
    .insert(staffUsers)
    .values({ id, orgId, email, name: `Staff ${id}`, passwordHash: await hashPassword(password, env.PASSWORD_PEPPER, FIXTURE_SCRYPT) });
  return { id, email, password };
}

export async function createBrokerToken(orgId: string, options: { revoked?: boolean } = {}) {
  const token = generateToken(BROKER_TOKEN_PREFIX);
  const id = newId("brk");
  await getDb(env.DB)
    .insert(brokerTokens)
    .values({ id, orgId, tokenHash: await sha256Hex(token), label: "test broker", revokedAt: options.revoked ? new Date().toISOString() : null });
  return { id, token };
}

/** `name=value` of a Set-Cookie header, ready to send back as a Cookie header. */
export function cookiePair(res: Response): string {
  const setCookie = res.headers.get("Set-Cookie") ?? "";
  return setCookie.split(";")[0];
}

export function loginRequest(email: string, password: string, headers: Record<string, string> = {}) {
  return call("/api/auth/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ email, password }),
  });
}

/** Logs in and returns the session cookie (`__Host-session=…`). */
export async function logIn(user: { email: string; password: string }): Promise<string> {
  const res = await loginRequest(user.email, user.password);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return cookiePair(res);
}

/** A same-origin browser request carrying the session cookie, with a JSON body when given one. */
export function staffCall(path: string, cookie: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Cookie: cookie, Origin: STAFF_ORIGIN, ...init.headers };
  if (init.body !== undefined) headers["Content-Type"] ??= "application/json";
  return call(path, {
    method: init.method ?? "GET",
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

export function brokerCall(path: string, token: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return call(path, {
    method: init.method ?? "GET",
    headers: { Authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "Content-Type": "application/json" }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

export async function sessionIdHash(cookie: string): Promise<string> {
  return sha256Hex(cookie.slice(cookie.indexOf("=") + 1));
}

/** Moves a session's stored timestamps into the past, as if time had passed. */
export async function ageSession(cookie: string, ages: { lastSeenMsAgo?: number; expiresMsAgo?: number }) {
  const idHash = await sessionIdHash(cookie);
  const now = Date.now();
  if (ages.lastSeenMsAgo !== undefined) {
    await env.DB.prepare("UPDATE staff_sessions SET last_seen_at = ? WHERE id_hash = ?")
      .bind(new Date(now - ages.lastSeenMsAgo).toISOString(), idHash)
      .run();
  }
  if (ages.expiresMsAgo !== undefined) {
    await env.DB.prepare("UPDATE staff_sessions SET expires_at = ? WHERE id_hash = ?")
      .bind(new Date(now - ages.expiresMsAgo).toISOString(), idHash)
      .run();
  }
}
