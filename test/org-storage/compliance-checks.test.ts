import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { COMPLIANCE_CHECKS_RETENTION } from "../../src/db/queries/retention";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { createOrg } from "../helpers/factories";
import { nightlyRuns, rowsInObject } from "../helpers/org-storage";

const DAY = 86_400_000;

/** A recorded check of `orgId` at `checkedAt`, as the screening writes it (hashes only), in the organization's object. */
const insertCheck = (orgId: string, id: string, checkedAt: number) =>
  rowsInObject(
    orgId,
    `INSERT INTO compliance_checks (id, org_id, key_id, result, score, hold_score, flag_score, max_list_age_days, red_flags, safeguards_flags, person_hash, name_hash, dob_hash, checked_at)
     VALUES (?, ?, 'key_test', 'pass', 10, 95, 85, 45, '[]', '[]', 'p', 'n', 'd', ?)`,
    id,
    orgId,
    new Date(checkedAt).toISOString(),
  );

describe("an organization's compliance checks: retention in its object", () => {
  it("its alarm deletes the checks past the audit trail's retention in the object and keeps a younger one", async () => {
    // The object's 00:15 run (the crons' purge-expired-records time), among its next three.
    const { order, agedAt: purgeAt } = nightlyRuns();
    const kept = COMPLIANCE_CHECKS_RETENTION.keptDays;
    const org = await createOrg();
    await insertCheck(org.id, "chk_expired", purgeAt - (kept + 1) * DAY);
    await insertCheck(org.id, "chk_young", purgeAt - (kept - 1) * DAY);
    await insertCheck(org.id, "chk_today", purgeAt - DAY);
    const held = async () => (await rowsInObject<{ id: string }>(org.id, "SELECT id FROM compliance_checks ORDER BY id")).map((r) => r.id);
    expect(await held()).toEqual(["chk_expired", "chk_today", "chk_young"]);

    // The three nightly runs, in their order: the purge runs at 00:15 (the crons' time), not at 05:00 or 06:00.
    for (const at of order) {
      expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
      if (at < purgeAt) expect(await held()).toHaveLength(3);
      else expect(await held()).toEqual(["chk_today", "chk_young"]);
    }
  });
});
