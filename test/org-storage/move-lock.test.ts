import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getDb } from "../../src/db/client";
import { readOrgStorage } from "../../src/db/queries/org-storage";
import { leaseMove, readMove } from "../../src/db/queries/org-storage-copy";
import { orgStorageMoves } from "../../src/db/schema";
import type { OrganizationStore } from "../../src/durable-objects/org-storage";
import { cancelMove, type MoveReport, moveToD1, moveToObject } from "../../src/durable-objects/org-storage-move";
import { orgStore } from "../../src/durable-objects/org-storage-routing";
import { call, createOrg, createStore } from "../helpers/factories";
import { BASE_UNITS, createIngestKey, growingSnapshot, putInventory, type SnapshotCounts } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { copyingThrough, rowsWhereStored } from "../helpers/org-storage";

// The subject is the move from D1: each organization starts there.
async function d1OrganizationWithUnits() {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { name: "North Lot" });
  const key = await createIngestKey(org.id);
  expect((await putInventory(store.id, { key }, { units: BASE_UNITS })).status).toBe(200);
  return { org, store, key };
}

/** A promise and the function that settles it: a step of the object's side held until the test lets it go on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const db = () => getDb(env.DB);

describe("one request at a time works a move (its lease on org_storage_moves); cancel still wins", () => {
  it("two moves started together under a writing load: one works, the other answers its progress; every row once, digests equal, one flip", async () => {
    const { org, store, key } = await d1OrganizationWithUnits();
    const real = orgStore(env, org.id);
    let flips = 0;
    let emptied = 0;
    const counting = {
      DB: env.DB,
      ORG_STORE: copyingThrough(real, {
        setActive: (orgId: string, active: boolean) => {
          if (active) flips++;
          return real.setActive(orgId, active);
        },
        load: (...args: Parameters<OrganizationStore["load"]>) => {
          if (args[4]) emptied++;
          return real.load(...args);
        },
      }),
    };
    /** `npm run storage -- move` as two operators run it at once: called again until done. */
    const operator = async () => {
      const answers: MoveReport[] = [];
      for (;;) {
        const answer = await moveToObject(counting, org.id);
        answers.push(answer);
        if (answer.done) return answers;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // The moves start while snapshots arrive one after another; writes that meet the pause wait for its flip.
    const WRITES = 10;
    const snapshots: SnapshotCounts[] = [];
    const both = Promise.all([operator(), operator()]);
    for (let i = 0; i < WRITES; i++) {
      const res = await putInventory(store.id, { key }, { units: growingSnapshot(i) });
      expect(res.status, await res.clone().text()).toBe(200);
      snapshots.push(await res.json<SnapshotCounts>());
      // A DMS's pace, not a loop that keeps the test's isolate from the moves' own requests.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [first, second] = await both;

    // The copy's first page (which empties the object) and the flip happened once: one request worked.
    expect(emptied).toBe(1);
    expect(flips).toBe(1);
    // The other answered where the move stood, without working, until the move was done.
    const waited = [first, second].find((answers) => answers[0]?.done === false);
    expect(waited?.[0]).toMatchObject({ done: false, storage: "d1", step: expect.any(String), write_pause_ms: 0 });
    expect(await readOrgStorage(db(), org.id)).toBe("object");
    expect(await readMove(db(), org.id)).toBeUndefined();
    // Every snapshot applied once, and the object holds each row once: the digests both sides agreed on.
    expect(snapshots.map((s) => [s.created, s.updated])).toEqual(Array(WRITES).fill([1, 1]));
    expect(await rowsWhereStored(org.id, "SELECT count(*) AS n FROM inventory_units WHERE org_id = ?", org.id)).toEqual([
      { n: BASE_UNITS.length + snapshots.length },
    ]);
    // One answer is the flip's, whose digests both sides agreed on; the other is a move run again after it (the object's digests, no catch-up).
    const finals = [first, second].map((answers) => answers.at(-1) as MoveReport);
    expect(finals.filter((answer) => answer.catch_up !== undefined)).toHaveLength(1);
    expect(finals.every((answer) => answer.tables.inventory_units !== undefined)).toBe(true);
  });

  it("a cancel during the copy wins: the working request stops at its next step with 409, never pauses or flips; a second move answers progress meanwhile, an undo is refused", async () => {
    const { org } = await d1OrganizationWithUnits();
    const real = orgStore(env, org.id);
    const reached = gate();
    const held = gate();
    const holding = copyingThrough(real, {
      loadDeals: async (...args: Parameters<OrganizationStore["loadDeals"]>) => {
        reached.open();
        await held.opened;
        return real.loadDeals(...args);
      },
    });
    const running = moveToObject({ DB: env.DB, ORG_STORE: holding }, org.id).catch((error: unknown) => error);
    await reached.opened;

    // The operator API's move, called while the first works: the progress, nothing worked.
    const headers = { Authorization: `Bearer ${await createOperatorToken()}` };
    const second = await call(`/api/operator/organizations/${org.id}/storage/move`, { method: "POST", headers });
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ done: false, step: "deals", storage: "d1" });
    expect(await moveToD1(env, org.id).catch((error: unknown) => error)).toMatchObject({ kind: "conflict" });

    expect(await cancelMove(env, org.id)).toEqual({ org_id: org.id, storage: "d1", cancelled: true });
    held.open();
    expect(await running).toMatchObject({ kind: "conflict", message: expect.stringContaining("cancelled") });
    expect(await readOrgStorage(db(), org.id)).toBe("d1");
    expect(await readMove(db(), org.id)).toBeUndefined();
    expect(await real.inventoryPage(org.id, { limit: 1 })).toEqual({ notServing: true });
    // Run again, the move starts over and completes.
    expect(await moveToObject(env, org.id)).toMatchObject({ storage: "object", done: true });
  });

  it("a cancel while the digests run before the pause wins: the writes never pause, the object is never switched on", async () => {
    const { org } = await d1OrganizationWithUnits();
    const real = orgStore(env, org.id);
    const reached = gate();
    const held = gate();
    let switchedOn = 0;
    const holding = copyingThrough(real, {
      digest: async (orgId: string) => {
        reached.open();
        await held.opened;
        return real.digest(orgId);
      },
      setActive: (orgId: string, active: boolean) => {
        if (active) switchedOn++;
        return real.setActive(orgId, active);
      },
    });
    const running = moveToObject({ DB: env.DB, ORG_STORE: holding }, org.id).catch((error: unknown) => error);
    await reached.opened;
    expect(await cancelMove(env, org.id)).toMatchObject({ cancelled: true });
    held.open();
    expect(await running).toMatchObject({ kind: "conflict", message: expect.stringContaining("cancelled") });
    expect(await readOrgStorage(db(), org.id)).toBe("d1");
    expect(switchedOn).toBe(0);
  });

  it("a cancel during the write pause wins: the flip is refused, the object switched on for it is switched off, D1 serves", async () => {
    const { org } = await d1OrganizationWithUnits();
    const real = orgStore(env, org.id);
    const reached = gate();
    const held = gate();
    const holding = copyingThrough(real, {
      setActive: async (orgId: string, active: boolean) => {
        await real.setActive(orgId, active);
        if (!active) return;
        reached.open();
        await held.opened;
      },
    });
    const running = moveToObject({ DB: env.DB, ORG_STORE: holding }, org.id).catch((error: unknown) => error);
    await reached.opened;
    expect(await readOrgStorage(db(), org.id)).toBe("moving");
    expect(await moveToObject(env, org.id)).toMatchObject({ done: false, step: "catch_up" });

    expect(await cancelMove(env, org.id)).toMatchObject({ cancelled: true });
    expect(await readOrgStorage(db(), org.id)).toBe("d1");
    held.open();
    expect(await running).toMatchObject({ kind: "conflict", message: expect.stringContaining("cancelled") });
    expect(await readOrgStorage(db(), org.id)).toBe("d1");
    expect(await real.inventoryPage(org.id, { limit: 1 })).toEqual({ notServing: true });
  });

  it("a lost request's lease ends with its 20 s budget: until then a move answers its progress, after it the move goes on", async () => {
    const { org } = await d1OrganizationWithUnits();
    expect(await moveToObject(env, org.id, 0)).toMatchObject({ done: false });
    // A request takes the lease and is lost (its client gone): it never releases it.
    const now = Date.now();
    expect(await leaseMove(db(), org.id, now, now + 20_000)).toBeDefined();
    const step = (await readMove(db(), org.id))?.step;
    expect(await moveToObject(env, org.id)).toMatchObject({ done: false, step });
    expect((await readMove(db(), org.id))?.step).toBe(step);
    // Its 20 s pass.
    await db()
      .update(orgStorageMoves)
      .set({ workedUntil: Date.now() - 1 });
    expect(await moveToObject(env, org.id)).toMatchObject({ done: true, storage: "object" });
  });
});
