import type { KeyMode } from "../credentials/tokens";
import type { Refusal } from "../engines/quota/standing";
import { ApiError, unauthorized } from "./errors";

/** What every credential check learns about the organization behind the credential. */
export interface OrgStanding {
  suspendedAt: string | null;
  isSandbox: boolean;
  expiresAt: string | null;
}

/**
 * A suspended organization, or a sandbox past its expiry, is refused whatever the credential
 * (key, broker token, staff session). Expiry is compared with `nowMs` at each request, so an
 * expired sandbox is refused before the purge runs, even from a cached key record.
 */
export function assertOrgInStanding(org: OrgStanding, nowMs: number): void {
  if (org.suspendedAt !== null) throw refusalError("suspended");
  if (org.isSandbox && org.expiresAt !== null && Date.parse(org.expiresAt) <= nowMs) {
    throw new ApiError("sandbox_expired", `This sandbox expired at ${org.expiresAt}; create a new one with POST /api/sandboxes.`);
  }
}

/** Test keys reach sandboxes only and live keys live organizations only, whatever a row says. */
export function assertKeyModeMatches(mode: KeyMode, org: OrgStanding): void {
  if (mode === "test" && !org.isSandbox) throw unauthorized("A lak_test_ key works on a sandbox only; use a lak_ key for a live organization.");
  if (mode === "live" && org.isSandbox) throw unauthorized("This organization is a sandbox; it is reached with lak_test_ keys only.");
}

/** One answer per refusal, whether the key's record or its quota counter said it (docs/consistency.md). */
export function refusalError(refusal: Refusal | "unknown"): ApiError {
  switch (refusal) {
    case "unknown":
    case "revoked":
      return unauthorized("This API key is unknown or has been revoked.");
    case "rotated":
      return unauthorized("This API key was rotated and its overlap has ended: use the key that replaced it.");
    case "suspended":
      return new ApiError("organization_suspended", "This organization is suspended; contact the operator of this service.");
  }
}
