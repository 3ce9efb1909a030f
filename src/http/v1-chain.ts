import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ReadConsistency } from "../db/client";
import type { AppEnv } from "./app-env";
import { requireCredential } from "./auth";
import { DEFAULT_BODY_LIMIT_BYTES, limitBody, requireJsonBody, requireJsonOrCsvBody } from "./body";
import { noStore } from "./cache-control";
import type { EndpointName } from "./endpoints";
import { idempotent as replayRepeatedCreates, withIdempotencyKeyHeader, withIdempotencyResponses } from "./idempotency";
import { requireIngestCredential } from "./ingest-auth";
import { RATE_LIMIT_HEADERS, v1ErrorResponses, v1Security } from "./openapi";
import { meterQuota } from "./quota";
import { readsFrom } from "./read-consistency";

export interface V1ChainOptions {
  /**
   * Where this route's reads start (docs/consistency.md): `nearest-replica` for reads and for POSTs
   * that only compute from data (the deal tools), `primary` for writes and whatever must see them.
   */
  reads: ReadConsistency;
  /** Also accept the deprecated `svc_live_` token (inventory and sales-summary only). */
  legacy?: boolean;
  /** The route takes a JSON body of at most this many bytes (default 1 MiB when `true`). */
  body?: boolean | { maxBytes: number };
  /**
   * The ingestion endpoints: a broker token or a key with the `ingest` permission, and a JSON or
   * CSV body (the endpoint name must be `ingest`).
   */
  ingest?: boolean;
  /**
   * A create that takes `Idempotency-Key` (docs/idempotency.md). The body checks then run before
   * the quota, so that the key's fingerprint is taken from a bounded body and a replay is answered
   * without being metered.
   */
  idempotent?: boolean;
}

/**
 * The whole middleware chain of an `/api/v1/*` route, in order: `Cache-Control: no-store` on
 * whatever it answers, the D1 session its reads start in, credential and scope, the daily quota,
 * then for a body the size limit and the content type. On a create that takes `Idempotency-Key`
 * the body checks and the key come before the quota, so a replay is not metered. Declared through
 * `v1Route`, so none can forget a step and the document says what it does.
 */
function v1Chain(endpoint: EndpointName, options: V1ChainOptions) {
  const bodyChecks: MiddlewareHandler<AppEnv>[] = [];
  if (options.body) {
    const maxBytes = options.body === true ? DEFAULT_BODY_LIMIT_BYTES : options.body.maxBytes;
    bodyChecks.push(limitBody(maxBytes), options.ingest ? requireJsonOrCsvBody : requireJsonBody);
  }
  return [
    noStore,
    readsFrom(options.reads),
    options.ingest ? requireIngestCredential : requireCredential(endpoint, { legacy: options.legacy }),
    ...(options.idempotent ? [...bodyChecks, replayRepeatedCreates, meterQuota] : [meterQuota, ...bodyChecks]),
  ];
}

/** Statuses the chain answers itself: a route documents them through its options, never by hand. */
type ChainStatus = 400 | 401 | 403 | 413 | 429 | 500;
type OwnResponses = RouteConfig["responses"] & { [S in ChainStatus]?: never };

export type V1RouteDeclaration = Omit<RouteConfig, "security" | "middleware" | "responses"> &
  V1ChainOptions & {
    /** The endpoint name, which is also the key scope it needs (src/http/endpoints.ts). */
    endpoint: EndpointName;
    /** The route's own answers: its successes and the errors its handler raises (e.g. 404). */
    responses: OwnResponses;
  };

/** Every success carries the quota figures the chain set (docs/quota.md). */
function withRateLimitHeaders<Responses extends RouteConfig["responses"]>(responses: Responses): Responses {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) =>
      status.startsWith("2") && !("$ref" in response)
        ? [status, { ...response, headers: { ...RATE_LIMIT_HEADERS, ...response.headers } }]
        : [status, response],
    ),
  ) as Responses;
}

/**
 * One `/api/v1` operation from one declaration: its middleware chain, OpenAPI security and the
 * errors and rate-limit headers the chain produces all come from the same options, so the document
 * cannot promise what the chain does not do.
 */
export function v1Route<Declaration extends V1RouteDeclaration>(declaration: Declaration) {
  const { endpoint, reads, legacy, body, ingest, idempotent, responses, ...route } = declaration;
  const options = { reads, legacy, body, ingest, idempotent };
  const chainAndOwn = { ...v1ErrorResponses(options), ...withRateLimitHeaders(responses) };
  const config: Omit<Declaration, keyof V1ChainOptions | "endpoint" | "responses"> & {
    security: Record<string, string[]>[];
    middleware: MiddlewareHandler<AppEnv>[];
    responses: Declaration["responses"];
  } = {
    ...route,
    ...(idempotent ? { request: withIdempotencyKeyHeader(route.request) } : {}),
    security: v1Security(options),
    middleware: v1Chain(endpoint, options),
    // Typed as the route's own: a handler answers its successes, the chain's errors are thrown.
    responses: (idempotent ? withIdempotencyResponses(chainAndOwn) : chainAndOwn) as Declaration["responses"],
  };
  return createRoute(config);
}
