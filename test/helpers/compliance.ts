import { env } from "cloudflare:workers";
import { getDb } from "../../src/db/client";
import { complianceSettings } from "../../src/db/schema";
import { parseSanctionsList } from "../../src/engines/screening/ofac-csv";
import { loadSanctionsList, type SanctionsFiles } from "../../src/jobs/refresh-sanctions-list";

/** The real OFAC files (data/ofac/, passed in by vitest.config.ts). */
export const realOfacFiles = (): SanctionsFiles => ({ sdn: env.TEST_OFAC_SDN, alt: env.TEST_OFAC_ALT, comments: env.TEST_OFAC_COMMENTS });

let parsed: ReturnType<typeof parseSanctionsList> | null = null;
export function realSanctionsList() {
  parsed ??= parseSanctionsList(realOfacFiles());
  return parsed;
}

/** Puts the real list in force in this test file's D1, loaded at `now`. */
export function loadRealList(now = new Date()) {
  return loadSanctionsList(getDb(env.DB), realOfacFiles(), { version: env.TEST_OFAC_VERSION, source: "file:data/ofac", now });
}

export const complianceCheck = (key: string, body: unknown) =>
  ({ method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }) as const;

/** Gives the organization its own screening settings: the shipped thresholds, with a list older than `maxListAgeDays` stale. */
export function setMaxListAge(orgId: string, maxListAgeDays: number) {
  const values = { holdScore: 95, flagScore: 85, maxListAgeDays, minimumAge: 18, maximumAge: 110 };
  return getDb(env.DB)
    .insert(complianceSettings)
    .values({ orgId, ...values })
    .onConflictDoUpdate({ target: complianceSettings.orgId, set: values });
}
