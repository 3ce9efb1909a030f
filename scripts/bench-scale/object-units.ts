/**
 * A synthetic store's inventory for `npm run bench:scale`: the same units from the
 * seeding (inside the organization's object) and from the bench's snapshot writes (over HTTP), so
 * a measured snapshot lists the store's stock and changes only the prices it means to.
 */
import type { SnapshotUnit } from "../../src/db/queries/ingest";
import { dmsUnit } from "../bench/dms-unit";

/** `count` units of store number `storeNumber` of its organization; the first `repriced` get `priceShift` on their price. */
export function storeUnits(storeNumber: number, count: number, repriced = 0, priceShift = 0): SnapshotUnit[] {
  return Array.from({ length: count }, (_, i) =>
    // Stock numbers are unique within the organization: the store's number, then the unit's.
    dmsUnit(`S${storeNumber}-${String(i).padStart(4, "0")}`, storeNumber * 10_000 + i, i < repriced ? priceShift : 0),
  ) as SnapshotUnit[];
}

/** One store to seed: its directory id and name, and how many units it has in stock. */
export interface SeedStore {
  id: string;
  name: string;
  units: number;
}
