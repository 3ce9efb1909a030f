import { env } from "cloudflare:workers";
import { type VehicleData, vehicleDataLoad } from "../../src/db/queries/vehicle";

/** Puts the dated demo copy of the vPIC data (data/vpic/, passed in by vitest.config.ts) in force in this test file's D1. */
export async function loadDemoVehicleData(now = new Date()) {
  const data = JSON.parse(env.TEST_VPIC_DATA) as VehicleData;
  const statements = vehicleDataLoad(data, now.toISOString()).map(({ sql, params }) => env.DB.prepare(sql).bind(...params));
  for (let i = 0; i < statements.length; i += 500) await env.DB.batch(statements.slice(i, i + 500));
  return data;
}
