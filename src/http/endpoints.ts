/** Endpoint names double as key scopes (DESIGN.md §3). */
export const ENDPOINT_NAMES = [
  "lender-route",
  "stip-check",
  "gross-calc",
  "deal-coach",
  "trade-appraisal",
  "compliance-check",
  "morning-briefing",
  "inventory-alerts",
  "market-pulse",
  "inventory",
  "sales-summary",
  "webhooks",
] as const;

export type EndpointName = (typeof ENDPOINT_NAMES)[number];

/** Successful calls to these count as `deals_through_ai` in the platform statistics. */
export const DEAL_TOOL_ENDPOINTS: ReadonlySet<EndpointName> = new Set([
  "lender-route",
  "stip-check",
  "gross-calc",
  "deal-coach",
  "trade-appraisal",
  "compliance-check",
]);
