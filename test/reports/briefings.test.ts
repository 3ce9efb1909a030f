import type { z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import { isoDay } from "../../src/engines/dates";
import type { BriefingSchema } from "../../src/routes/reports/reports.routes";
import { listOutboxEvents } from "../helpers/events";
import { call } from "../helpers/factories";
import { rerunNight } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";
import { seedDemoOrgs, today } from "../helpers/reports";

type Briefing = z.infer<typeof BriefingSchema>;

let keys: { summitKey: string; lakesideKey: string };

beforeAll(async () => {
  keys = await seedDemoOrgs();
});

const brief = (key: string, body: unknown) =>
  call("/api/v1/morning-briefing", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

async function briefing(body: unknown, key = keys.summitKey): Promise<Briefing> {
  const res = await brief(key, body);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/json");
  return res.json();
}

const figure = (b: Briefing, section: string, id: string) => b.sections.find((s) => s.id === section)?.figures.find((f) => f.id === id);

/** A count in the organization's object, which holds its rows. */
async function scalar(orgId: string, sql: string, ...params: SqlStorageValue[]): Promise<number> {
  const [row] = await rowsInObject<{ n: number }>(orgId, sql, ...params);
  return row?.n ?? 0;
}

describe("POST /api/v1/morning-briefing", () => {
  const SECTIONS: Record<string, string[]> = {
    gm: ["aged_inventory", "lender_flags", "funding_pipeline"],
    used_car_manager: ["acquisition_targets", "wholesale_recommendations"],
    fi_director: ["stip_alerts", "funding_risk"],
    bdc_manager: ["units_to_promote", "stip_callbacks"],
    sales_manager: ["pace", "gross_per_unit"],
    new_car_manager: ["new_units_by_age"],
  };

  it("builds each role's sections from the store's data: a five-minute read, every figure with its next action", async () => {
    for (const [role, sections] of Object.entries(SECTIONS)) {
      const b = await briefing({ role });
      expect(b.role).toBe(role);
      expect(b.store_id).toBe("sto_summit_north");
      expect(b.sections.map((s) => s.id)).toEqual(sections);
      const figures = b.sections.flatMap((s) => s.figures);
      expect(figures.length + b.alerts.length).toBeLessThanOrEqual(21);
      for (const f of figures) {
        expect(Number.isFinite(f.value)).toBe(true);
        expect(f.action.length).toBeGreaterThan(5);
      }
    }
  });

  it("defaults to the used-car manager's briefing, whose alerts are pre-owned units only", async () => {
    const b = await briefing({});
    expect(b.role).toBe("used_car_manager");
    expect(b.alerts.length).toBeGreaterThan(0);
    expect(b.alerts.every((a) => a.condition !== "new")).toBe(true);
    const nc = await briefing({ role: "new_car_manager" });
    expect(nc.alerts.every((a) => a.condition === "new")).toBe(true);
  });

  it("refuses an unknown role with a 422 naming the field", async () => {
    const res = await brief(keys.summitKey, { role: "janitor" });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { details: { path: string }[] };
    expect(body.details[0].path).toBe("role");
  });

  it("gives the GM figures that match the store's records", async () => {
    const b = await briefing({ role: "gm" });
    expect(figure(b, "aged_inventory", "aged_units")?.value).toBe(b.total_aged_units);
    const agedUnits = await scalar(
      "org_summit",
      "SELECT count(*) AS n FROM inventory_units WHERE store_id = 'sto_summit_north' AND status = 'in_stock' AND julianday(?) - julianday(stocked_on) >= CASE condition WHEN 'new' THEN 90 ELSE 45 END",
      today(),
    );
    expect(b.total_aged_units).toBe(agedUnits);
    const waiting = await scalar(
      "org_summit",
      "SELECT count(*) AS n FROM deals WHERE store_id = 'sto_summit_north' AND status IN ('pending', 'submitted', 'approved') AND lender IS NOT NULL",
    );
    expect(figure(b, "funding_pipeline", "deals_waiting")?.value).toBe(waiting);
    const openStips = await scalar(
      "org_summit",
      "SELECT count(*) AS n FROM deal_stips s JOIN deals d ON d.id = s.deal_id WHERE d.store_id = 'sto_summit_north' AND s.state <> 'cleared' AND d.status <> 'unwound'",
    );
    expect(figure(b, "funding_pipeline", "open_stips")?.value).toBe(openStips);
    expect(figure(b, "lender_flags", "lender_environment_change")?.label).toContain("7.52%");
  });

  it("gives the used-car manager acquisition targets with a buy price and wholesale recommendations", async () => {
    const b = await briefing({ role: "used_car_manager" });
    const targets = b.sections[0].figures.filter((f) => f.id.startsWith("acquire_"));
    for (const t of targets) {
      expect(t.value).toBeLessThan(35);
      expect(t.action).toMatch(/^Acquire \d+ at or below \$[\d,]+ each/);
    }
    expect(figure(b, "wholesale_recommendations", "wholesale_candidates")?.value).toBeGreaterThan(0);
  });

  it("briefs another of the organization's stores on that store's data only", async () => {
    const b = await briefing({ role: "gm", store_id: "sto_summit_south" });
    expect(b.store_id).toBe("sto_summit_south");
    expect(b.alerts.every((a) => a.store_id === "sto_summit_south" && a.stock_no.startsWith("S"))).toBe(true);
  });

  it("answers 404 for a store of another organization, and Lakeside never sees Summit's units", async () => {
    expect((await brief(keys.lakesideKey, { store_id: "sto_summit_north" })).status).toBe(404);
    expect((await brief(keys.lakesideKey, { store_id: "sto_does_not_exist" })).status).toBe(404);
    const lakeside = await briefing({ role: "gm" }, keys.lakesideKey);
    expect(lakeside.store_id).toBe("sto_lakeside_main");
    expect(lakeside.alerts.every((a) => a.stock_no.startsWith("L"))).toBe(true);
  });

  it("stores the day's briefing and reads it back instead of rebuilding it", async () => {
    const first = await briefing({ role: "sales_manager", store_id: "sto_summit_south" });
    const stored = await scalar(
      "org_summit",
      "SELECT count(*) AS n FROM morning_briefings WHERE store_id = 'sto_summit_south' AND role = 'sales_manager' AND day = ?",
      today(),
    );
    expect(stored).toBe(1);
    const again = await briefing({ role: "sales_manager", store_id: "sto_summit_south" });
    expect(again.generated_at).toBe(first.generated_at);
  });

  it("the 06:00 run of each organization's object builds every role for every store once; a second run adds nothing", async () => {
    const orgs = ["org_summit", "org_lakeside"];
    const { briefedAt } = nightlyRuns();
    const run = async () => {
      for (const org of orgs) await rerunNight(org, briefedAt);
    };
    const count = async () =>
      (await Promise.all(orgs.map((org) => scalar(org, "SELECT count(*) AS n FROM morning_briefings WHERE day = ?", isoDay(briefedAt))))).reduce(
        (a, b) => a + b,
      );
    // Each briefing the run builds raises one morning_briefing.ready; those built earlier on request raise none.
    const ready = async () =>
      (await Promise.all(orgs.map((org) => listOutboxEvents(org, "morning_briefing.ready")))).flat().filter((e) => e.data.day === isoDay(briefedAt));
    const builtBefore = await count();
    await run();
    expect(await count()).toBe(3 * 6);
    const raised = await ready();
    expect(raised).toHaveLength(3 * 6 - builtBefore);
    expect(new Set(raised.map((e) => `${e.store_id}|${(e.data as { role: string }).role}`)).size).toBe(raised.length);
    await run();
    expect(await count()).toBe(3 * 6);
    expect(await ready()).toHaveLength(raised.length);
  });
});
