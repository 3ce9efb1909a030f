import { eq } from "drizzle-orm";
import type { Database } from "../client";
import { zipCodeSets } from "../schema";

/** The base64 bit set of a country's existing ZIP codes (public reference data, shared by every organization). */
export async function getZipCodeSet(db: Database, country: string): Promise<string | null> {
  const [row] = await db.select({ bitsBase64: zipCodeSets.bitsBase64 }).from(zipCodeSets).where(eq(zipCodeSets.country, country)).limit(1);
  return row?.bitsBase64 ?? null;
}
