/**
 * The demo organizations' own rows, written to their storage objects (docs/scaling.md): what a
 * sandbox, the local demo and the tests' demo seed do once D1's rows of the organizations and their
 * stores are in.
 */
import type { Database } from "../db/client";
import { listStoreSettings } from "../db/queries/settings";
import { orgStore } from "../durable-objects/org-storage-routing";
import type { DemoInventory } from "./demo-data";

/** Opens each organization's object with its stores (their settings as D1's seed wrote them) and its share of `inventory`. */
export async function seedDemoObjects(env: Pick<Env, "ORG_STORE">, db: Database, orgIds: readonly string[], inventory: DemoInventory): Promise<void> {
  for (const orgId of orgIds) {
    const own = <T extends { orgId: string }>(rows: T[]) => rows.filter((row) => row.orgId === orgId);
    await orgStore(env, orgId).seed(
      orgId,
      await listStoreSettings(db, orgId),
      own(inventory.units),
      own(inventory.marketValues),
      own(inventory.deals),
      own(inventory.dealStips),
      own(inventory.lenderDecisions),
      own(inventory.lenderPanel),
    );
  }
}
