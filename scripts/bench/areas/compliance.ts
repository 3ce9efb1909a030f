import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { getDb } from "../../../src/db/client";
import { parseSanctionsList } from "../../../src/engines/screening/ofac-csv";
import { buildSanctionsIndex, screenPerson } from "../../../src/engines/screening/sanctions-index";
import { loadSanctionsList, type SanctionsFiles } from "../../../src/jobs/refresh-sanctions-list";
import { DEMO_OFAC_DIR, listVersion } from "../../lib/sanctions-list";
import { type BenchArea, type Measurement, RECORDING_TARGET } from "../scenario";

/** A hold against the same write with an event raised (issue 37): the event is part of what a hold must do. */
const HOLD_TARGET = { of: "metered_event", ratio: 0.85 };

const read = (file: string) => gunzipSync(readFileSync(path.join(DEMO_OFAC_DIR, file))).toString("utf8");
const demoFiles = (): SanctionsFiles => ({ sdn: read("sdn.csv.gz"), alt: read("alt.csv.gz"), comments: read("sdn_comments.csv.gz") });

const PASS_PERSON = { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821", address_zip: "78704" };
const HOLD_PERSON = { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05", address_zip: "10001" };
const MATCHES = 2_000;

/**
 * The match alone, as the issue states its target ("well under 5 ms of CPU"): the engine's own
 * code on the whole real list, timed by this process's CPU clock. The request-rate scenarios add
 * the request path and the one D1 statement that records each check.
 */
/** The flag and hold lines the `compliance_reference` migration ships (docs/domain/screening.md#thresholds). */
const SHIPPED_LINES = { holdScore: 95, flagScore: 85 };

async function measureMatch(): Promise<Measurement[]> {
  const list = parseSanctionsList(demoFiles());
  const individuals = new Set(list.entries.filter((e) => e.sdnType === "individual").map((e) => e.entNum));
  const index = buildSanctionsIndex({
    entries: list.entries.filter((e) => individuals.has(e.entNum)),
    aliases: list.aliases.filter((a) => individuals.has(a.entNum)),
    dobs: list.dobs.filter((d) => individuals.has(d.entNum)),
  });
  return [PASS_PERSON, HOLD_PERSON].map((p) => {
    const person = { firstName: p.first_name, lastName: p.last_name, dob: p.dob };
    for (let i = 0; i < MATCHES / 10; i++) screenPerson(index, person, SHIPPED_LINES);
    const start = process.cpuUsage();
    for (let i = 0; i < MATCHES; i++) screenPerson(index, person, SHIPPED_LINES);
    const { user, system } = process.cpuUsage(start);
    const ms = (user + system) / 1000 / MATCHES;
    return {
      name: "screening_match",
      detail: `${p.first_name} ${p.last_name} against ${individuals.size.toLocaleString("en-US")} listed individuals, CPU per match`,
      value: Number(ms.toFixed(3)),
      unit: "ms",
      rate: Math.round(1000 / ms),
      rateUnit: "matches/s",
    };
  });
}

/**
 * The whole real SDN list is loaded, so each call screens against about 4,600 individuals and
 * 6,300 aliases. The first `compliance_pass` call of the run is the isolate's first: its time
 * (the "first call" column) is reading the list from D1 and building the index. Every call also
 * reads the organization's screening history and records its audit row, in one D1 statement.
 */
export const complianceBench: BenchArea = {
  name: "compliance",
  async seed(db) {
    await loadSanctionsList(getDb(db), demoFiles(), {
      ...listVersion(DEMO_OFAC_DIR),
      source: "file:bench",
      now: new Date(),
    });
  },
  scenarios: ({ key }) => [
    {
      name: "compliance_pass",
      path: "/api/v1/compliance-check",
      method: "POST",
      headers: { "X-Service-API-Key": key },
      body: PASS_PERSON,
      metered: true,
      target: RECORDING_TARGET,
    },
    {
      name: "compliance_hold",
      path: "/api/v1/compliance-check",
      method: "POST",
      headers: { "X-Service-API-Key": key },
      body: HOLD_PERSON,
      metered: true,
      target: HOLD_TARGET,
    },
  ],
  measurements: [{ name: "screening_match", run: measureMatch }],
};
