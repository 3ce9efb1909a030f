import { type BenchArea, PAGE_READ_TARGET } from "../scenario";

/**
 * A DMS syncing by page: a call with parameters skips the per-isolate feed cache (docs/feeds.md),
 * so each request is one index range read in D1. Run against the areas organization, whose
 * hundreds of units the other areas seed, so a page of 100 is full.
 */
export const feedsArea: BenchArea = {
  name: "feeds",
  scenarios: ({ key, storeId }) => [
    {
      name: "inventory_page",
      path: `/api/v1/inventory?store_id=${storeId}&limit=100`,
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: PAGE_READ_TARGET,
    },
    {
      name: "sales_summary",
      path: "/api/v1/sales-summary",
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: PAGE_READ_TARGET,
    },
    {
      name: "inventory_changes",
      path: "/api/v1/inventory?updated_since=2000-01-01T00:00:00Z&limit=100",
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: PAGE_READ_TARGET,
    },
  ],
};
