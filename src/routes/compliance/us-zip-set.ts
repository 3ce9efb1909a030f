import type { Database } from "../../db/client";
import { getZipCodeSet } from "../../db/queries/zip-codes";
import { decodeZipSet, type UsZipSet } from "../../engines/screening/red-flags";

/**
 * Per isolate: the US ZIP set, read from D1 on the first check and kept decoded (12.5 KB). It
 * changes only with a migration, so no request after the first pays a D1 read for it.
 */
let usZips: UsZipSet | null = null;

export async function usZipSet(db: Database): Promise<UsZipSet> {
  if (usZips) return usZips;
  const bitsBase64 = await getZipCodeSet(db, "US");
  // Without the set every ZIP would look unknown (or, skipped, none would): refuse instead.
  if (!bitsBase64) throw new Error("zip_code_sets has no 'US' row; apply the migrations");
  usZips = decodeZipSet(bitsBase64);
  return usZips;
}
