import { requireCredential } from "./auth";
import type { EndpointName } from "./endpoints";
import { meterQuota } from "./quota";

/** The middleware chain of every `/api/v1/*` route: authenticate, check scope, count against the quota. */
export function guard(endpoint: EndpointName, options: { legacy?: boolean } = {}) {
  return [requireCredential(endpoint, options), meterQuota];
}
