import { z } from "@hono/zod-openapi";
import { documentedError } from "../../http/errors";
import { limitLoginAttempts } from "../../http/login-limit";
import { route } from "../../http/route";

const LogInSchema = z
  .object({
    email: z.string().trim().toLowerCase().min(1).max(254).openapi({ example: "desk@summit-auto.example" }),
    password: z.string().min(1).max(1024),
  })
  .openapi("LogInRequest", { example: { email: "desk@summit-auto.example", password: "correct horse battery staple" } });

const StaffSessionSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    org_id: z.string(),
    expires_at: z.iso.datetime().openapi({
      description: "Absolute end of the session. It also ends after 30 minutes without a request, or at logout.",
    }),
  })
  .openapi("StaffSession", {
    example: {
      user: { id: "usr_summit_desk", email: "desk@summit-auto.example", name: "Dana Whitfield" },
      org_id: "org_summit",
      expires_at: "2026-11-26T21:30:00.000Z",
    },
  });

export const logIn = route({
  method: "post",
  path: "/api/auth/login",
  operationId: "logIn",
  tags: ["Staff session"],
  summary: "Log a staff member in",
  caller: "anyone",
  description:
    "Sets the `__Host-session` cookie (HttpOnly, Secure, SameSite=Lax). Any session the browser already held is ended, so every login gets a fresh session id.",
  guard: limitLoginAttempts,
  body: true,
  // The answer carries the new session (its cookie); the refusals say whether a password was right.
  private: true,
  request: { body: { content: { "application/json": { schema: LogInSchema } }, required: true } },
  responses: {
    200: {
      description: "Logged in.",
      headers: { "Set-Cookie": { description: "`__Host-session=…; Path=/; Secure; HttpOnly; SameSite=Lax`", schema: { type: "string" } } },
      content: { "application/json": { schema: StaffSessionSchema } },
    },
    401: documentedError("Unknown email or wrong password; the two are not told apart (`unauthorized`)."),
    403: documentedError("The right password, but the organization is suspended (`organization_suspended`)."),
    429: documentedError("Too many login attempts from this client or for this account (`rate_limited`)."),
  },
});

export const logOut = route({
  method: "post",
  path: "/api/auth/logout",
  operationId: "logOut",
  tags: ["Staff session"],
  summary: "End the staff session",
  description:
    "Deletes the session and expires the cookie. Answers 204 whether or not a session was live. Like every cookie-authenticated write it must carry `Content-Type: application/json` and an allowed `Origin`.",
  caller: "staff-session",
  responses: { 204: { description: "Logged out." } },
});
