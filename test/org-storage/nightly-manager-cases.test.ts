import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore } from "../helpers/factories";
import { createIngestKey, putInventory, unit } from "../helpers/ingest";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const DAY = 86_400_000;

describe("an organization's nightly jobs in its object, as its managers meet them", () => {
  it("a new unit alerts at the new-unit threshold (90 days) addressed to the new-car manager; a store opened later gets its briefings", async () => {
    const { agedAt, briefedAt } = nightlyRuns();
    const org = await createOrg();
    const north = await createStore(org.id, { isPrimary: true });
    const key = await createIngestKey(org.id);
    const at = (days: number) => isoDay(agedAt - days * DAY);
    // New units age at 90 days: one crosses on the run's day, one at 60 days is not aged (a used one would be).
    const units = [unit(1, { stocked_on: at(90), condition: "new" }), unit(2, { stocked_on: at(60), condition: "new" })];
    expect((await putInventory(north.id, { key }, { units })).status).toBe(200);
    const south = await createStore(org.id, { name: "South Lot" });
    expect((await putInventory(south.id, { key }, { units: [unit(3, { stocked_on: at(5) })] })).status).toBe(200);

    // The three runs: the aged alerts', the lender outcomes' and the briefings'.
    for (let run = 0; run < 3; run++) expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
    const events = await listOutboxEvents(org.id, "inventory.aged_alert");
    expect(events.map((e) => [e.data.stock_no, e.data.days_on_lot])).toEqual([["S00001", 90]]);
    expect(String(events[0].data.recommendation)).toContain("new-car manager");
    const briefings = await rowsInObject<{ store_id: string }>(
      org.id,
      "SELECT store_id FROM morning_briefings WHERE org_id = ? AND day = ?",
      org.id,
      isoDay(briefedAt),
    );
    expect(briefings.filter((b) => b.store_id === south.id)).toHaveLength(6);
    expect(briefings.filter((b) => b.store_id === north.id)).toHaveLength(6);
  });
});
