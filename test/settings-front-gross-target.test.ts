import { afterEach, describe, expect, it, vi } from "vitest";
import { appraise, THIS_YEAR } from "./helpers/appraisal";
import { createDeskOrg, post } from "./helpers/deal-desk";
import { call, createDeal, createUnit } from "./helpers/factories";
import { daysAgo } from "./helpers/reports";
import { brokerCall, createBrokerToken } from "./helpers/staff";

afterEach(() => vi.useRealTimers());

/**
 * The used-unit front-gross target has one owner, the store setting (docs/settings.md): every answer
 * that applies it moves when it changes, and none keeps a figure of its own.
 */
describe("target_front_gross_used_pct and _min: one owner", () => {
  /** A store that retailed two Civics this month and has none in stock: an acquisition target with a max buy price. */
  async function dealer() {
    const desk = await createDeskOrg();
    for (const n of [1, 2]) {
      await createDeal(desk.orgId, desk.storeId, { soldOn: daysAgo(n * 5), frontGross: 1500, backGross: 900, make: "Honda", model: "Civic" });
    }
    await createUnit(desk.orgId, desk.storeId, { stockedOn: daysAgo(10), make: "Toyota", model: "Corolla" });
    return desk;
  }

  const ok = async (res: Response) => {
    const body = await res.json<Record<string, unknown>>();
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  };

  /** The used-car manager's acquisition target for the Civics: its action names the max buy price. */
  async function acquisitionAction(key: string) {
    const briefing = await ok(
      await call("/api/v1/morning-briefing", {
        method: "POST",
        key,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ role: "used_car_manager" }),
      }),
    );
    const sections = briefing.sections as { figures: { id: string; action: string }[] }[];
    return sections.flatMap((s) => s.figures).find((f) => f.id === "acquire_honda_civic")?.action;
  }

  it("a PATCH changes gross-calc, deal-coach, the trade appraisal and the used-car manager's briefing", async () => {
    const { orgId, storeId, key } = await dealer();
    const broker = await createBrokerToken(orgId);
    const answers = async () => ({
      gross: await ok(await post("/api/v1/gross-calc", key, { purchase_price: 18_500, selling_price: 22_995, condition: "used" })),
      coach: await ok(await post("/api/v1/deal-coach", key, { beacon: 700, vehicle_price: 30_000, condition: "used" })),
      appraisal: await ok(await appraise(key, { year: THIS_YEAR - 5, make: "Toyota", model: "Camry", mileage: 60_000, condition_notes: "clean" })),
    });

    const before = await answers();
    const patch = await brokerCall(`/api/settings/stores/${storeId}`, broker.token, {
      method: "PATCH",
      body: { target_front_gross_used_pct: 20, target_front_gross_used_min: 5000 },
    });
    expect(patch.status).toBe(200);
    // Past every engine's 60-second copy of the store's settings (docs/settings.md#when-a-change-takes-effect).
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61_000);
    const after = await answers();

    // 20% of 22,995 = 4,599 < 5,000: the floor is the target; the answer's pricing advice names it.
    expect(JSON.stringify(after.gross)).not.toBe(JSON.stringify(before.gross));
    expect(JSON.stringify(after.gross)).toContain("5,000");
    expect(JSON.stringify(after.coach)).not.toBe(JSON.stringify(before.coach));
    // max acquisition = market − recon − pack − target front gross − holding: the target grew from $1,200 to $5,000.
    expect(before.appraisal.max_acquisition as number).toBeGreaterThan(after.appraisal.max_acquisition as number);
    expect(after.appraisal.market_note).toContain("at least $5,000");
    // A briefing is fixed for its day once made (docs/settings.md#when-a-change-takes-effect): today's
    // first briefing of this store, made after the change, against one of a store left at the defaults.
    const patched = await acquisitionAction(key);
    const atDefaults = await acquisitionAction((await dealer()).key);
    expect(atDefaults).toMatch(/^Acquire \d+ at or below \$[\d,]+ each/);
    expect(patched).toMatch(/^Acquire \d+ at or below \$[\d,]+ each/);
    expect(patched).not.toBe(atDefaults);
  });
});
