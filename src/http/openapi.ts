import { z } from "@hono/zod-openapi";
import { CREDENTIAL_FLOOD_DESCRIPTION } from "./credential-failures";
import { ErrorSchema } from "./errors";
import { LIMIT_HEADER, REMAINING_HEADER, RESET_HEADER } from "./quota";

export const SECURITY_SCHEMES = {
  ServiceApiKey: { type: "apiKey", in: "header", name: "X-Service-API-Key", description: "A `lak_` key; metered against its daily quota." },
  LegacyToken: {
    type: "apiKey",
    in: "header",
    name: "X-Api-Token",
    description: "Deprecated `svc_live_` token, accepted on inventory and sales-summary only, unmetered.",
  },
  BrokerToken: { type: "http", scheme: "bearer", description: "A broker token, bound to one organization, for creating keys." },
  StaffSession: { type: "apiKey", in: "cookie", name: "__Host-session", description: "A staff session from POST /api/auth/login." },
} as const;

export const serviceKeySecurity = [{ ServiceApiKey: [] }];
export const legacySecurity = [{ LegacyToken: [] }];

/** On every metered response, whatever its status. */
export const RATE_LIMIT_HEADERS = {
  [LIMIT_HEADER]: { description: "The key's daily request limit.", schema: { type: "integer" } },
  [REMAINING_HEADER]: { description: "Requests left today (UTC).", schema: { type: "integer" } },
  [RESET_HEADER]: { description: "Next 00:00 UTC, as Unix seconds.", schema: { type: "integer" } },
} as const;

const QuotaExceededSchema = ErrorSchema.extend({
  error: z.literal("daily_rate_limit_reached"),
  message: z.literal("daily rate limit reached"),
  reset_at: z.iso.datetime().openapi({ description: "The next 00:00 UTC, when the quota resets." }),
  limit: z.int().openapi({ description: "The key's daily limit." }),
  used: z.int().openapi({ description: "Requests counted today." }),
}).openapi("QuotaExceeded");

/** The 429s every metered route can return: its quota, or a flood of bad credentials from the caller's address. */
export const meteredResponses = {
  429: {
    description: `The key's daily quota is used up (\`daily_rate_limit_reached\`); resets at 00:00 UTC. Or: ${CREDENTIAL_FLOOD_DESCRIPTION}`,
    headers: { ...RATE_LIMIT_HEADERS, "Retry-After": { description: "Seconds until the reset.", schema: { type: "integer" } } },
    content: { "application/json": { schema: z.union([QuotaExceededSchema, ErrorSchema]) } },
  },
} as const;
