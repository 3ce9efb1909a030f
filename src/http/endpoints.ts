/** Successful calls to these count as `deals_through_ai` in the platform statistics. */
const DEAL_TOOLS = ["lender-route", "stip-check", "gross-calc", "deal-coach", "trade-appraisal", "compliance-check"] as const;

/** Endpoint names double as key scopes (a key's `scopes`: POST /api/public-api/keys in the OpenAPI document). */
export const ENDPOINT_NAMES = [
  ...DEAL_TOOLS,
  "morning-briefing",
  "inventory-alerts",
  "market-pulse",
  "inventory",
  "sales-summary",
  "webhooks",
  "ingest",
  "vehicles",
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

export const DEAL_TOOL_ENDPOINTS: ReadonlySet<EndpointName> = new Set(DEAL_TOOLS);
