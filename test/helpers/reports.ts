import { DEMO_DEAL_DESK_REFERENCE } from "../../scripts/deal-desk-reference";
import {
  apiKeyDisplayPrefix,
  BROKER_TOKEN_PREFIX,
  generateApiKey,
  generateToken,
  LEGACY_TOKEN_PREFIX,
  sha256Hex,
} from "../../src/credentials/tokens";
import { type DemoCredentials, demoOrgSeeds } from "../../src/demo/demo-data";
import { loadDemo } from "./demo";
import { createApiKey, createOrg, createStore, createUnit, type NewUnit } from "./factories";
import { rowsInObject } from "./org-storage";

export const today = () => new Date().toISOString().slice(0, 10);
export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Seeds the demo organizations as of today and returns a working key for each. */
export async function seedDemoOrgs(): Promise<{ summitKey: string; lakesideKey: string }> {
  const summitKey = generateApiKey();
  const lakesideKey = generateApiKey();
  const org = async (apiKey: string, email: string) => ({
    apiKeyHash: await sha256Hex(apiKey),
    apiKeyPrefix: apiKeyDisplayPrefix(apiKey),
    brokerTokenHash: await sha256Hex(generateToken(BROKER_TOKEN_PREFIX)),
    staffEmail: email,
    // Staff logins are not used by these tests.
    staffPasswordHash: "scrypt$unused",
  });
  const credentials: DemoCredentials = {
    summit: { ...(await org(summitKey, "desk@summit.reports.test")), legacyTokenHash: await sha256Hex(generateToken(LEGACY_TOKEN_PREFIX, 32)) },
    lakeside: await org(lakesideKey, "gm@lakeside.reports.test"),
  };
  await loadDemo({ referenceDate: today(), organizations: demoOrgSeeds(credentials), dealDeskReference: DEMO_DEAL_DESK_REFERENCE });
  return { summitKey, lakesideKey };
}

/** A unit with every figure the alert engine reads, and optionally a stored valuation, where the organization's data is. */
export async function createValuedUnit(
  orgId: string,
  storeId: string,
  unit: { stockNumber: string; stockedOn: string; cost: number; askingPrice: number; marketValue?: number; condition?: NewUnit["condition"] },
) {
  const { marketValue, ...fields } = unit;
  const { id } = await createUnit(orgId, storeId, fields);
  if (marketValue !== undefined) {
    await rowsInObject(
      orgId,
      "INSERT INTO unit_market_values (unit_id, org_id, market_value, as_of, source) VALUES (?, ?, ?, ?, 'test')",
      id,
      orgId,
      marketValue,
      today(),
    );
  }
  return { id };
}

/** Another organization with one aged, valued unit: what an isolation test must never see. Returns its key. */
export async function createOtherOrgWithAgedUnit(): Promise<string> {
  const other = await createOrg();
  const otherStore = await createStore(other.id, { isPrimary: true });
  await createValuedUnit(other.id, otherStore.id, {
    stockNumber: "B-AGED",
    stockedOn: daysAgo(70),
    cost: 15_000,
    askingPrice: 21_000,
    marketValue: 20_000,
  });
  return (await createApiKey(other.id)).key;
}
