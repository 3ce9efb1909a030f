import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { ComplianceSettingsSchema, LenderPanelSchema, StoreSettingsSchema } from "../../src/routes/settings/settings.routes";
import { createOrg, createStore } from "../helpers/factories";
import { brokerCall, createBrokerToken } from "../helpers/staff";

/**
 * Simultaneous writes to one thing, then the stored rows, the audit rows and the events held
 * against what each answer said (issue 34; docs/reliability.md, "Simultaneous writes"). The
 * requests go through the Worker together, so their D1 reads and writes interleave as they would
 * on one isolate in production.
 */

type Store = z.infer<typeof StoreSettingsSchema>;
type Panel = z.infer<typeof LenderPanelSchema>;
type Compliance = z.infer<typeof ComplianceSettingsSchema>;

interface AuditRow {
  store_id: string | null;
  field: string;
  old_value: string;
  new_value: string;
}

const auditOf = async (orgId: string, field: string) =>
  (
    await env.DB.prepare("SELECT store_id, field, old_value, new_value FROM settings_audit WHERE org_id = ? AND field = ?")
      .bind(orgId, field)
      .all<AuditRow>()
  ).results;

/**
 * The audit rows as a chain from `start`: each row's old value is the previous row's new value.
 * Returns the values in order; fails if any row replaced a value that was not the one stored.
 */
function chainFrom(start: string, rows: readonly AuditRow[]): string[] {
  const byOld = new Map<string, AuditRow[]>();
  for (const row of rows) byOld.set(row.old_value, [...(byOld.get(row.old_value) ?? []), row]);
  const chain = [start];
  for (let value = start; chain.length <= rows.length; ) {
    const next = byOld.get(value) ?? [];
    // Two rows replacing the same value is the false trail: both claim to have seen it.
    expect(next, `rows replacing ${value}`).toHaveLength(1);
    value = next[0].new_value;
    chain.push(value);
  }
  return chain;
}

async function orgWithStores(count = 1) {
  const org = await createOrg();
  const stores = [];
  for (let i = 0; i < count; i++) stores.push(await createStore(org.id, { isPrimary: i === 0 }));
  return { org, stores, broker: (await createBrokerToken(org.id)).token };
}

describe("PATCH /api/settings/stores/{id}, six at once", () => {
  it("answers each, and the audit rows are a true chain from 45 ending at the stored value", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const values = [50, 51, 52, 53, 54, 55];
    const answers = await Promise.all(values.map((days) => brokerCall(path, broker, { method: "PATCH", body: { aged_threshold_days: days } })));
    expect(answers.map((res) => res.status)).toEqual(values.map(() => 200));
    // Each answer is the settings its own change made.
    expect(await Promise.all(answers.map(async (res) => (await res.json<Store>()).aged_threshold_days))).toEqual(values);

    const rows = await auditOf(org.id, "aged_threshold_days");
    expect(rows).toHaveLength(6);
    const chain = chainFrom("45", rows);
    expect(chain.slice(1).map(Number).sort()).toEqual(values);
    const stored = await (await brokerCall(path, broker)).json<Store>();
    expect(String(stored.aged_threshold_days)).toBe(chain.at(-1));
  });

  it("with If-Match on the same ETag: one change is made, the other five are 412 and write nothing", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const read = await brokerCall(path, broker);
    const etag = read.headers.get("ETag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const values = [50, 51, 52, 53, 54, 55];
    const answers = await Promise.all(
      values.map((days) => brokerCall(path, broker, { method: "PATCH", body: { aged_threshold_days: days }, headers: { "If-Match": etag } })),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(5);
    const winner = answers[statuses.indexOf(200)];
    const won = (await winner.json<Store>()).aged_threshold_days;
    for (const res of answers.filter((r) => r.status === 412)) expect(await res.json()).toMatchObject({ error: "precondition_failed" });

    const rows = await auditOf(org.id, "aged_threshold_days");
    expect(rows.map((r) => [r.old_value, r.new_value])).toEqual([["45", String(won)]]);
    const again = await brokerCall(path, broker);
    expect((await again.json<Store>()).aged_threshold_days).toBe(won);
    // The answer's ETag is the new version's: it is what a read now gives, and it is not the old one.
    expect(winner.headers.get("ETag")).toBe(again.headers.get("ETag"));
    expect(again.headers.get("ETag")).not.toBe(etag);
  });

  it("If-Match: a stale ETag is 412 and changes nothing; `*` and the current ETag are accepted; a weak tag never matches", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}`;
    const first = (await brokerCall(path, broker)).headers.get("ETag") ?? "";
    const changed = await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 600 }, headers: { "If-Match": first } });
    expect(changed.status).toBe(200);
    const stale = await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 700 }, headers: { "If-Match": first } });
    expect(stale.status).toBe(412);
    const weak = await brokerCall(path, broker, {
      method: "PATCH",
      body: { pack_used: 700 },
      headers: { "If-Match": `W/${changed.headers.get("ETag")}` },
    });
    expect(weak.status).toBe(412);
    const listed = await brokerCall(path, broker, {
      method: "PATCH",
      body: { pack_used: 700 },
      headers: { "If-Match": `${first}, ${changed.headers.get("ETag")}` },
    });
    expect(listed.status).toBe(200);
    expect((await brokerCall(path, broker, { method: "PATCH", body: { pack_used: 800 }, headers: { "If-Match": "*" } })).status).toBe(200);
    expect((await auditOf(org.id, "pack_used")).map((r) => r.new_value)).toEqual(expect.arrayContaining(["600", "700", "800"]));
    expect(await auditOf(org.id, "pack_used")).toHaveLength(3);
  });
});

describe("PUT /api/settings/stores/{id}/lender-panel, five at once", () => {
  it("answers each with its own panel; the audit rows are a chain from the empty panel ending at the stored one", async () => {
    const { org, stores, broker } = await orgWithStores();
    const path = `/api/settings/stores/${stores[0].id}/lender-panel`;
    const { results: programs } = await env.DB.prepare("SELECT id FROM lender_programs ORDER BY id LIMIT 5").all<{ id: string }>();
    const panels = programs.map((_, i) => programs.slice(0, i + 1).map((p) => p.id));
    const answers = await Promise.all(panels.map((ids) => brokerCall(path, broker, { method: "PUT", body: { programs: ids } })));
    expect(answers.map((res) => res.status)).toEqual(panels.map(() => 200));
    const answered = await Promise.all(answers.map(async (res) => (await res.json<Panel>()).programs.map((p) => p.id).sort()));
    expect(answered).toEqual(panels.map((ids) => [...ids].sort()));

    const rows = await auditOf(org.id, "programs");
    expect(rows).toHaveLength(5);
    const chain = chainFrom("[]", rows);
    const stored = (await (await brokerCall(path, broker)).json<Panel>()).programs.map((p) => p.id).sort();
    expect(JSON.stringify(stored)).toBe(chain.at(-1));
  });
});

describe("PATCH /api/settings/compliance, five at once on an organization with no row of its own", () => {
  it("creates the row once; the audit rows are a chain from the default ending at the stored value", async () => {
    const { org, broker } = await orgWithStores();
    const scores = [86, 87, 88, 89, 90];
    const answers = await Promise.all(
      scores.map((flag) => brokerCall("/api/settings/compliance", broker, { method: "PATCH", body: { flag_score: flag } })),
    );
    expect(answers.map((res) => res.status)).toEqual(scores.map(() => 200));
    expect(await Promise.all(answers.map(async (res) => (await res.json<Compliance>()).flag_score))).toEqual(scores);

    const rows = await auditOf(org.id, "flag_score");
    expect(rows).toHaveLength(5);
    const chain = chainFrom("85", rows);
    const stored = await (await brokerCall("/api/settings/compliance", broker)).json<Compliance>();
    expect(String(stored.flag_score)).toBe(chain.at(-1));
    expect(stored.is_default).toBe(false);
  });
});
