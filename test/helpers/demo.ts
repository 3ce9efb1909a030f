import { env } from "cloudflare:workers";
import { buildDemoSeed, type DemoSeedInput } from "../../src/demo/demo-data";
import { seedDemoObjects } from "../../src/demo/demo-objects";

/** The demo seed as the local demo gets it: D1's rows, then each organization's own rows in its storage object. */
export async function loadDemo(input: DemoSeedInput) {
  const seed = buildDemoSeed(input);
  await env.DB.batch(seed.statements.map((statement) => env.DB.prepare(statement)));
  await seedDemoObjects(env, [...new Set(input.organizations.map((org) => org.organization.id))], seed.inventory);
  return seed;
}
