/**
 * Synthetic organizations for the scale benchmark, made by the demo generator from the demo
 * stores as templates: new ids, keys and store ids, so every row is new and the data is a function
 * of the organization's number alone (the generator seeds its streams with the store and deal ids).
 */
import type { DatabaseSync } from "node:sqlite";
import { hashPassword } from "../../src/credentials/password";
import { apiKeyDisplayPrefix, BROKER_TOKEN_PREFIX, generateApiKey, generateToken, sha256Hex } from "../../src/credentials/tokens";
import { buildDemoSeed, DEMO_ORGANIZATIONS, type DemoOrganization, type DemoOrgSeed } from "../../src/demo/demo-data";
import { DEMO_DEAL_DESK_REFERENCE } from "../deal-desk-reference";

/**
 * How many organizations of each size each level adds (stores = sum of size × count), as the US
 * market looks: most dealers have one to three rooftops, some groups ten, a few fifty or more.
 * Each level adds to the one before: 10 → 100 → 1,000 (→ 10,000) stores.
 */
export const LEVELS: readonly { stores: number; adds: readonly [size: number, count: number][] }[] = [
  {
    stores: 10,
    adds: [
      [5, 1],
      [2, 1],
      [1, 3],
    ],
  },
  {
    stores: 100,
    adds: [
      [50, 1],
      [10, 1],
      [3, 2],
      [2, 4],
      [1, 16],
    ],
  },
  {
    stores: 1000,
    adds: [
      [10, 20],
      [5, 20],
      [3, 50],
      [2, 100],
      [1, 250],
    ],
  },
  // `--objects` only (the D1 mode stops at --max-stores, 1,000 by default): the same mix, ten times over.
  {
    stores: 10_000,
    adds: [
      [50, 4],
      [10, 180],
      [5, 200],
      [3, 500],
      [2, 1000],
      [1, 2500],
    ],
  },
];

const TEMPLATE_STORES = DEMO_ORGANIZATIONS.flatMap((org) => org.stores);

/** Organization number `n` with `size` stores, each a copy of a demo store under new ids. */
export function syntheticOrganization(n: number, size: number): DemoOrganization {
  const key = `scale${String(n).padStart(4, "0")}`;
  return {
    key,
    id: `org_${key}`,
    name: `Scale Dealer ${n}`,
    staffUser: { id: `usr_${key}`, name: "Scale Desk" },
    stores: Array.from({ length: size }, (_, i) => ({
      ...TEMPLATE_STORES[(n + i) % TEMPLATE_STORES.length],
      id: `sto_${key}_${i + 1}`,
      name: `Scale ${n} Store ${i + 1}`,
      primary: i === 0,
      // Unique within the organization: the prefix of its stock and deal numbers.
      code: `S${i + 1}`,
    })),
  };
}

export interface SeededOrganization {
  organization: DemoOrganization;
  apiKey: string;
  brokerToken: string;
}

/**
 * Generates `organizations` and writes them straight into the Worker's D1 file (one transaction);
 * returns their credentials. `INSERT OR IGNORE`, as the demo seed: the shared rows (market feed,
 * series) each batch repeats are kept once.
 */
export async function seedOrganizations(db: DatabaseSync, organizations: DemoOrganization[], referenceDate: string, staffPasswordHash: string) {
  const seeded: SeededOrganization[] = [];
  const seeds: DemoOrgSeed[] = [];
  for (const organization of organizations) {
    const apiKey = generateApiKey();
    const brokerToken = generateToken(BROKER_TOKEN_PREFIX);
    seeded.push({ organization, apiKey, brokerToken });
    seeds.push({
      organization,
      credentials: {
        apiKeyHash: await sha256Hex(apiKey),
        apiKeyPrefix: apiKeyDisplayPrefix(apiKey),
        brokerTokenHash: await sha256Hex(brokerToken),
        staffEmail: `desk@${organization.key}.scale.example`,
        staffPasswordHash,
      },
    });
  }
  const rowCounts: Record<string, number> = {};
  db.exec("BEGIN");
  // One organization at a time: a 50-store group is ~70 MB of SQL text, all of them several GB.
  for (const seed of seeds) {
    const { statements, summary } = buildDemoSeed({ referenceDate, organizations: [seed], dealDeskReference: DEMO_DEAL_DESK_REFERENCE });
    for (const statement of statements) db.exec(statement);
    for (const [table, n] of Object.entries(summary.rowCounts)) rowCounts[table] = (rowCounts[table] ?? 0) + n;
  }
  db.exec("COMMIT");
  return { seeded, rowCounts };
}

/** One scrypt hash for every synthetic staff user: nobody logs in, and hashing 500 would take minutes. */
export const staffPasswordHash = () => hashPassword("scale-bench-password-not-a-secret", "local-dev-pepper-not-a-secret");

/** An organization with empty stores and a broker token, for the ingestion measurement (not counted as dealer stores). */
export async function seedIngestOrganization(db: DatabaseSync, stores: number) {
  const brokerToken = generateToken(BROKER_TOKEN_PREFIX);
  const orgId = "org_scale_ingest";
  db.prepare("INSERT INTO organizations (id, name, is_demo) VALUES (?, 'Scale Ingest', 0)").run(orgId);
  const storeIds = Array.from({ length: stores }, (_, i) => `sto_scale_ingest_${i + 1}`);
  for (const [i, id] of storeIds.entries()) {
    db.prepare("INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES (?, ?, ?, ?, '80234')").run(
      id,
      orgId,
      `Ingest ${i + 1}`,
      i === 0 ? 1 : 0,
    );
  }
  db.prepare("INSERT INTO broker_tokens (id, org_id, token_hash, label) VALUES ('brk_scale_ingest', ?, ?, 'scale bench')").run(
    orgId,
    await sha256Hex(brokerToken),
  );
  return { orgId, storeIds, brokerToken };
}
