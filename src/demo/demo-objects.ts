/**
 * The demo organizations' own rows, written to their storage objects (docs/scaling.md): what a
 * sandbox, the local demo (src/routes/demo-data) and the tests' demo seed do once D1's rows of the
 * organizations and their stores are in.
 */
import { orgStore } from "../durable-objects/org-storage-routing";
import type { DemoInventory } from "./demo-data";

/** Opens each organization's object with its stores and their settings, and its share of `inventory`. */
export async function seedDemoObjects(env: Pick<Env, "ORG_STORE">, orgIds: readonly string[], inventory: DemoInventory): Promise<void> {
  for (const orgId of orgIds) {
    const own = <T extends { orgId: string }>(rows: T[]) => rows.filter((row) => row.orgId === orgId);
    await orgStore(env, orgId).seed(
      orgId,
      own(inventory.stores),
      own(inventory.units),
      own(inventory.marketValues),
      own(inventory.deals),
      own(inventory.dealStips),
      own(inventory.lenderDecisions),
      own(inventory.lenderPanel),
    );
  }
}
