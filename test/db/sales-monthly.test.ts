import { describe, expect, it } from "vitest";
import { createDeal, createOrg, createStore } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";

/** What the rollup must equal: the aggregate over deals it replaces (the object's triggers, as D1's migration 0023 had them). */
const fromDeals = (orgId: string) =>
  rowsInObject(
    orgId,
    `SELECT store_id, substr(sold_on, 1, 7) AS sale_month, coalesce(sum(status <> 'unwound'), 0) AS units,
            round(total(CASE WHEN status <> 'unwound' THEN front_gross + back_gross END), 2) AS total_gross,
            max(CASE WHEN status <> 'unwound' THEN updated_at END) AS sold_updated_at, max(updated_at) AS updated_at
     FROM deals WHERE org_id = ? GROUP BY store_id, sale_month ORDER BY store_id, sale_month`,
    orgId,
  );
const rollup = (orgId: string) =>
  rowsInObject(
    orgId,
    "SELECT store_id, sale_month, units, total_gross, sold_updated_at, updated_at FROM sales_monthly WHERE org_id = ? ORDER BY store_id, sale_month",
    orgId,
  );

describe("sales_monthly: the rollup the sales summary reads, kept by triggers on deals in the organization's object", () => {
  it("equals the aggregate over deals after inserts, changes, unwinds, moves and deletes", async () => {
    const org = await createOrg();
    const north = await createStore(org.id);
    const south = await createStore(org.id);
    const a = await createDeal(org.id, north.id, { soldOn: "2026-09-03", frontGross: 1000, backGross: 500 });
    const b = await createDeal(org.id, north.id, { soldOn: "2026-09-20", frontGross: 2000, backGross: 250.5 });
    const c = await createDeal(org.id, south.id, { soldOn: "2026-10-01", frontGross: 800, backGross: 0 });
    expect(await rollup(org.id)).toHaveLength(2);
    expect(await rollup(org.id)).toEqual(await fromDeals(org.id));

    const run = (sql: string, ...params: string[]) => rowsInObject(org.id, sql, ...params);
    await run("UPDATE deals SET front_gross = 1500 WHERE id = ?", a.id);
    expect(await rollup(org.id)).toEqual(await fromDeals(org.id));
    // Every deal of a month unwound: the row stays with 0 units (updated_since re-sends it).
    await run("UPDATE deals SET status = 'unwound' WHERE id = ?", c.id);
    expect(await rollup(org.id)).toEqual(await fromDeals(org.id));
    expect((await rollup(org.id)).find((r) => r.store_id === south.id)).toMatchObject({ units: 0, total_gross: 0 });
    // A deal moved to another month and store leaves its old row and joins the new one.
    await run("UPDATE deals SET sold_on = '2026-11-02', store_id = ? WHERE id = ?", south.id, b.id);
    expect(await rollup(org.id)).toEqual(await fromDeals(org.id));
    await run("DELETE FROM deals WHERE id = ?", c.id);
    expect(await rollup(org.id)).toEqual(await fromDeals(org.id));
    expect(await rollup(org.id)).toHaveLength(2);
  });
});
