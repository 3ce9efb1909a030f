/**
 * Every operation the OpenAPI document lists, and how the benchmarks cover it: the request-rate
 * bench's scenarios (and through them `npm run bench:latency`), a bulk measurement, or the reason
 * it has none. test/unit/bench-coverage.test.ts holds this list to the document, so a new
 * operation cannot go unbenchmarked unnoticed.
 */
export type Coverage = { scenarios: string[] } | { measurement: string } | { none: string };

const STAFF =
  "a staff or operator screen, called by a person a few times a day: its round trips are in the table of the endpoint it shares a query with, not measured alone";
const WEBHOOK_ADMIN = "endpoint management, called when a dealer configures a webhook, not per deal; deliveries are measured (webhook_delivery)";

export const BENCH_COVERAGE: Record<string, Coverage> = {
  "GET /health": { scenarios: ["health"] },
  "GET /api/public/stats": { scenarios: ["public_stats"] },
  "GET /api/moat/public": { scenarios: ["public_moat"] },
  "GET /api/v1/inventory": { scenarios: ["metered_v1", "unmetered_v1", "inventory_page", "inventory_changes"] },
  "GET /api/v1/sales-summary": { scenarios: ["sales_summary"] },
  "POST /api/auth/login": { none: `${STAFF}; its cost is the password hash (scrypt), by design` },
  "POST /api/auth/logout": { none: STAFF },
  "POST /api/public-api/keys": { none: STAFF },
  "GET /api/public-api/keys": { none: STAFF },
  "DELETE /api/public-api/keys/{id}": { none: STAFF },
  "POST /api/public-api/keys/{id}/rotate": { none: STAFF },
  "GET /api/settings/stores": { scenarios: ["settings_stores"] },
  "GET /api/operator/organizations/{org_id}/settings/stores": { none: STAFF },
  "GET /api/settings/stores/{store_id}": { none: STAFF },
  "PATCH /api/settings/stores/{store_id}": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/settings/stores/{store_id}": { none: STAFF },
  "PATCH /api/operator/organizations/{org_id}/settings/stores/{store_id}": { none: STAFF },
  "GET /api/settings/stores/{store_id}/lender-panel": { none: STAFF },
  "PUT /api/settings/stores/{store_id}/lender-panel": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/settings/stores/{store_id}/lender-panel": { none: STAFF },
  "PUT /api/operator/organizations/{org_id}/settings/stores/{store_id}/lender-panel": { none: STAFF },
  "GET /api/settings/compliance": { none: STAFF },
  "PATCH /api/settings/compliance": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/settings/compliance": { none: STAFF },
  "PATCH /api/operator/organizations/{org_id}/settings/compliance": { none: STAFF },
  "GET /api/settings/audit": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/settings/audit": { none: STAFF },
  "GET /api/v1/inventory-alerts": { scenarios: ["inventory-alerts"] },
  "POST /api/v1/morning-briefing": { scenarios: ["morning-briefing"] },
  "GET /api/v1/market-pulse": { scenarios: ["market-pulse"] },
  "POST /api/v1/compliance-check": { scenarios: ["compliance_pass", "compliance_hold"] },
  "GET /api/v1/compliance-checks/{check_id}": {
    none: "an audit lookup by id, one indexed read like settings_stores (metered_read is its floor); not yet a scenario: the bench has no check id before its first run",
  },
  "POST /api/v1/lender-route": { scenarios: ["lender_route"] },
  "POST /api/v1/stip-check": { scenarios: ["stip_check"] },
  "POST /api/v1/gross-calc": { scenarios: ["gross_calc"] },
  "POST /api/v1/deal-coach": { scenarios: ["deal_coach"] },
  "POST /api/v1/trade-appraisal": { scenarios: ["trade_appraisal", "trade_appraisal_photos"] },
  "GET /api/v1/vehicles/{vin}": { scenarios: ["vehicle_decode"] },
  "POST /api/v1/webhooks": { none: WEBHOOK_ADMIN },
  "GET /api/v1/webhooks": { none: WEBHOOK_ADMIN },
  "GET /api/v1/webhooks/{id}": { none: WEBHOOK_ADMIN },
  "PATCH /api/v1/webhooks/{id}": { none: WEBHOOK_ADMIN },
  "DELETE /api/v1/webhooks/{id}": { none: WEBHOOK_ADMIN },
  "GET /api/v1/webhooks/{id}/deliveries": { none: WEBHOOK_ADMIN },
  "POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver": { none: WEBHOOK_ADMIN },
  "POST /api/v1/webhooks/{id}/trigger": { none: WEBHOOK_ADMIN },
  "POST /api/v1/webhooks/{id}/test": { none: WEBHOOK_ADMIN },
  "POST /api/v1/webhooks/{id}/rotate-secret": { none: WEBHOOK_ADMIN },
  "PUT /api/v1/ingest/inventory": { measurement: "ingest_inventory_5000" },
  "POST /api/v1/ingest/deals": { measurement: "webhook_delivery" },
  "POST /api/operator/organizations": { none: STAFF },
  "GET /api/operator/organizations": { none: STAFF },
  "GET /api/operator/organizations/{org_id}": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/suspend": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/reinstate": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/stores": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/stores": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/staff-users": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/broker-tokens": { none: STAFF },
  "GET /api/operator/organizations/{org_id}/broker-tokens": { none: STAFF },
  "DELETE /api/operator/organizations/{org_id}/broker-tokens/{token_id}": { none: STAFF },
  "POST /api/operator/organizations/{org_id}/demo-data": {
    none: "local development only: `npm run dev` calls it once per demo organization on a fresh database; its time is in dev's start-up",
  },
  "POST /api/sandboxes": { none: "a sandbox is created once per developer trial, behind its own rate limit" },
};
