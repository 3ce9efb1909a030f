import { sql } from "drizzle-orm";
import { SANDBOX_LIFETIME_DAYS, SANDBOXES_PER_ADDRESS_PER_DAY, TEST_KEY_DAILY_LIMIT } from "../../credentials/sandbox-limits";
import { apiKeyDisplayPrefix, BROKER_TOKEN_PREFIX, generateApiKey, generateToken, hmacSha256Hex, sha256Hex } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import { loadDealDeskReference } from "../../db/queries/deal-desk";
import { countSandboxRequest, tablesWithOrgId } from "../../db/queries/sandboxes";
import { buildDemoSeed, DEMO_ORGANIZATIONS, type DemoOrganization } from "../../demo/demo-data";
import { seedDemoObjects } from "../../demo/demo-objects";
import { DAY_MS } from "../../engines/dates";
import { purgeSandbox } from "../../jobs/purge-expired-sandboxes";
import { DomainError } from "../../lib/domain-error";
import { randomBase62 } from "../../lib/ids";
import { describeError, logEvent } from "../../lib/log";

/**
 * Months of deal history a sandbox is seeded with. The demo's 24 took 2.3 s to generate and insert
 * in local workerd (about 20,000 rows), close to the 3 s an integrator should wait and slower on
 * production D1; 6 months take 0.2–0.5 s and every report and engine still has a history to read.
 */
const SANDBOX_HISTORY_MONTHS = 6;
/** Statements per D1 batch: each statement is under 100 KB (insertOrIgnore), a batch a few MB. */
const STATEMENTS_PER_BATCH = 25;

/** The template: Summit Auto Group's two stores and mix, under fresh ids. */
const TEMPLATE = DEMO_ORGANIZATIONS[0];

/** Uniform over [0-9a-z]: base62's upper-case letters are dropped, so ids stay lower-case like the demo's. */
function lowerAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) out += randomBase62(length).replaceAll(/[A-Z]/g, "");
  return out.slice(0, length);
}

function sandboxOrganization(suffix: string): DemoOrganization {
  return {
    key: `sbx_${suffix}`,
    id: `org_sbx_${suffix}`,
    name: `Sandbox ${suffix} (demo data of ${TEMPLATE.name})`,
    staffUser: { id: `usr_sbx_${suffix}`, name: "Sandbox staff" },
    stores: TEMPLATE.stores.map((store) => ({ ...store, id: store.id.replace(/^sto_[a-z]+_/, `sto_sbx_${suffix}_`) })),
  };
}

/** The client address as it is stored (daily counts, Idempotency-Key scope): keyed, never raw. */
export const sandboxAddressHash = (pepper: string, address: string) => hmacSha256Hex(pepper, `sandbox-address:${address}`);

/**
 * 429 past the client's burst (the Workers binding) or its exact daily cap (D1, by a keyed hash).
 * `client` is the address as limits count it: an IPv6 caller by its /64 (`limitedClient`).
 */
export async function admitSandboxRequest(env: Env, db: Database, pepper: string, client: string, now: Date): Promise<void> {
  const { success } = await env.SANDBOX_RATE_LIMITER.limit({ key: `sandbox:${client}` });
  if (!success) {
    throw new DomainError("too_often", "Too many sandboxes from this client in a minute; try again in a minute.", { retryAfterSeconds: 60 });
  }
  const day = now.toISOString().slice(0, 10);
  const count = await countSandboxRequest(db, day, sandboxAddressHash(pepper, client));
  if (count > SANDBOXES_PER_ADDRESS_PER_DAY) {
    const secondsToMidnight = Math.ceil((Date.parse(day) + DAY_MS - now.getTime()) / 1000);
    throw new DomainError(
      "too_often",
      `At most ${SANDBOXES_PER_ADDRESS_PER_DAY} sandboxes a day from one client address; try again after 00:00 UTC.`,
      { retryAfterSeconds: secondsToMidnight },
    );
  }
}

/**
 * A sandbox organization seeded with the demo data under fresh ids, with a `lak_test_` key and a
 * broker token (both shown once). It lives in its own storage object from the start
 * (`storage = 'object'`, docs/scaling.md): its inventory (units and their market values) goes
 * there in one call, the rest through D1 batches of the generator's chunked INSERTs, D1 first, so
 * the organization exists when the object's purge asks. If anything fails, what was written is
 * purged at once, object and D1 (and would be by the nightly purge).
 */
export async function createSandbox(env: Pick<Env, "ORG_STORE">, db: Database, now: Date) {
  const suffix = lowerAlphanumeric(12);
  const organization = sandboxOrganization(suffix);
  const expiresAt = new Date(now.getTime() + SANDBOX_LIFETIME_DAYS * DAY_MS).toISOString();
  const apiKey = generateApiKey("test");
  const brokerToken = generateToken(BROKER_TOKEN_PREFIX);
  const reference = await loadDealDeskReference(db);
  const { statements, inventory } = buildDemoSeed({
    referenceDate: now.toISOString().slice(0, 10),
    organizations: [
      {
        organization,
        credentials: {
          apiKeyHash: await sha256Hex(apiKey),
          apiKeyPrefix: apiKeyDisplayPrefix(apiKey),
          brokerTokenHash: await sha256Hex(brokerToken),
          // No one logs in to a sandbox: the address is reserved (.invalid) and the hash matches no password.
          staffEmail: `${suffix}@sandbox.invalid`,
          staffPasswordHash: "sandbox-no-login",
        },
        sandbox: { expiresAt },
      },
    ],
    dealDeskReference: { tiers: reference.tiers, programs: reference.programs, stipRules: reference.stipRules, stipTypes: reference.stipTypes },
    historyMonths: SANDBOX_HISTORY_MONTHS,
    sharedRows: false,
  });
  try {
    for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) {
      const [first, ...rest] = statements.slice(i, i + STATEMENTS_PER_BATCH).map((statement) => db.run(sql.raw(statement)));
      await db.batch([first, ...rest]);
    }
    await seedDemoObjects(env, [organization.id], inventory);
  } catch (error) {
    logEvent("error", { event: "sandbox_seed_failed", org_id: organization.id, ...describeError(error) });
    await purgeSandbox(env, db, await tablesWithOrgId(db), organization.id);
    throw error;
  }
  return {
    organization_id: organization.id,
    name: organization.name,
    mode: "test" as const,
    expires_at: expiresAt,
    api_key: apiKey,
    daily_limit: TEST_KEY_DAILY_LIMIT,
    broker_token: brokerToken,
    stores: organization.stores.map((store) => ({ id: store.id, name: store.name, is_primary: store.primary })),
  };
}
