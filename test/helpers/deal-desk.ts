import { env } from "cloudflare:workers";
import { DEMO_DEAL_DESK_REFERENCE } from "../../scripts/deal-desk-reference";
import { getDb } from "../../src/db/client";
import { lenderDecisions, storeLenderPanel } from "../../src/db/org-schema";
import { lenderPrograms } from "../../src/db/schema";
import { type DemoCredentials, demoOrgSeeds } from "../../src/demo/demo-data";
import { newId } from "../../src/lib/ids";
import { COACH_REFERENCE } from "./deal-desk-reference";
import { loadDemo } from "./demo";
import { call, createApiKey, createOrg, createStore, insertInObject } from "./factories";
import { rowsInObject } from "./org-storage";
import { all } from "./sql";

const db = () => getDb(env.DB);

/** An organization (in its object, or in D1 for a test of the move) with a primary store whose panel holds the named programs (default: every program), and a key. */
export async function createDeskOrg(options: { programIds?: string[] } = {}) {
  const org = await createOrg();
  const store = await createStore(org.id, { isPrimary: true });
  const programIds = options.programIds ?? (await db().select({ id: lenderPrograms.id }).from(lenderPrograms)).map((r) => r.id);
  await setPanel(org.id, store.id, programIds);
  const { key } = await createApiKey(org.id);
  return { orgId: org.id, storeId: store.id, key };
}

/**
 * The store's panel is the named programs, where the organization's settings are (docs/scaling.md): D1, or its object's own
 * SQLite, in place of the one it had.
 */
export async function setPanel(orgId: string, storeId: string, programIds: string[]) {
  await rowsInObject(orgId, "DELETE FROM store_lender_panel WHERE store_id = ?", storeId);
  await insertInObject(
    orgId,
    storeLenderPanel,
    programIds.map((programId) => ({ orgId, storeId, programId })),
  );
}

type NewDecision = typeof lenderDecisions.$inferInsert;

/** `count` submissions of one decision to a program in a score band, each with the given turnaround. */
export async function addDecisions(
  orgId: string,
  storeId: string,
  programId: string,
  scoreBand: NewDecision["scoreBand"],
  decision: NewDecision["decision"],
  count: number,
  turnaroundHours: number | null = null,
) {
  const rows = Array.from(
    { length: count },
    (): NewDecision => ({
      id: newId("ld"),
      orgId,
      storeId,
      programId,
      submittedOn: "2026-06-01",
      scoreBand,
      decision,
      stipsAsked: [],
      turnaroundHours,
    }),
  );
  await insertInObject(orgId, lenderDecisions, rows);
}

export function post(path: string, key: string, body: unknown) {
  return call(path, { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** The demo seed (both demo organizations, their stores, panels and two years of lender decisions) as of a day. */
export async function loadDemoSeed(referenceDate = "2026-11-20") {
  const org = { apiKeyHash: "0".repeat(64), apiKeyPrefix: "lak_demo", brokerTokenHash: "1".repeat(64), staffPasswordHash: "x" };
  const credentials: DemoCredentials = {
    summit: { ...org, staffEmail: "desk@summit.test", legacyTokenHash: "2".repeat(64) },
    lakeside: { ...org, apiKeyHash: "3".repeat(64), brokerTokenHash: "4".repeat(64), staffEmail: "gm@lakeside.test" },
  };
  await loadDemo({ referenceDate, organizations: demoOrgSeeds(credentials), dealDeskReference: DEMO_DEAL_DESK_REFERENCE });
}

/** COACH_REFERENCE with the shipped default depreciation curve (the appraisal's rows without an organization). */
export async function coachReferenceWithCurve() {
  const retentionCurve = await all<{ ageYears: number; residualPct: number }>(
    "SELECT age_years AS ageYears, residual_pct AS residualPct FROM appraisal_retention_curve WHERE org_id IS NULL ORDER BY age_years",
  );
  return { ...COACH_REFERENCE, retentionCurve };
}
