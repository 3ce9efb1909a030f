import { type RouteConfig, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { completeIdempotencyKey, findIdempotencyKey, releaseIdempotencyKey, reserveIdempotencyKey } from "../db/queries/idempotency-keys";
import {
  ABANDONED_RESERVATION_MS,
  IDEMPOTENCY_KEY_TTL_MS,
  keepsAnswer,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from "../engines/idempotency/idempotency-key";
import { toHex } from "../lib/hex";
import { describeError, logEvent } from "../lib/log";
import { derivedAesKey, open, seal } from "../lib/sealing";
import type { AppEnv } from "./app-env";
import { ApiError, documentedError } from "./errors";

const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** The answer's headers a replay repeats; the rest (X-Request-Id, quota figures) belong to each request. */
const REPLAYED_HEADERS = ["Content-Type", "Location", "Cache-Control"];

/** Whose keys a request's key is looked up among: the organization of whoever was authenticated. */
export type IdempotencyScope = (c: Context<AppEnv>) => string | undefined;

const organizationScope: IdempotencyScope = (c) => c.get("principal")?.orgId ?? c.get("orgManager")?.orgId;

async function fingerprintOf(c: Context<AppEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const head = new TextEncoder().encode(`${c.req.method} ${url.pathname}${url.search}\n`);
  // Read through HonoRequest, which keeps the bytes for the route's validator and handler.
  const body = new Uint8Array(await c.req.arrayBuffer());
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return toHex(await crypto.subtle.digest("SHA-256", bytes));
}

async function errorCodeOf(response: Response): Promise<string | null> {
  if (response.status < 400) return null;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: unknown } | null;
  return typeof body?.error === "string" ? body.error : null;
}

/**
 * `Idempotency-Key` on a create (docs/idempotency.md; draft-ietf-httpapi-idempotency-key-header,
 * Stripe). List it in a route's `middleware` after the credential and body checks and before the
 * quota, so a replay is not metered; `scope` says whose keys these are (default: the caller's
 * organization). Without the header the request runs as usual.
 *
 * The first request with a key reserves it (the table's primary key: the first writer wins), runs,
 * and its answer is stored (the body encrypted) unless `keepsAnswer` says otherwise, in which case
 * the key is released. A repeat with the same method, path and body gets the stored answer with
 * `Idempotent-Replayed: true`; with anything else 422 `idempotency_key_reused`; while the first is
 * running 409 `idempotency_in_progress`.
 */
const stillRunning = () =>
  new ApiError("idempotency_in_progress", `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry shortly.`, {
    headers: { "Retry-After": "1" },
  });

/**
 * Stored answers are sealed with a key of their own, derived from WEBHOOK_SECRETS_KEY under this
 * label (one secret to manage, and neither kind of row opens under the other's key). Answers
 * stored before it were sealed with the webhook key itself: they no longer open, and count as
 * never stored (`storedAnswer`).
 */
const ANSWERS_KEY_LABEL = "dealer-intel idempotent answers v1";
let answersKey: { master: string; key: Promise<CryptoKey> } | undefined;

function answersKeyOf(c: Context<AppEnv>): Promise<CryptoKey> {
  const master = c.get("config").webhookSecretsKey;
  if (answersKey?.master !== master) answersKey = { master, key: derivedAesKey(master, ANSWERS_KEY_LABEL) };
  return answersKey.key;
}

/** The stored answer's body, or null when it does not open with the answers' key (a row sealed under another key). */
async function storedAnswer(c: Context<AppEnv>, ciphertext: string): Promise<string | null> {
  try {
    return await open(await answersKeyOf(c), ciphertext);
  } catch {
    logEvent("warn", { event: "idempotent_answer_unreadable", request_id: c.get("requestId") });
    return null;
  }
}

export function idempotentFor(scope: IdempotencyScope): MiddlewareHandler<AppEnv> & { takesIdempotencyKey: true } {
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (header === undefined) return next();
    const key = parseIdempotencyKey(header);
    if (key === null) {
      throw new ApiError(
        "invalid_request",
        `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (a UUID is a good choice), bare or as a quoted string.`,
      );
    }
    const owner = scope(c);
    // A route that lists this before its credential check is a wiring mistake, not the client's.
    if (owner === undefined) throw new Error("idempotency middleware ran before the caller was authenticated");

    const db = c.get("db");
    const requestId = c.get("requestId");
    const fingerprint = await fingerprintOf(c);
    const nowMs = Date.now();
    const reservation = { scope: owner, key, fingerprint, requestId, createdAt: new Date(nowMs).toISOString() };
    const abandonedBefore = new Date(nowMs - ABANDONED_RESERVATION_MS).toISOString();
    const reserved = await reserveIdempotencyKey(db, reservation, {
      expiredBefore: new Date(nowMs - IDEMPOTENCY_KEY_TTL_MS).toISOString(),
      abandonedBefore,
    });

    if (!reserved) {
      const stored = await findIdempotencyKey(db, owner, key);
      if (stored && stored.fingerprint !== fingerprint) {
        throw new ApiError(
          "idempotency_key_reused",
          `This ${IDEMPOTENCY_KEY_HEADER} was first used with a different method, path or body; send a new key for a new request.`,
        );
      }
      if (!stored || stored.status === null || stored.responseBodyCiphertext === null) {
        // Running now (or released a moment ago): the client's retry in a second finds it settled.
        throw stillRunning();
      }
      const body = await storedAnswer(c, stored.responseBodyCiphertext);
      if (body !== null) {
        const headers: Record<string, string> = { ...JSON.parse(stored.responseHeaders ?? "{}"), [IDEMPOTENT_REPLAYED_HEADER]: "true" };
        return c.newResponse(body, stored.status as ContentfulStatusCode, headers);
      }
      // A miss: the unreadable answer is taken over as if it had expired, and the request runs anew.
      const takenOver = await reserveIdempotencyKey(db, reservation, { expiredBefore: new Date(nowMs + 1).toISOString(), abandonedBefore });
      if (!takenOver) throw stillRunning();
    }

    try {
      await next();
    } catch (error) {
      await releaseIdempotencyKey(db, owner, key, requestId);
      throw error;
    }
    const response = c.res;
    if (!keepsAnswer(response.status, await errorCodeOf(response))) {
      await releaseIdempotencyKey(db, owner, key, requestId);
      return;
    }
    const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)]] : [])));
    try {
      await completeIdempotencyKey(db, owner, key, requestId, {
        status: response.status,
        responseHeaders: JSON.stringify(headers),
        responseBodyCiphertext: await seal(await answersKeyOf(c), await response.clone().text()),
        completedAt: new Date().toISOString(),
      });
    } catch (error) {
      // The work is done and the client gets its answer; a retry meets 409 until the reservation is abandoned.
      logEvent("error", { event: "idempotency_answer_not_stored", request_id: requestId, ...describeError(error) });
    }
  });
  // Marked, so a test can hold the routes that document the header to the routes that run this.
  return Object.assign(middleware, { takesIdempotencyKey: true as const });
}

/** The middleware for a route whose caller belongs to an organization (API key, broker token, staff session). */
export const idempotent = idempotentFor(organizationScope);

/** The header as a parameter component (registered by the app, `registerParameter`); the middleware checks it. */
export const IdempotencyKeyParameter = z
  .string()
  .optional()
  .openapi("IdempotencyKey", {
    param: { name: IDEMPOTENCY_KEY_HEADER, in: "header" },
    description: `Makes the request safe to retry (docs/idempotency.md): 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, bare or as a quoted string; a UUID per request is the usual choice. A repeat within 24 h with the same method, path and body gets the first answer again (\`${IDEMPOTENT_REPLAYED_HEADER}: true\`), not counted against the quota.`,
    example: "8e03978e-40d5-43e8-bc93-6894a57f9324",
  });

/**
 * For a route's `request.headers`. Only the document reads it: the validator sees header names in
 * lower case, so the middleware is what checks the value.
 */
const IdempotencyKeyHeaders = z.object({ [IDEMPOTENCY_KEY_HEADER]: IdempotencyKeyParameter });

const KEY_REUSED = `the \`${IDEMPOTENCY_KEY_HEADER}\` was first used with a different method, path or body (\`idempotency_key_reused\`)`;
const IN_PROGRESS = `a request with the same \`${IDEMPOTENCY_KEY_HEADER}\` is still being processed (\`idempotency_in_progress\`); retry after \`Retry-After\` seconds`;

type DocumentedResponse = Exclude<RouteConfig["responses"][string], { $ref: string }>;

const capitalized = (sentence: string) => `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;

/** The route's own answer for a status with `addition` after its text, or the addition alone. */
function alongside(own: RouteConfig["responses"][string] | undefined, addition: string): DocumentedResponse {
  return own && !("$ref" in own) ? { ...own, description: `${own.description} Or ${addition}.` } : documentedError(capitalized(addition));
}

/** The 400 of a route that takes a JSON body and an `Idempotency-Key`. */
export const jsonBodyOrKeyError = {
  400: documentedError("Body missing, not JSON or not sent as `application/json`, or a malformed `Idempotency-Key` (`invalid_request`)."),
} as const;

/**
 * A route's `responses` with the answers the middleware adds: 409 while the first request runs,
 * 422 for a key reused on another request, each beside whatever the route already says for them.
 */
export function withIdempotencyResponses<Responses extends RouteConfig["responses"]>(responses: Responses): Responses {
  const inProgress = alongside(responses[409], IN_PROGRESS);
  return {
    ...responses,
    409: { ...inProgress, headers: { ...inProgress.headers, "Retry-After": { description: "Seconds to wait: 1.", schema: { type: "integer" } } } },
    422: alongside(responses[422], KEY_REUSED),
  };
}

/** The route's request with the `Idempotency-Key` header beside any headers it declares. */
export function withIdempotencyKeyHeader(request: RouteConfig["request"]): RouteConfig["request"] {
  const declared = request?.headers;
  if (declared !== undefined && !(declared instanceof z.ZodObject)) throw new Error("declare a route's request.headers as a z.object");
  return { ...request, headers: declared ? declared.extend(IdempotencyKeyHeaders.shape) : IdempotencyKeyHeaders };
}

/** Headers the browser may send and read on routes that take the key (CORS). */
export const IDEMPOTENCY_CORS = { allowHeaders: [IDEMPOTENCY_KEY_HEADER], exposeHeaders: [IDEMPOTENT_REPLAYED_HEADER] } as const;
