import { getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../../db/client";
import { dealStips, deals, inventoryUnits, lenderDecisions, storeLenderPanel, stores, unitMarketValues } from "../../db/org-schema";
import { loadDealDeskReference } from "../../db/queries/deal-desk";
import { isDemoOrganization } from "../../db/queries/sandboxes";
import { buildDemoObjectRows, DEMO_ORGANIZATIONS, type DemoInventory } from "../../demo/demo-data";
import { seedDemoObjects } from "../../demo/demo-objects";
import { orgStore } from "../../durable-objects/org-storage-routing";
import { DomainError } from "../../lib/domain-error";

const alreadyOpen = () => new DomainError("conflict", "This demo organization's storage object is open already: its demo data is in.");

/** The object's table each part of the demo rows goes to: the answer counts rows by its name. */
const TABLES: Record<keyof DemoInventory, SQLiteTable> = {
  stores,
  units: inventoryUnits,
  marketValues: unitMarketValues,
  deals,
  dealStips,
  lenderDecisions,
  lenderPanel: storeLenderPanel,
};

/**
 * A seeded demo organization's own rows, dated from `now`, written to its empty object. The
 * Worker writes them because only it reaches the objects: the seed script writes D1's rows alone.
 */
export async function openDemoData(env: Pick<Env, "ORG_STORE">, db: Database, orgId: string, now: Date) {
  const organization = DEMO_ORGANIZATIONS.find((org) => org.id === orgId);
  if (organization === undefined || !(await isDemoOrganization(db, orgId))) {
    throw new DomainError("not_found", "No demo organization with that id: the demo data is only for those the seed creates (`npm run seed`).");
  }
  if (await orgStore(env, orgId).isOpen(orgId)) throw alreadyOpen();
  const { tiers, programs, stipRules, stipTypes } = await loadDealDeskReference(db);
  const referenceDate = now.toISOString().slice(0, 10);
  const inventory = buildDemoObjectRows({
    referenceDate,
    organizations: [organization],
    dealDeskReference: { tiers, programs, stipRules, stipTypes },
  });
  try {
    await seedDemoObjects(env, [orgId], inventory);
  } catch (error) {
    // Another call opened it meanwhile: the object refuses a second seed.
    if (await orgStore(env, orgId).isOpen(orgId)) throw alreadyOpen();
    throw error;
  }
  const rows = Object.fromEntries(Object.entries(TABLES).map(([key, table]) => [getTableName(table), inventory[key as keyof DemoInventory].length]));
  return { org_id: orgId, reference_date: referenceDate, rows };
}
