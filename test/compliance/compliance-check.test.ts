import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isoDay } from "../../src/engines/dates";
import type { ValidationDetail } from "../../src/http/errors";
import type { ComplianceCheckResultSchema } from "../../src/routes/compliance/compliance.routes";
import { complianceCheck, loadRealList, setMaxListAge } from "../helpers/compliance";
import { listOutboxEvents } from "../helpers/events";
import { call, createApiKey, createOrg } from "../helpers/factories";
import { rowsInObject } from "../helpers/org-storage";

const DAY_MS = 86_400_000;
// Loading the whole real list into D1 takes several seconds in workerd.
const LOAD_TIMEOUT_MS = 60_000;
const clean = { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821", address_zip: "78704" };

/** The service re-reads the list in force at most once a minute; tests that change it move the clock past that. */
function advanceClock(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now() + ms);
}

afterEach(() => vi.useRealTimers());

type CheckBody = z.infer<typeof ComplianceCheckResultSchema> & { details: ValidationDetail[] };
type Match = NonNullable<CheckBody["screening"]["match"]>;

async function check(key: string, body: unknown) {
  const res = await call("/api/v1/compliance-check", complianceCheck(key, body));
  return { res, body: (await res.json()) as CheckBody };
}

describe("POST /api/v1/compliance-check", () => {
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    orgId = (await createOrg()).id;
    key = (await createApiKey(orgId)).key;
  });

  it("fails closed with no list loaded: a clean customer is flagged, never passed", async () => {
    const { res, body } = await check(key, clean);
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ result: "flag", ofac_match: false, triggered_rule: "ofac_list_unavailable", red_flags: [] });
    expect(body.screening.list).toBeNull();
  });

  it(
    "passes a clean customer once the real list is loaded, and names the list version",
    async () => {
      await loadRealList();
      advanceClock(2 * 60_000);
      const { body } = await check(key, clean);
      expect(body).toMatchObject({ result: "pass", ofac_match: false, triggered_rule: null });
      expect(body.screening.list).toMatchObject({
        version: isoDay(new Date()),
        version_basis: "published",
        age_days: 0,
        max_age_days: 45,
        stale: false,
      });
      expect(body.screening.score).toBeLessThan(85);
      expect(body.screening.match).toBeNull();
    },
    LOAD_TIMEOUT_MS,
  );

  it("holds a listed individual by primary name, with the entry and the rule", async () => {
    const { body } = await check(key, { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05" });
    expect(body).toMatchObject({ result: "hold", ofac_match: true, triggered_rule: "ofac_sdn_match" });
    expect(body.screening.match).toMatchObject({ sdn_name: expect.stringMatching(/^KADYROV, Ramzan/), dob: "match" });
    expect((body.screening.match as Match).score).toBeGreaterThanOrEqual(95);
  });

  it("flags a listed name whose date of birth contradicts the list, instead of holding it", async () => {
    const { body } = await check(key, { first_name: "Ramzan", last_name: "Kadyrov", dob: "1990-01-01" });
    expect(body).toMatchObject({ result: "flag", triggered_rule: "ofac_potential_match", ofac_match: false });
    expect((body.screening.match as Match).dob).toBe("conflict");
  });

  it("flags a clean name with identity red flags, each as {code, field, message}", async () => {
    const { body } = await check(key, { ...clean, ssn_last4: "0000", address_zip: "00000" });
    expect(body).toMatchObject({ result: "flag", triggered_rule: "identity_red_flag" });
    expect(body.red_flags.map((f) => f.code).sort()).toEqual(["ssn_never_issued", "zip_not_found"]);
    expect(body.red_flags[0]).toEqual({ code: expect.any(String), field: expect.any(String), message: expect.any(String) });
  });

  it("answers 422 with details for missing or malformed fields", async () => {
    const { res, body } = await check(key, { first_name: "A", last_name: "B", dob: "1990-02-30", ssn_last4: "123", address_zip: "1234" });
    expect(res.status).toBe(422);
    expect(body.details.map((d) => d.path).sort()).toEqual(["address_zip", "dob", "ssn_last4"]);
    const missing = await check(key, { first_name: "A" });
    expect(missing.body.details.map((d) => d.path).sort()).toEqual(["dob", "last_name"]);
    // 1900 was not a leap year; a date with a time or without zero padding is not YYYY-MM-DD.
    for (const dob of ["1900-02-29", "1984-06-12T00:00:00Z", "1984-6-12"]) {
      const { res, body } = await check(key, { ...clean, dob });
      expect([res.status, body.details]).toEqual([
        422,
        [{ path: "dob", code: "invalid_format", message: "must be a real calendar date, YYYY-MM-DD" }],
      ]);
    }
  });

  it("refuses a key whose scopes leave out compliance-check", async () => {
    const scoped = await createApiKey(orgId, { scopes: ["lender-route"] });
    expect((await check(scoped.key, clean)).res.status).toBe(403);
  });

  it("fails closed on a list published longer ago than the organization's limit: 503, nothing screened as clear", async () => {
    const stale = await createOrg();
    const staleKey = (await createApiKey(stale.id)).key;
    await setMaxListAge(stale.id, 10);
    advanceClock(11 * DAY_MS);
    const { res, body } = await check(staleKey, clean);
    expect(res.status).toBe(503);
    expect(body).toMatchObject({ error: "sanctions_list_stale" });
    // A listed name still holds on a stale list: the match is real.
    const held = await check(staleKey, { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05" });
    expect(held.body.result).toBe("hold");
    // Under the default limit (45 days) the same list is still current.
    expect((await check(key, clean)).body.result).toBe("pass");
  });
});

/** An organization with a key. */
async function orgWithKey() {
  const org = await createOrg();
  return { org, ...(await createApiKey(org.id)) };
}

// After the list is loaded above.
describe("the history and the audit trail", () => {
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    ({
      key,
      org: { id: orgId },
    } = await orgWithKey());
  });

  it("flags the same SSN last four and date of birth seen under another name in this organization", async () => {
    await check(key, { first_name: "Paul", last_name: "Whitman", dob: "1979-02-03", ssn_last4: "7311" });
    const { body } = await check(key, { first_name: "Peter", last_name: "Langley", dob: "1979-02-03", ssn_last4: "7311" });
    expect(body.red_flags.map((f) => f.code)).toContain("ssn_shared_with_other_name");
    // Another organization's history is not this one's.
    const other = await orgWithKey();
    const { body: elsewhere } = await check(other.key, { first_name: "Peter", last_name: "Langley", dob: "1979-02-03", ssn_last4: "7311" });
    expect(elsewhere.red_flags).toEqual([]);
  });

  it("flags the same name and ZIP checked before with another date of birth in this organization", async () => {
    const person = { first_name: "Dana", last_name: "Whitfield", address_zip: "78704" };
    await check(key, { ...person, dob: "1985-03-09" });
    const { body } = await check(key, { ...person, dob: "1986-03-09" });
    expect(body).toMatchObject({ result: "flag", triggered_rule: "identity_red_flag" });
    expect(body.red_flags.map((f) => f.code)).toEqual(["dob_differs_from_file"]);
    const other = await orgWithKey();
    const { body: elsewhere } = await check(other.key, { ...person, dob: "1987-03-09" });
    expect(elsewhere.red_flags).toEqual([]);
  });

  it("never matches two checks on what neither gave: no SSN digits or no ZIP is no history", async () => {
    // Same name and date of birth without SSN digits, then the same name with other dates of birth without a ZIP.
    await check(key, { first_name: "Grace", last_name: "Holloway", dob: "1990-07-21" });
    const { body: noSsn } = await check(key, { first_name: "Irene", last_name: "Holloway", dob: "1990-07-21" });
    const { body: noZip } = await check(key, { first_name: "Grace", last_name: "Holloway", dob: "1991-07-21" });
    expect([noSsn.red_flags, noZip.red_flags]).toEqual([[], []]);
  });

  it("flags one of two simultaneous checks of the same SSN last four and date of birth under different names", async () => {
    const ssnAndDob = { dob: "1981-06-14", ssn_last4: "5902", address_zip: "78704" };
    const [first, second] = await Promise.all([
      check(key, { ...ssnAndDob, first_name: "Laura", last_name: "Benson" }),
      check(key, { ...ssnAndDob, first_name: "Maria", last_name: "Okafor" }),
    ]);
    const flagged = [first.body, second.body].filter((b) => b.red_flags.some((f) => f.code === "ssn_shared_with_other_name"));
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).toMatchObject({ result: "flag", triggered_rule: "identity_red_flag" });
    // What the caller was told is what the audit trail holds.
    const [stored] = await rowsInObject(orgId, "SELECT result, triggered_rule, red_flags FROM compliance_checks WHERE id = ?", flagged[0].check_id);
    expect(stored).toEqual({ result: "flag", triggered_rule: "identity_red_flag", red_flags: JSON.stringify(["ssn_shared_with_other_name"]) });
  });

  it("refuses a full SSN or any other undeclared field with a 422 naming the field (never its value), and stores nothing", async () => {
    const count = async () => (await rowsInObject<{ n: number }>(orgId, "SELECT count(*) AS n FROM compliance_checks WHERE org_id = ?", orgId))[0].n;
    const before = await count();
    const { res, body } = await check(key, { ...clean, ssn: "123-45-6789", email: "emily@example.com" });
    expect(res.status).toBe(422);
    expect(body.details.map((d) => [d.path, d.code])).toEqual([
      ["ssn", "unrecognized_keys"],
      ["email", "unrecognized_keys"],
    ]);
    expect(JSON.stringify(body)).not.toMatch(/6789|emily/i);
    expect(await count()).toBe(before);
  });

  it("records every check without the person's name, date of birth or SSN digits, and shows it to its own organization only", async () => {
    const { org, key, id: keyId } = await orgWithKey();
    const person = { first_name: "Ramzan", last_name: "Kadyrov", dob: "1976-10-05", ssn_last4: "9051", address_zip: "10001" };
    const { body } = await check(key, person);
    expect(body.result).toBe("hold");

    const [row] = await rowsInObject(org.id, "SELECT * FROM compliance_checks WHERE id = ?", body.check_id);
    // The keyed hashes are 64 hex digits (nothing else fits); a digit string like "9051" turns up in one now and then by chance.
    const { person_hash, ssn_dob_hash, name_zip_hash, name_hash, dob_hash, ...plain } = row ?? {};
    for (const hash of [person_hash, ssn_dob_hash, name_zip_hash, name_hash, dob_hash]) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const stored = JSON.stringify(plain);
    for (const value of ["Ramzan", "RAMZAN", "Kadyrov", "KADYROV", "1976-10-05", "19761005", "9051", "10001"]) expect(stored).not.toContain(value);
    expect(row).toMatchObject({ org_id: org.id, key_id: keyId, result: "hold", triggered_rule: "ofac_sdn_match", hold_score: 95, flag_score: 85 });

    // The hold raised its event with the audit row (the outbox), carrying no personal data either.
    const raised = await listOutboxEvents(org.id, "compliance.hold_triggered");
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ org_id: org.id, data: { check_id: body.check_id, triggered_rule: "ofac_sdn_match" } });
    for (const value of ["Ramzan", "Kadyrov", "1976-10-05", "9051", "10001"]) expect(JSON.stringify(raised)).not.toContain(value);
    await check(key, clean);
    expect(await listOutboxEvents(org.id, "compliance.hold_triggered")).toHaveLength(1);

    const got = await call(`/api/v1/compliance-checks/${body.check_id}`, { key });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({
      check_id: body.check_id,
      result: "hold",
      ofac_match: true,
      triggered_rule: "ofac_sdn_match",
      score: body.screening.score,
      hold_threshold: 95,
      flag_threshold: 85,
      list_version: body.screening.list?.version,
      matched_ent_num: (body.screening.match as Match).ent_num,
      key_id: keyId,
      checked_at: body.checked_at,
    });

    const stranger = await orgWithKey();
    const hidden = await call(`/api/v1/compliance-checks/${body.check_id}`, { key: stranger.key });
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({ error: "not_found" });
  });
});
