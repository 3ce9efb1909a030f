import { type VehicleData, vehicleDataLoad } from "../../../src/db/queries/vehicle";
import { daysBefore, isoDay } from "../../../src/engines/dates";
import { DEMO_VPIC_FILE, readVehicleData } from "../../lib/vehicle-data";
import { type BenchArea, ENGINE_TARGET, READ_TARGET } from "../scenario";

const YEAR = new Date().getUTCFullYear();
const daysAgo = (days: number) => isoDay(daysBefore(new Date(), days));

/** A JPEG-signed data URI of about `bytes` (a desk phone's photo, downscaled by the app before upload). */
function jpegPhoto(bytes: number): string {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  return `data:image/jpeg;base64,${Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x5a)]).toString("base64")}`;
}

/** Two photos of about 150 KB each: the photo scenario's body, also fed to `metered_echo_photos`. */
export const APPRAISAL_PHOTOS = [jpegPhoto(150_000), jpegPhoto(150_000)];

const NOTES = "Small crack in windshield, couple of door dings on the driver side, rear tires worn. Non-smoker, no warning lights.";

/** The VIN `vehicle_decode` asks for: a 2016 Prius (WMI JTD), in the demo vPIC copy. */
const DECODED_VIN = "JTDKARAU9GA123456";

/**
 * The demo vPIC copy's rows for one WMI, the decoded VIN's: the decode reads the WMI's row and its
 * schemas' patterns by index, so the other WMIs' rows change what it reads by nothing. (The whole
 * copy, 44,846 patterns in ~1,800 multi-row INSERTs, closed Miniflare's D1 proxy — "other side
 * closed" — however it was chunked; `npm run dev` loads it through `wrangler d1 execute --file`.)
 */
function vpicRowsOf(wmi: string): VehicleData {
  const data = readVehicleData(DEMO_VPIC_FILE);
  const schemas = data.schemas.filter(([w]) => w === wmi);
  const ids = new Set(schemas.map(([, id]) => id));
  return {
    ...data,
    wmis: data.wmis.filter(([w]) => w === wmi),
    schemas,
    patterns: data.patterns.filter(([id]) => ids.has(id)),
  };
}

/** Trade appraisal: twelve used Camrys in stock and eight sold (the object's), so the comparables path runs; one WMI's vPIC rows for the decode (D1's). */
export const appraisalBench: BenchArea = {
  name: "appraisal",
  async seed(db, { orgId, storeId }) {
    for (const { sql, params } of vehicleDataLoad(vpicRowsOf(DECODED_VIN.slice(0, 3)), new Date().toISOString())) {
      await db
        .prepare(sql)
        .bind(...params)
        .run();
    }
    const camry = { make: "Toyota", model: "Camry", condition: "used", vehicleType: "car" } as const;
    const units = Array.from({ length: 12 }, (_, i) => ({
      ...camry,
      id: `unit_appraisal_${i}`,
      orgId,
      storeId,
      stockNumber: `APR${i}`,
      vin: `VINAPPRAISAL${String(i).padStart(5, "0")}`,
      year: YEAR - 4 + (i % 3),
      trim: "SE",
      mileage: 38_000 + i * 2_500,
      stockedOn: daysAgo(5 + i * 3),
      cost: 19_000 + i * 150,
      askingPrice: 22_995 + (i % 4) * 500,
      status: "in_stock" as const,
    }));
    const deals = Array.from({ length: 8 }, (_, i) => ({
      ...camry,
      id: `deal_appraisal_${i}`,
      orgId,
      storeId,
      dealNumber: `APR-D${i}`,
      soldOn: daysAgo(7 + i * 15),
      status: "funded" as const,
      vin: `VINAPPRSOLD${String(i).padStart(6, "0")}`,
      year: YEAR - 4 + (i % 3),
      sellingPrice: 21_500 + i * 250,
      frontGross: 1500,
      backGross: 1200,
    }));
    return { units, deals };
  },
  scenarios: ({ key }) => {
    const headers = { "X-Service-API-Key": key };
    const trade = { year: YEAR - 3, make: "Toyota", model: "Camry", trim: "SE", mileage: 48_200, market_zip: "78701" };
    return [
      {
        name: "trade_appraisal",
        path: "/api/v1/trade-appraisal",
        method: "POST",
        headers,
        metered: true,
        target: ENGINE_TARGET,
        body: { ...trade, condition_notes: NOTES },
      },
      {
        name: "trade_appraisal_photos",
        path: "/api/v1/trade-appraisal",
        method: "POST",
        headers,
        metered: true,
        body: { ...trade, condition_notes: NOTES, photos: APPRAISAL_PHOTOS },
      },
      {
        // A decode is kept per isolate for ten minutes: a cached GET, held to the cached feed call.
        name: "vehicle_decode",
        path: `/api/v1/vehicles/${DECODED_VIN}`,
        headers,
        metered: true,
        target: READ_TARGET,
      },
    ];
  },
};
