import { describe, expect, it } from "vitest";
import { areaRoutes } from "../../src/app";
import { AREA_PREFIXES } from "../../src/area-prefixes";
import { deriveAreaTable, misroutedRoutes } from "../../src/area-table";

/**
 * Which area serves a path is derived from the areas' routes (src/area-table.ts) and written to
 * src/area-prefixes.ts by `npm run routes:areas`: a route added on a new path fails here until
 * the file is written again, and the derivation sends every route to its own area.
 */
const routes = await areaRoutes();

describe("the area table", () => {
  it("is the one the routes give (else run `npm run routes:areas`)", () => {
    expect(AREA_PREFIXES).toEqual(deriveAreaTable(routes));
  });

  it("sends every route to its own area", () => {
    expect(misroutedRoutes(AREA_PREFIXES, routes)).toEqual([]);
  });

  it("catches a route whose prefix is missing", () => {
    const withNewRoute = { ...routes, feeds: [...routes.feeds, "/api/v1/lenders"] };
    expect(misroutedRoutes(AREA_PREFIXES, withNewRoute)).toEqual(["feeds: /api/v1/lenders"]);
    expect(misroutedRoutes(deriveAreaTable(withNewRoute), withNewRoute)).toEqual([]);
  });

  it("catches a general prefix placed before a more specific one", () => {
    const misordered = [...AREA_PREFIXES.filter(([, area]) => area === "operator"), ...AREA_PREFIXES.filter(([, area]) => area !== "operator")];
    expect(misroutedRoutes(misordered, routes)).toContain("settings: /api/operator/organizations/:org_id/settings/stores");
  });

  it("keeps an area's routes together under the fewest prefixes", () => {
    expect(deriveAreaTable({ a: ["/x/y", "/x/y/:id", "/x/z"], b: ["/x/w"] })).toEqual([
      ["/x/w", "b"],
      ["/x/y", "a"],
      ["/x/z", "a"],
    ]);
    // A route of one area at a path another area's routes extend: the longer prefix comes first.
    expect(deriveAreaTable({ op: ["/o/:id", "/o/:id/stores"], settings: ["/o/:id/settings/s"] })).toEqual([
      ["/o/:id/settings", "settings"],
      ["/o/:id", "op"],
    ]);
  });
});
