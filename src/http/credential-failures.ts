import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import { TtlCache } from "../lib/ttl-cache";
import type { AppEnv } from "./app-env";
import { ApiError, documentedError } from "./errors";

/**
 * A forged but well-formed credential passes the format check and costs a D1 lookup. Failed
 * lookups are counted per client address with PUBLIC_RATE_LIMITER (wrangler.toml: 120 a minute),
 * and an address over it is refused with 429 before any lookup for a minute. Only failures call
 * the binding: a valid credential, cached or not, never pays for it.
 */
export const CREDENTIAL_FAILURES_PER_MINUTE = 120;
const CREDENTIAL_FAILURE_WINDOW_SECONDS = 60;

export const CREDENTIAL_FLOOD_DESCRIPTION = `More than ${CREDENTIAL_FAILURES_PER_MINUTE} unknown or revoked credentials in a minute from this client address (\`rate_limited\`, \`Retry-After: ${CREDENTIAL_FAILURE_WINDOW_SECONDS}\`): credentials this instance has not already verified are refused for a minute.`;

/** Addresses this isolate has seen go over the limit, so their next lookups cost nothing at all. */
const refusedClients = new TtlCache<true>({ ttlMs: CREDENTIAL_FAILURE_WINDOW_SECONDS * 1000, maxEntries: 10_000 });

/** The caller's address as Cloudflare reports it. */
export const clientAddress = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP") ?? "unknown-client";

/** The leading bytes of an IPv6 address a per-client limit keeps: its /64. */
const IPV6_NETWORK_BYTES = 8;

/**
 * The client a per-client limit counts (docs/sandboxes.md#limits): an IPv4 address as it is, an
 * IPv6 address by its /64 (`2001:db8:1:2::/64`), as rate limiters commonly do: one subscriber is
 * routinely given a whole /64 or more (RFC 6177), so counting exact IPv6 addresses would give one
 * client 2^64 allowances. An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function limitedClient(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const bytes = parsed.toByteArray().map((byte, i) => (i < IPV6_NETWORK_BYTES ? byte : 0));
  return `${ipaddr.fromByteArray(bytes).toString()}/${IPV6_NETWORK_BYTES * 8}`;
}

const tooManyFailures = () =>
  new ApiError("rate_limited", "Too many unknown or revoked credentials from this client; try again in a minute.", {
    headers: { "Retry-After": String(CREDENTIAL_FAILURE_WINDOW_SECONDS) },
  });

/** Throws 429 if this client went over the limit of failed lookups; call it before a credential lookup. */
export function assertCredentialLookupAllowed(c: Context<AppEnv>, nowMs: number): void {
  if (refusedClients.peek(clientAddress(c), nowMs)) throw tooManyFailures();
}

/** Counts a lookup that found nothing; throws 429 once this client is over the limit. */
export async function countFailedCredentialLookup(c: Context<AppEnv>, nowMs: number): Promise<void> {
  const client = clientAddress(c);
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: `credential-failure:${client}` });
  if (success) return;
  refusedClients.set(client, true, nowMs);
  throw tooManyFailures();
}

/** The 429 of every route that looks a credential up, for the OpenAPI document. */
export const credentialFloodResponse = { 429: documentedError(CREDENTIAL_FLOOD_DESCRIPTION) } as const;
