import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { getTableName } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import * as orgSchema from "../../src/db/org-schema";
import { claimD1CopyPurge, deleteD1CopyRows, MOVED_D1_TABLES } from "../../src/db/queries/org-storage";
import { NOT_SERVING, type OrganizationStore, OrgStorageMismatchError, StorageDeleteRefusedError } from "../../src/durable-objects/org-storage";
import { moveToD1, moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { DAY_MS } from "../../src/engines/dates";
import { CRONS } from "../../src/jobs/crons";
import { purgeD1Copy } from "../../src/jobs/purge-moved-copies";
import { complianceCheck } from "../helpers/compliance";
import { call, createApiKey, createOrg, createStore } from "../helpers/factories";
import { createIngestKey, deal, postDeals, putInventory, unit } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { runCron } from "../helpers/queue-driver";

/**
 * The object's tables that are a moved group's (not its owner row, its copy of the directory's
 * store names, or its outbox, which D1's outbox is not a copy of): their D1 rows are what the
 * purge after the undo window must delete.
 */
const MOVED_TABLES = Object.values(orgSchema)
  .filter((table) => table instanceof SQLiteTable)
  .map((table) => getTableName(table))
  .filter((name) => !["storage_owner", "stores", "event_outbox"].includes(name));

async function d1Rows(orgId: string): Promise<Record<string, number>> {
  const counts = await env.DB.batch(MOVED_TABLES.map((t) => env.DB.prepare(`SELECT count(*) AS n FROM ${t} WHERE org_id = ?`).bind(orgId)));
  return Object.fromEntries(MOVED_TABLES.map((t, i) => [t, (counts[i].results[0] as { n: number }).n]));
}

/** An organization with units, deals (and so stips and a sales month) and a compliance check, moved to its object. */
async function movedOrganization() {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { name: "North Lot" });
  const key = await createIngestKey(org.id);
  expect((await putInventory(store.id, { key }, { units: Array.from({ length: 30 }, (_, i) => unit(i)) })).status).toBe(200);
  expect((await postDeals({ key }, { deals: [deal("D-1", store.id), deal("D-2", store.id)] })).status).toBe(200);
  const screener = (await createApiKey(org.id)).key;
  const screened = await call("/api/v1/compliance-check", complianceCheck(screener, { first_name: "Maria", last_name: "Benson", dob: "1981-06-14" }));
  expect(screened.status, await screened.clone().text()).toBe(200);
  const report = await moveToObject(env, org.id);
  // A key first seen after the move: a credential cached before it reads D1's copy for up to 60 s (docs/scaling.md), far inside the window.
  const reader = (await createApiKey(org.id, { dailyLimit: 100_000 })).key;
  const flippedAt = (await env.DB.prepare("SELECT storage_moved_at AS at FROM organizations WHERE id = ?").bind(org.id).first<{ at: string }>())?.at;
  expect(flippedAt).toBeTruthy();
  return { org, store, key, reader, report, flippedAt: Date.parse(flippedAt as string) };
}

/** What a dealer reads of the organization: the feeds, and its compliance check. */
const answers = (reader: string) =>
  Promise.all(["/api/v1/inventory?limit=500", "/api/v1/sales-summary"].map(async (path) => (await call(path, { key: reader })).text()));

const objectHolds = (orgId: string) =>
  runInDurableObject(orgStore(env, orgId), async (_, state) => ({
    owner: state.storage.sql.exec("SELECT count(*) AS n FROM storage_owner").one().n,
    units: state.storage.sql.exec("SELECT count(*) AS n FROM inventory_units").one().n,
    alarm: await state.storage.getAlarm(),
  }));

describe("the move's life cycle: D1's copy kept for the undo window, then purged; an undo deletes the object's storage", () => {
  it("the purge deletes D1's table of every group the object holds (a group that moves adds its tables to MOVED_D1_TABLES)", () => {
    expect(MOVED_D1_TABLES.map(({ table }) => getTableName(table)).sort()).toEqual([...MOVED_TABLES].sort());
  });

  it("within the window the purge deletes nothing and the undo works; the undo deletes the object's storage and alarm", async () => {
    const { org, report, flippedAt } = await movedOrganization();
    const kept = await d1Rows(org.id);
    expect(kept.inventory_units).toBe(30);
    expect(kept.deals).toBe(2);

    // Six days and 23 hours after the flip: not due, D1's copy stays whole.
    expect(await purgeD1Copy(env, org.id, new Date(flippedAt + 7 * DAY_MS - 3_600_000))).toBe(false);
    const nightly = await runCron(CRONS.nightly, flippedAt + 7 * DAY_MS - 3_600_000);
    expect(nightly.filter((m) => m.job === "purge-moved-copy")).toEqual([]);
    expect(await d1Rows(org.id)).toEqual(kept);
    expect(await objectHolds(org.id)).toMatchObject({ owner: 1, units: 30 });

    const back = await moveToD1(env, org.id);
    expect(back.tables.inventory_units).toEqual(report.tables.inventory_units);
    // The object's storage is gone with its timers: an unowned, empty object, as a new one starts.
    expect(await objectHolds(org.id)).toEqual({ owner: 0, units: 0, alarm: null });
    const stamps = await env.DB.prepare("SELECT storage, storage_moved_at, d1_copy_purged_at FROM organizations WHERE id = ?").bind(org.id).first();
    expect(stamps).toEqual({ storage: "d1", storage_moved_at: null, d1_copy_purged_at: null });
    // Back in D1, nothing is due at any time.
    expect(await purgeD1Copy(env, org.id, new Date(flippedAt + 30 * DAY_MS))).toBe(false);
    expect(await d1Rows(org.id)).toEqual(kept);
  });

  it("refuses to delete the storage of an object while D1 does not hold the organization (object, moving, returning)", async () => {
    const { org } = await movedOrganization();
    for (const place of ["object", "moving", "returning"]) {
      await env.DB.prepare("UPDATE organizations SET storage = ? WHERE id = ?").bind(place, org.id).run();
      await runInDurableObject(orgStore(env, org.id), async (object: OrganizationStore) => {
        await expect(object.deleteAfterUndo(org.id)).rejects.toThrow(StorageDeleteRefusedError);
        await expect(object.deleteAfterUndo("org_someone_else")).rejects.toThrow(OrgStorageMismatchError);
      });
    }
    expect(await objectHolds(org.id)).toMatchObject({ owner: 1, units: 30 });
  });

  it("the purge's deletions touch nothing of an organization whose flag is not `object`", async () => {
    const { org } = await movedOrganization();
    const kept = await d1Rows(org.id);
    for (const place of ["d1", "moving", "returning"]) {
      await env.DB.prepare("UPDATE organizations SET storage = ? WHERE id = ?").bind(place, org.id).run();
      expect(await deleteD1CopyRows(getDb(env.DB), org.id, 500)).toBe(0);
    }
    expect(await d1Rows(org.id)).toEqual(kept);
  });

  it("a purge that stamps the copy after the undo's first look: the undo, holding the flag, finds the stamp and goes back to the object, serving", async () => {
    const { org, reader, flippedAt } = await movedOrganization();
    const before = await answers(reader);
    const real = orgStore(env, org.id);
    // The purge's claim lands while the undo relays the object's outbox (after its first check, before its flip).
    const stampingRelay = {
      ...Object.fromEntries(
        (["setActive", "unitPage", "digest", "lenderDigest", "deleteAfterUndo"] as const).map((m) => [
          m,
          (...args: unknown[]) => (real[m] as (...a: unknown[]) => unknown)(...args),
        ]),
      ),
      relayOutbox: async (orgId: string) => {
        expect(
          await claimD1CopyPurge(getDb(env.DB), orgId, new Date(flippedAt + DAY_MS).toISOString(), new Date(flippedAt + 8 * DAY_MS).toISOString()),
        ).toBe(true);
        return real.relayOutbox(orgId);
      },
    };
    const namespace = { idFromName: (name: string) => env.ORG_STORE.idFromName(name), get: () => stampingRelay } as unknown as Env["ORG_STORE"];
    await expect(moveToD1({ ...env, ORG_STORE: namespace }, org.id)).rejects.toThrow(/purged on/);
    expect(await env.DB.prepare("SELECT storage FROM organizations WHERE id = ?").bind(org.id).first()).toEqual({ storage: "object" });
    expect(await real.inventoryPage(org.id, { limit: 1 })).not.toEqual(NOT_SERVING);
    expect(await answers(reader)).toEqual(before);
  });

  it("after the window the nightly cron purges every moved table's D1 rows; the object answers as before; the undo is refused, saying when", async () => {
    const { org, store, key, reader, flippedAt } = await movedOrganization();
    const other = await movedOrganization();
    const before = await answers(reader);

    // Seven days and a minute after the flip, the 00:15 run: a message per due organization.
    const at = flippedAt + 7 * DAY_MS + 60_000;
    const messages = await runCron(CRONS.nightly, at);
    expect(messages.filter((m) => m.job === "purge-moved-copy").map((m) => (m as { orgId: string }).orgId)).toEqual(
      expect.arrayContaining([org.id, other.org.id]),
    );
    expect(Object.values(await d1Rows(org.id)).every((n) => n === 0)).toBe(true);
    const stamps = await env.DB.prepare("SELECT storage, storage_moved_at, d1_copy_purged_at FROM organizations WHERE id = ?")
      .bind(org.id)
      .first<{ storage: string; storage_moved_at: string | null; d1_copy_purged_at: string }>();
    expect(stamps).toEqual({ storage: "object", storage_moved_at: null, d1_copy_purged_at: new Date(at).toISOString() });

    // The object still answers, the same; writes land there.
    expect(await answers(reader)).toEqual(before);
    expect((await putInventory(store.id, { key }, { units: Array.from({ length: 31 }, (_, i) => unit(i)) })).status).toBe(200);

    // The undo is refused, with the date, before it turns the object off (its writes never pause), and leaves the organization where it is, served.
    const switched: boolean[] = [];
    const watched = {
      idFromName: (name: string) => env.ORG_STORE.idFromName(name),
      get: () => ({ setActive: async (_orgId: string, active: boolean) => switched.push(active) }),
    } as unknown as Env["ORG_STORE"];
    await expect(moveToD1({ ...env, ORG_STORE: watched }, org.id)).rejects.toThrow(/The D1 copy was purged on \d{4}-\d{2}-\d{2}/);
    expect(switched).toEqual([]);
    await expect(moveToD1(env, org.id)).rejects.toThrow(/The D1 copy was purged on/);
    const operator = { Authorization: `Bearer ${await createOperatorToken()}` };
    const refused = await call(`/api/operator/organizations/${org.id}/storage/undo`, { method: "POST", headers: operator });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "conflict", message: expect.stringContaining("The D1 copy was purged on") });
    expect(await env.DB.prepare("SELECT storage FROM organizations WHERE id = ?").bind(org.id).first()).toEqual({ storage: "object" });
    expect(await answers(reader)).not.toEqual(before);
    expect(await objectHolds(org.id)).toMatchObject({ owner: 1, units: 31 });

    // A second night finds nothing more to do for it.
    expect((await runCron(CRONS.nightly, at + DAY_MS)).filter((m) => m.job === "purge-moved-copy" && m.orgId === org.id)).toEqual([]);
  });

  it("an undo that holds the flag (`returning`) stops the purge: it claims and deletes nothing", async () => {
    const { org, flippedAt } = await movedOrganization();
    await env.DB.prepare("UPDATE organizations SET storage = 'returning' WHERE id = ?").bind(org.id).run();
    expect(await purgeD1Copy(env, org.id, new Date(flippedAt + 8 * DAY_MS))).toBe(false);
    expect((await d1Rows(org.id)).inventory_units).toBe(30);
    expect(await env.DB.prepare("SELECT d1_copy_purged_at AS at FROM organizations WHERE id = ?").bind(org.id).first()).toEqual({ at: null });
  });
});
