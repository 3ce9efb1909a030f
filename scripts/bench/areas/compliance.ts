import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { getDb } from "../../../src/db/client";
import { loadSanctionsList } from "../../../src/jobs/refresh-sanctions-list";
import { DEMO_OFAC_DIR } from "../../lib/sanctions-list";
import type { BenchArea } from "../scenario";

const read = (file: string) => gunzipSync(readFileSync(path.join(DEMO_OFAC_DIR, file))).toString("utf8");

/**
 * The whole real SDN list is loaded, so each call screens against about 4,600 individuals and
 * 6,300 aliases. The first `compliance_pass` call of the run is the isolate's first: its time
 * (the "first call" column) is reading the list from D1 and building the index. Every call also
 * looks up the organization's screening history and writes its audit row.
 */
export const complianceBench: BenchArea = {
  name: "compliance",
  async seed(db) {
    await loadSanctionsList(
      getDb(db),
      { sdn: read("sdn.csv.gz"), alt: read("alt.csv.gz"), comments: read("sdn_comments.csv.gz") },
      { version: readFileSync(path.join(DEMO_OFAC_DIR, "VERSION"), "utf8").trim(), source: "file:bench", now: new Date() },
    );
  },
  scenarios: ({ key }) => [
    {
      name: "compliance_pass",
      path: "/api/v1/compliance-check",
      method: "POST",
      headers: { "X-Service-API-Key": key },
      body: { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821", address_zip: "78704" },
      metered: true,
    },
    {
      name: "compliance_hold",
      path: "/api/v1/compliance-check",
      method: "POST",
      headers: { "X-Service-API-Key": key },
      body: { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05", address_zip: "10001" },
      metered: true,
    },
  ],
};
