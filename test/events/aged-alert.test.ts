import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { listOutboxEvents } from "../helpers/events";
import { createOrg, createStore, createUnit } from "../helpers/factories";
import { runCron } from "../helpers/queue-driver";

const DAY = 86_400_000;
const dateDaysBefore = (now: number, days: number) => new Date(now - days * DAY).toISOString().slice(0, 10);

const runDailyJobs = (at: number) => runCron("15 0 * * *", at);

it("the daily job alerts each unit that crossed its store's aged threshold, once per crossing", async () => {
  const org = await createOrg();
  const store = await createStore(org.id);
  await env.DB.prepare("UPDATE stores SET aged_threshold_days = 30 WHERE id = ?").bind(store.id).run();
  const defaultStore = await createStore(org.id);
  const now = Date.UTC(2026, 10, 26, 0, 15);

  await createUnit(org.id, store.id, { stockNumber: `X30-${org.id}`, stockedOn: dateDaysBefore(now, 30) });
  await createUnit(org.id, store.id, { stockNumber: `X29-${org.id}`, stockedOn: dateDaysBefore(now, 29) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `D45-${org.id}`, stockedOn: dateDaysBefore(now, 45) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `D44-${org.id}`, stockedOn: dateDaysBefore(now, 44) });
  await createUnit(org.id, defaultStore.id, { stockNumber: `SOLD-${org.id}`, stockedOn: dateDaysBefore(now, 50), status: "sold" });
  // Aged long before the job could have seen it cross: in the inventory-alerts report, not an event.
  await createUnit(org.id, defaultStore.id, { stockNumber: `OLD-${org.id}`, stockedOn: dateDaysBefore(now, 120) });

  await runDailyJobs(now);
  const first = await listOutboxEvents(org.id, "inventory.aged_alert");
  expect(first.map((e) => [e.store_id, e.data.stock_no, e.data.days_on_lot]).sort()).toEqual(
    [
      [defaultStore.id, `D45-${org.id}`, 45],
      [store.id, `X30-${org.id}`, 30],
    ].sort(),
  );
  expect(first[0].data.recommendation).toMatch(/^(Aged|Wholesale candidate|Equity below)/);

  // Run again the same day and the next: only the unit that crossed since alerts.
  await runDailyJobs(now + 60_000);
  await runDailyJobs(now + DAY);
  const all = await listOutboxEvents(org.id, "inventory.aged_alert");
  expect(all.map((e) => e.data.stock_no).sort()).toEqual([`D44-${org.id}`, `D45-${org.id}`, `X29-${org.id}`, `X30-${org.id}`].sort());
});
