import { expect, it } from "vitest";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore, createUnit } from "../helpers/factories";
import { rerunNight, runAlarmsThrough } from "../helpers/object-sql";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const DAY = 86_400_000;
const dateDaysBefore = (now: number, days: number) => new Date(now - days * DAY).toISOString().slice(0, 10);

// The organization's daily job runs on its object's alarm, at the aged alerts' time (00:15 UTC).
it("the daily job alerts each unit that crossed its store's aged threshold, once per crossing", async () => {
  const org = await createOrg();
  const store = await createStore(org.id);
  await rowsInObject(org.id, "UPDATE stores SET aged_threshold_days = 30 WHERE id = ?", store.id);
  const defaultStore = await createStore(org.id);
  const now = nightlyRuns().agedAt;

  await createUnit(org.id, store.id, { stockNumber: `X30-${org.id}`, stockedOn: dateDaysBefore(now, 30) });
  await createUnit(org.id, store.id, { stockNumber: `X29-${org.id}`, stockedOn: dateDaysBefore(now, 29) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `D45-${org.id}`, stockedOn: dateDaysBefore(now, 45) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `D44-${org.id}`, stockedOn: dateDaysBefore(now, 44) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `SOLD-${org.id}`, stockedOn: dateDaysBefore(now, 50), status: "sold" });
  // Aged long before the job could have seen it cross: in the inventory-alerts report, not an event.
  await createUnit(org.id, defaultStore.id, { stockNumber: `OLD-${org.id}`, stockedOn: dateDaysBefore(now, 120) });

  await runAlarmsThrough(org.id, now);
  const first = await listOutboxEvents(org.id, "inventory.aged_alert");
  expect(first.map((e) => [e.store_id, e.data.stock_no, e.data.days_on_lot]).sort()).toEqual(
    [
      [defaultStore.id, `D45-${org.id}`, 45],
      [store.id, `X30-${org.id}`, 30],
    ].sort(),
  );
  expect(first[0].data.recommendation).toMatch(/^(Aged|Wholesale candidate|Equity below)/);

  // Run again the same day (the run of `now` once more, as its retry would) and the next: only the unit that crossed since alerts.
  await rerunNight(org.id, now, now + DAY);
  const all = await listOutboxEvents(org.id, "inventory.aged_alert");
  expect(all.map((e) => e.data.stock_no).sort()).toEqual([`D44-${org.id}`, `D45-${org.id}`, `X29-${org.id}`, `X30-${org.id}`].sort());
});
