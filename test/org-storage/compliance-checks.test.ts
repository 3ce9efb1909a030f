import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { groupDigest } from "../../src/db/queries/org-storage";
import { COMPLIANCE_CHECKS_RETENTION } from "../../src/db/queries/retention";
import { moveToD1, moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { nextNightlyRun } from "../../src/jobs/org-nightly";
import { createOrg } from "../helpers/factories";
import { rowsWhereStored } from "../helpers/org-storage";

const DAY = 86_400_000;

/** A recorded check of `orgId` at `checkedAt`, as the screening writes it (hashes only), where the organization's data is. */
const insertCheck = (orgId: string, id: string, checkedAt: number) =>
  rowsWhereStored(
    orgId,
    `INSERT INTO compliance_checks (id, org_id, key_id, result, score, hold_score, flag_score, max_list_age_days, red_flags, safeguards_flags, person_hash, name_hash, dob_hash, checked_at)
     VALUES (?, ?, 'key_test', 'pass', 10, 95, 85, 45, '[]', '[]', 'p', 'n', 'd', ?)`,
    id,
    orgId,
    new Date(checkedAt).toISOString(),
  );

describe("an organization's compliance checks in its object: retention where the data is, and the move's copy", () => {
  it("its alarm deletes the checks past the audit trail's retention in the object and keeps a younger one", async () => {
    // The object's 00:15 run (the crons' purge-expired-records time) is the first or second run after now.
    const first = nextNightlyRun(Date.now());
    const purgeAt = new Date(first).getUTCHours() === 0 ? first : nextNightlyRun(first);
    const kept = COMPLIANCE_CHECKS_RETENTION.keptDays;
    const org = await createOrg();
    await insertCheck(org.id, "chk_expired", purgeAt - (kept + 1) * DAY);
    await insertCheck(org.id, "chk_young", purgeAt - (kept - 1) * DAY);
    await insertCheck(org.id, "chk_today", purgeAt - DAY);
    const held = async () => (await rowsWhereStored<{ id: string }>(org.id, "SELECT id FROM compliance_checks ORDER BY id")).map((r) => r.id);
    expect(await held()).toEqual(["chk_expired", "chk_today", "chk_young"]);

    // Both nightly runs, in their order: the purge runs at 00:15 (the crons' time), not at 06:00.
    for (const at of [first, nextNightlyRun(first)]) {
      expect(await runDurableObjectAlarm(orgStore(env, org.id))).toBe(true);
      if (at < purgeAt) expect(await held()).toHaveLength(3);
      else expect(await held()).toEqual(["chk_today", "chk_young"]);
    }
  });

  // An undo deletes from D1's copy what the object's retention deleted: this test's checks gone in the object.
  it("copies 1,001 checks in pages, each once; the undo writes them back page by page and deletes only what the object no longer holds", async () => {
    const org = await createOrg({ place: "d1" });
    // Three pages of the copy (500 a page), ids in order, checked a day apart back from yesterday.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1001)
       INSERT INTO compliance_checks (id, org_id, key_id, result, score, hold_score, flag_score, max_list_age_days, red_flags, safeguards_flags, person_hash, name_hash, dob_hash, checked_at)
       SELECT printf('chk_%05d', i), ?, 'key_test', 'pass', i, 95, 85, 45, '[]', '["no_tls"]', 'p' || i, 'n', 'd', strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' days') FROM n`,
    )
      .bind(org.id)
      .run();
    const report = await moveToObject(env, org.id);
    expect(report.tables.compliance_checks.rows).toBe(1001);
    expect(await rowsWhereStored(org.id, "SELECT DISTINCT id FROM compliance_checks")).toHaveLength(1001);
    // The object loses checks at each page's edges and inside one (as its retention would delete them); the undo follows.
    const gone = ["chk_00001", "chk_00500", "chk_00501", "chk_00777", "chk_01000", "chk_01001"];
    await runInDurableObject(orgStore(env, org.id), (_, state) => {
      for (const id of gone) state.storage.sql.exec("DELETE FROM compliance_checks WHERE id = ?", id);
    });
    const back = await moveToD1(env, org.id);
    expect(back.tables.compliance_checks.rows).toBe(1001 - gone.length);
    expect((await groupDigest(getDb(env.DB), org.id)).compliance_checks).toEqual(back.tables.compliance_checks);
    const inD1 = await env.DB.prepare("SELECT id FROM compliance_checks WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))")
      .bind(org.id, JSON.stringify([...gone, "chk_00002", "chk_00499", "chk_00502", "chk_00999"]))
      .all<{ id: string }>();
    expect(inD1.results.map((r) => r.id).sort()).toEqual(["chk_00002", "chk_00499", "chk_00502", "chk_00999"]);
  });
});
