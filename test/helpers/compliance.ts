import { env } from "cloudflare:workers";
import { getDb } from "../../src/db/client";
import { getComplianceDefaults } from "../../src/db/queries/settings";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { isoDay } from "../../src/engines/dates";
import { parseListVersion, parseSanctionsList } from "../../src/engines/screening/ofac-csv";
import { loadSanctionsList, type SanctionsFiles } from "../../src/jobs/refresh-sanctions-list";

/** The real OFAC files (data/ofac/, passed in by vitest.config.ts). */
export const realOfacFiles = (): SanctionsFiles => ({ sdn: env.TEST_OFAC_SDN, alt: env.TEST_OFAC_ALT, comments: env.TEST_OFAC_COMMENTS });

let parsed: ReturnType<typeof parseSanctionsList> | null = null;
export function realSanctionsList() {
  parsed ??= parseSanctionsList(realOfacFiles());
  return parsed;
}

/** How data/ofac/VERSION labels the demo copy: a bound on its publication date, years ago (data/ofac/README.md). */
export function demoListLabel() {
  const label = parseListVersion(env.TEST_OFAC_VERSION);
  if (!label) throw new Error(`data/ofac/VERSION is malformed: "${env.TEST_OFAC_VERSION}"`);
  return label;
}

/**
 * Puts the real list's entries in force in this test file's D1, loaded at `now` and, for tests of
 * matching, dated as if OFAC had published them that day. The demo copy's own label
 * (`demoListLabel()`) makes it years old, and production refuses it: `loadDemoListAsLabelled`.
 */
export function loadRealList(now = new Date()) {
  return loadSanctionsList(getDb(env.DB), realOfacFiles(), { version: isoDay(now), versionBasis: "published", source: "file:data/ofac", now });
}

/** The demo copy as data/ofac/VERSION labels it. */
export function loadDemoListAsLabelled(now = new Date()) {
  return loadSanctionsList(getDb(env.DB), realOfacFiles(), { ...demoListLabel(), source: "file:data/ofac", now });
}

export const complianceCheck = (key: string, body: unknown) =>
  ({ method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }) as const;

/** Gives the organization its own screening settings, kept in its object: the shipped thresholds, with a list older than `maxListAgeDays` stale. */
export async function setMaxListAge(orgId: string, maxListAgeDays: number): Promise<void> {
  const defaults = await getComplianceDefaults(getDb(env.DB));
  if (!defaults) throw new Error("compliance_settings has no default row ('*')");
  const change = { field: "max_list_age_days", column: "maxListAgeDays" as const, value: maxListAgeDays };
  await orgStore(env, orgId).changeComplianceThresholds(orgId, defaults, [change], "test", new Date().toISOString());
}
