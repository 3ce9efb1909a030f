import { env } from "cloudflare:workers";
import { asc, eq, inArray, like, sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inChunks, MAX_BOUND_PARAMETERS, runBatch } from "../../src/db/batch";
import { callTemplate, getDb } from "../../src/db/client";
// The object's table: D1 keeps no per-organization tables.
import { webhookDeliveries } from "../../src/db/org-schema";
import { sanctionsListLoad } from "../../src/db/queries/compliance";
import { findOutboxEvents, insertOutboxRows, isOneOfEvents, listOutboxEvents, markOutboxFannedOut } from "../../src/db/queries/events";
import { existingFeedEntryIds, insertFeedEntries, insertRefreshRun } from "../../src/db/queries/reports";
import { eventOutbox, marketFeedEntries, marketRefreshFailures, sanctionsAliases, sanctionsDobs, sanctionsEntries } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { createOrg } from "../helpers/factories";

const db = getDb(env.DB);
const AT = "2026-11-26T10:00:00.000Z";

/** Past two statements' worth for every table (the smallest part is 11 rows, the largest 99 values). */
const MAX_ROWS = 250;
/** Each run writes through D1, so a few sizes per table, always including 1 and the most. */
const rowCounts = (property: (n: number) => Promise<void>) =>
  fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: MAX_ROWS }), property), { numRuns: 6, examples: [[1], [MAX_ROWS]] });

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));

describe("every chunked table takes 1..N rows through the helper and gives back exactly those rows", () => {
  it("event_outbox", async () => {
    const org = await createOrg();
    await rowCounts(async (n) => {
      const rows = range(n).map((i) => ({
        id: newId("evt"),
        orgId: org.id,
        storeId: i % 3 === 0 ? null : `sto_${i}`,
        event: "inventory.aged_alert",
        data: { i },
        occurredAt: AT,
        sample: i % 2 === 0,
      }));
      await runBatch(db, insertOutboxRows(db, rows));
      const ids = rows.map((r) => r.id);
      const all = (await listOutboxEvents(db, org.id, 10_000)).filter((r) => ids.includes(r.id));
      expect(byId(all)).toEqual(byId(rows.map((r) => ({ ...r, fannedOutAt: null }))));
    });
  });

  it("event_outbox: a fan-out's read and mark of N events of two organizations, each found and marked in its own", async () => {
    const [orgA, orgB] = [await createOrg(), await createOrg()];
    await rowCounts(async (n) => {
      const rows = range(n).map((i) => ({
        id: newId("evt"),
        orgId: i % 2 === 0 ? orgA.id : orgB.id,
        storeId: null,
        event: "deal.stip_alert",
        data: {},
        occurredAt: AT,
        sample: false,
      }));
      await runBatch(db, insertOutboxRows(db, rows));
      // One more ref names the first event under the other organization: it finds nothing.
      const refs = [...rows.map((r) => ({ orgId: r.orgId, eventId: r.id })), { orgId: orgB.id, eventId: rows[0].id }];
      expect(byId(await findOutboxEvents(db, refs))).toEqual(byId(rows));
      await runBatch(db, markOutboxFannedOut(db, refs, AT));
      const ids = new Set(rows.map((r) => r.id));
      const marks = (
        await db
          .select({ id: eventOutbox.id, at: eventOutbox.fannedOutAt })
          .from(eventOutbox)
          .where(inArray(eventOutbox.orgId, [orgA.id, orgB.id]))
      ).filter((m) => ids.has(m.id));
      expect(marks.map((m) => m.at)).toEqual(rows.map(() => AT));
    });
    // No events name no row, never every organization's.
    expect(
      await db
        .select()
        .from(eventOutbox)
        .where(isOneOfEvents(eventOutbox.orgId, eventOutbox.id, [])),
    ).toEqual([]);
  });

  it("market_feed_entries (and the IN list that finds existing ids)", async () => {
    await rowCounts(async (n) => {
      const prefix = newId("feed");
      const entries = range(n).map((i) => ({
        id: `${prefix}-${i}`,
        category: "rates",
        signal: `signal ${i}`,
        severity: "low" as const,
        source: "test",
        date: "2026-11-26",
        demo: i % 2 === 0,
      }));
      await runBatch(db, insertFeedEntries(db, entries, AT));
      const stored = await db
        .select()
        .from(marketFeedEntries)
        .where(like(marketFeedEntries.id, `${prefix}-%`));
      expect(byId(stored)).toEqual(byId(entries.map(({ demo, ...e }) => ({ ...e, isDemo: demo, refreshedAt: AT }))));
      const asked = [...entries.map((e) => e.id), `${prefix}-missing`];
      expect([...(await existingFeedEntryIds(db, asked))].sort()).toEqual(entries.map((e) => e.id).sort());
    });
  });

  it("market_refresh_failures", async () => {
    await rowCounts(async (n) => {
      const run = { id: newId("run"), startedAt: AT, finishedAt: AT, status: "partial" as const, observationsAdded: 0, entriesAdded: 0 };
      const failures = range(n).map((i) => ({ id: newId("mrf"), seriesId: `series-${i}`, reason: `reason ${i}` }));
      await runBatch(db, insertRefreshRun(db, run, failures));
      const stored = await db.select().from(marketRefreshFailures).where(eq(marketRefreshFailures.runId, run.id));
      expect(byId(stored)).toEqual(byId(failures.map((f) => ({ ...f, runId: run.id, occurredAt: AT }))));
    });
  });

  it("sanctions entries, aliases and dates of birth (the load's raw statements)", async () => {
    await rowCounts(async (n) => {
      const meta = { id: newId("sdn"), version: "test", source: "test", contentHash: "x", loadedAt: AT };
      const list = {
        entries: range(n).map((i) => ({ entNum: i, name: `NAME ${i}`, sdnType: "individual", programs: "SDGT" })),
        aliases: range(n).map((i) => ({ entNum: i, altNum: i, altType: "aka", name: `ALIAS ${i}` })),
        dobs: range(n).map((i) => ({
          entNum: i,
          text: "1970",
          from: "1970-01-01",
          to: "1970-12-31",
          precision: "year" as const,
          circa: i % 2 === 0,
        })),
      };
      const { rows } = sanctionsListLoad(list, meta);
      expect(Math.max(...rows.map((s) => s.params.length))).toBeLessThanOrEqual(MAX_BOUND_PARAMETERS);
      await env.DB.batch(rows.map((s) => env.DB.prepare(s.sql).bind(...s.params)));
      const [entries, aliases, dobs] = await db.batch([
        db.select().from(sanctionsEntries).where(eq(sanctionsEntries.listId, meta.id)).orderBy(asc(sanctionsEntries.entNum)),
        db.select().from(sanctionsAliases).where(eq(sanctionsAliases.listId, meta.id)).orderBy(asc(sanctionsAliases.altNum)),
        db.select().from(sanctionsDobs).where(eq(sanctionsDobs.listId, meta.id)).orderBy(asc(sanctionsDobs.entNum)),
      ]);
      expect(entries.map((e) => e.name)).toEqual(list.entries.map((e) => e.name));
      expect(aliases.map((a) => a.name)).toEqual(list.aliases.map((a) => a.name));
      expect(dobs.map((d) => [d.entNum, d.seq, Boolean(d.circa)])).toEqual(list.dobs.map((d) => [d.entNum, 1, d.circa]));
    });
  });
});

describe("runBatch with a built template (a statement built once, its values bound per call)", () => {
  const outboxInsert = () =>
    db
      .insert(eventOutbox)
      .values({ id: sql.placeholder("id"), orgId: sql.placeholder("orgId"), event: "inventory.aged_alert", data: {}, occurredAt: AT })
      .returning({ id: eventOutbox.id })
      .toSQL();
  const outboxIds = async (ids: string[]) =>
    (await db.select({ id: eventOutbox.id }).from(eventOutbox).where(inArray(eventOutbox.id, ids))).map((r) => r.id).sort();

  it("runs it alone, and its result is what its reader makes of the rows it returns", async () => {
    const org = await createOrg();
    const id = newId("evt");
    const [result] = await runBatch(db, [callTemplate(outboxInsert(), { id, orgId: org.id }, (rows) => rows.map((r) => `read ${r.id}`))]);
    expect(result).toEqual([`read ${id}`]);
    expect(await outboxIds([id])).toEqual([id]);
  });

  it("runs it in one batch with drizzle's statements: all are written, or none when one fails", async () => {
    const org = await createOrg();
    const [first, second] = [newId("evt"), newId("evt")];
    const row = { orgId: org.id, event: "inventory.aged_alert", data: {}, occurredAt: AT };
    const results = await runBatch(db, [
      callTemplate(outboxInsert(), { id: first, orgId: org.id }, (rows) => rows.map((r) => r.id)),
      db.insert(eventOutbox).values({ ...row, id: second }),
    ]);
    expect(results[0]).toEqual([first]);
    expect(await outboxIds([first, second])).toEqual([first, second].sort());

    // The drizzle statement repeats an id: the batch fails and the template's row is not written either.
    const third = newId("evt");
    await expect(
      runBatch(db, [
        callTemplate(outboxInsert(), { id: third, orgId: org.id }, (rows) => rows),
        db.insert(eventOutbox).values({ ...row, id: second }),
      ]),
    ).rejects.toThrow(/UNIQUE/);
    expect(await outboxIds([third])).toEqual([]);
  });

  it("refuses a call that leaves a parameter without a value, rather than binding NULL", () => {
    expect(() => callTemplate(outboxInsert(), { id: newId("evt") }, (rows) => rows)).toThrow('No value for placeholder "orgId"');
  });
});

describe("inChunks", () => {
  const outboxRow = fc.record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    // Absent, null or a value: an absent column binds nothing, so rows bind 5 to 6 parameters.
    storeId: fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 8 })),
    data: fc.integer().map((i) => ({ i })),
  });

  /** The statements for these rows, each with the rows it inserts. */
  const outboxInserts = (rows: { id: string; storeId?: string | null; data: Record<string, number> }[]) => {
    const parts = new Map<unknown, unknown[]>();
    const statements = inChunks(rows, (part) => {
      const statement = db.insert(eventOutbox).values(part.map((r) => ({ ...r, orgId: "org", event: "inventory.aged_alert", occurredAt: AT })));
      parts.set(statement, part);
      return statement;
    });
    return statements.map((statement) => ({ params: statement.toSQL().params.length, rows: parts.get(statement) ?? [] }));
  };

  it("no statement it builds binds more than 100 parameters, and together they insert every row once, in order", () => {
    fc.assert(
      fc.property(fc.array(outboxRow, { minLength: 1, maxLength: 300, size: "max" }), (rows) => {
        const statements = outboxInserts(rows);
        for (const s of statements) expect(s.params).toBeLessThanOrEqual(MAX_BOUND_PARAMETERS);
        expect(statements.flatMap((s) => s.rows)).toEqual(rows);
      }),
    );
  });

  it("fills each statement: rows alike take as many per statement as fit (9 parameters a delivery: 11, not 12)", () => {
    const rows = range(20).map((i) => ({
      id: `dlv_${i}`,
      orgId: "org",
      endpointId: `whe_${i}`,
      eventId: "evt",
      event: "e",
      createdAt: AT,
      updatedAt: AT,
    }));
    const statements = inChunks(rows, (part) => db.insert(webhookDeliveries).values(part).onConflictDoNothing());
    expect(statements.map((s) => s.toSQL().params.length)).toEqual([99, 81]);
  });

  it("counts what a statement binds besides its items (an IN list beside the value it sets)", () => {
    const ids = range(250).map((i) => `id_${i}`);
    const statements = inChunks(ids, (part) => db.select().from(eventOutbox).where(inArray(eventOutbox.id, part)));
    const withSet = inChunks(ids, (part) => db.update(eventOutbox).set({ fannedOutAt: AT }).where(inArray(eventOutbox.id, part)));
    expect(statements.map((s) => s.toSQL().params.length)).toEqual([100, 100, 50]);
    expect(withSet.map((s) => s.toSQL().params.length)).toEqual([100, 100, 53]);
  });

  it("builds nothing for no items, and refuses an item that alone binds more than D1 allows", () => {
    expect(inChunks([], () => db.select().from(eventOutbox))).toEqual([]);
    const wide = range(MAX_BOUND_PARAMETERS + 1).map((i) => `v${i}`);
    expect(() => inChunks([wide], (part) => db.select().from(eventOutbox).where(inArray(eventOutbox.id, part.flat())))).toThrow(
      /binds 101 parameters/,
    );
  });
});
