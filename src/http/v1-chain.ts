import { createMiddleware } from "hono/factory";
import { getSessionDb, type ReadConsistency } from "../db/client";
import type { AppEnv } from "./app-env";
import { requireCredential } from "./auth";
import { DEFAULT_BODY_LIMIT_BYTES, limitBody, requireJsonBody, requireJsonOrCsvBody } from "./body";
import type { EndpointName } from "./endpoints";
import { requireIngestCredential } from "./ingest-auth";
import { meterQuota } from "./quota";

export interface V1ChainOptions {
  /** Also accept the deprecated `svc_live_` token (inventory and sales-summary only). */
  legacy?: boolean;
  /** The route takes a JSON body of at most this many bytes (default 1 MiB when `true`). */
  body?: boolean | { maxBytes: number };
  /**
   * Where this route's reads may start. GETs read from the nearest replica already; a POST that
   * only computes from data (the deal tools) sets `nearest-replica` too. Default for bodies: primary.
   */
  reads?: ReadConsistency;
  /**
   * The ingestion endpoints: a broker token or a key with the `ingest` permission, and a JSON or
   * CSV body (the endpoint name must be `ingest`).
   */
  ingest?: boolean;
}

const readFromNearestReplica = createMiddleware<AppEnv>(async (c, next) => {
  c.set("db", getSessionDb(c.env.DB, "nearest-replica"));
  await next();
});

/**
 * Every answer of an authenticated route is the caller's own (its organization's data, its quota
 * figures), so no shared or browser cache may keep it. Set after the rest of the chain, so it
 * covers the refusals (401, 403, 400, 404, 422, 429) as well as the successes.
 */
const noStore = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  c.res.headers.set("Cache-Control", "no-store");
});

/**
 * The whole middleware chain of an `/api/v1/*` route, in order: `Cache-Control: no-store` on
 * whatever it answers, credential and scope, the daily quota, then for a body the size limit and
 * the JSON content type. Every v1 route uses it, so none can forget a step.
 */
export function v1Chain(endpoint: EndpointName, options: V1ChainOptions = {}) {
  const chain = [noStore, options.ingest ? requireIngestCredential : requireCredential(endpoint, { legacy: options.legacy }), meterQuota];
  if (options.body) {
    const maxBytes = options.body === true ? DEFAULT_BODY_LIMIT_BYTES : options.body.maxBytes;
    chain.push(limitBody(maxBytes), options.ingest ? requireJsonOrCsvBody : requireJsonBody);
    if (options.reads === "nearest-replica") chain.push(readFromNearestReplica);
  }
  return chain;
}
