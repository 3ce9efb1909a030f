import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ReadConsistency } from "../db/client";
import type { AppEnv } from "./app-env";
import { DEFAULT_BODY_LIMIT_BYTES, limitBody, requireJsonBody } from "./body";
import { noStore } from "./cache-control";
import { credentialFloodResponse } from "./credential-failures";
import { documentedError, payloadTooLargeResponse, validationErrorResponse } from "./errors";
import {
  type IdempotencyScope,
  idempotent,
  idempotentFor,
  jsonBodyOrKeyError,
  withIdempotencyKeyHeader,
  withIdempotencyResponses,
} from "./idempotency";
import { actForOrganization, operatorIdempotent, requireOperator } from "./operator-auth";
import { readsFrom } from "./read-consistency";
import { requireStaffOrBroker } from "./staff-credentials";
import { sameOriginStaffWrite } from "./staff-csrf";

/**
 * Who may call a route outside `/api/v1` (whose routes take a key: `v1Route`), and so its
 * credential check, its OpenAPI security and the refusals that check answers.
 */
type Caller =
  /** A staff session cookie (under the CSRF rules) or a broker token; sets `orgManager`. */
  | "staff-or-broker"
  /** The operator token (/api/operator); sets `operatorTokenId`. */
  | "operator"
  /** The operator acting for the organization in the path, as its staff would; sets `orgManager` too. */
  | "operator-for-org"
  /** The staff session cookie only, under the CSRF rules (logout). */
  | "staff-session"
  /** No credential. */
  | "anyone";

interface Credential {
  security: Record<string, string[]>[];
  chain: MiddlewareHandler<AppEnv>[];
  errors: RouteConfig["responses"];
  /** The `Idempotency-Key` scope of the caller's creates. */
  idempotent?: MiddlewareHandler<AppEnv>;
}

const unexpected = { 500: documentedError("Unexpected server error (`internal_error`).") } as const;

/** What `requireStaffOrBroker` answers, for the document of every route behind it. */
const staffOrBrokerErrors = {
  401: documentedError("No session cookie or broker token, or an expired session, or an unknown or revoked broker token (`unauthorized`)."),
  403: documentedError(
    "A cookie-authenticated write without `Content-Type: application/json` or from an Origin not allowed (`forbidden`); the organization is suspended (`organization_suspended`) or a sandbox past its expiry (`sandbox_expired`).",
  ),
  ...credentialFloodResponse,
  ...unexpected,
};

/** What `requireOperator` answers. */
const operatorErrors = {
  401: documentedError("No operator token, a malformed, unknown or revoked one, or any other credential (`unauthorized`)."),
  ...credentialFloodResponse,
  ...unexpected,
};

const operatorSecurity = [{ OperatorToken: [] }];

const CREDENTIALS: Record<Caller, Credential> = {
  "staff-or-broker": {
    security: [{ StaffSession: [] }, { BrokerToken: [] }],
    chain: [requireStaffOrBroker],
    errors: staffOrBrokerErrors,
    idempotent,
  },
  operator: { security: operatorSecurity, chain: [requireOperator], errors: operatorErrors, idempotent: operatorIdempotent },
  "operator-for-org": {
    security: operatorSecurity,
    chain: [requireOperator, actForOrganization],
    errors: { ...operatorErrors, 404: documentedError("No organization with that id, or no store with that id in it (`not_found`).") },
  },
  "staff-session": {
    security: [{ StaffSession: [] }],
    chain: [sameOriginStaffWrite],
    errors: { 403: documentedError("Not `application/json`, or the `Origin` is missing or not allowed (`forbidden`)."), ...unexpected },
  },
  anyone: { security: [], chain: [], errors: unexpected },
};

interface RouteOptions {
  /** Written where the declaration's `security` goes in the document. */
  caller: Caller;
  /** A JSON body of at most 1 MiB (content type and size checked before the handler). */
  body?: boolean;
  /**
   * A create that takes `Idempotency-Key` (docs/idempotency.md), scoped to the caller's
   * organization or operator token; a route of `anyone` names its own scope.
   */
  idempotent?: boolean | IdempotencyScope;
  /** The route's own check after the credential (a burst limit, the login limit). */
  guard?: MiddlewareHandler<AppEnv>;
  /** Where the route's reads start, when not at the primary (docs/consistency.md). */
  reads?: ReadConsistency;
  /**
   * `Cache-Control: no-store` on every answer, refusals included (src/http/cache-control.ts).
   * Always for a caller with a credential; a route of `anyone` says so itself.
   */
  private?: boolean;
}

const OPTION_KEYS = new Set<string>(["caller", "body", "idempotent", "guard", "reads", "private"]);

export type RouteDeclaration = Omit<RouteConfig, "security" | "middleware"> & RouteOptions;

function idempotencyOf(credential: Credential, option: RouteOptions["idempotent"]): MiddlewareHandler<AppEnv> | undefined {
  if (typeof option === "function") return idempotentFor(option);
  if (option && !credential.idempotent) throw new Error("route: this caller's creates name their Idempotency-Key scope");
  return option ? credential.idempotent : undefined;
}

/**
 * One operation outside `/api/v1` from one declaration: its middleware chain (caching, reads,
 * credential, the route's guard, body checks, `Idempotency-Key`), its OpenAPI security and the
 * refusals that chain answers all come from the same options, so the document cannot promise what
 * the chain does not do. The route's own `responses` come after and may say more for a status.
 */
export function route<Declaration extends RouteDeclaration>(declaration: Declaration) {
  const credential = CREDENTIALS[declaration.caller];
  const replays = idempotencyOf(credential, declaration.idempotent);
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(declaration)) {
    if (key === "caller") config.security = credential.security;
    else if (!OPTION_KEYS.has(key)) config[key] = value;
  }
  const bodyErrors = declaration.body
    ? {
        400: replays ? jsonBodyOrKeyError[400] : documentedError("Body missing, not JSON or not sent as `application/json` (`invalid_request`)."),
        ...payloadTooLargeResponse,
        ...validationErrorResponse,
      }
    : {};
  const responses = { ...credential.errors, ...bodyErrors, ...declaration.responses };
  config.middleware = [
    ...(declaration.caller !== "anyone" || declaration.private ? [noStore] : []),
    ...(declaration.reads ? [readsFrom(declaration.reads)] : []),
    ...credential.chain,
    ...(declaration.guard ? [declaration.guard] : []),
    ...(declaration.body ? [limitBody(DEFAULT_BODY_LIMIT_BYTES), requireJsonBody] : []),
    ...(replays ? [replays] : []),
  ];
  if (replays) config.request = withIdempotencyKeyHeader(declaration.request);
  config.responses = replays ? withIdempotencyResponses(responses) : responses;
  // Typed as the route's own: a handler answers its successes, the chain's errors are thrown.
  return createRoute(
    config as Omit<Declaration, keyof RouteOptions> & {
      security: Record<string, string[]>[];
      middleware: MiddlewareHandler<AppEnv>[];
      responses: Declaration["responses"];
    },
  );
}
