import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MoveAllStopped, moveAll, movedLine, type OperatorApi } from "../../scripts/lib/storage-moves";
import { getDb } from "../../src/db/client";
import { readOrgStorage, switchOrgStorage } from "../../src/db/queries/org-storage";
import { moveToObject } from "../../src/durable-objects/org-storage-move";
import { call, createOrg, createStore } from "../helpers/factories";
import { BASE_UNITS, createIngestKey, putInventory } from "../helpers/ingest";
import { createOperatorToken } from "../helpers/operator";
import { rowsWhereStored } from "../helpers/org-storage";

/** The operator commands' HTTP client, driving this Worker as `npm run storage` drives a server. */
const operatorApi = async (): Promise<OperatorApi> => ({
  baseUrl: "https://api.test",
  token: await createOperatorToken(),
  fetch: (request) => exports.default.fetch(request),
});

/** An organization still in D1 (the subject: what `move --all` moves), with a store of units. */
async function d1OrganizationWithUnits() {
  const org = await createOrg({ place: "d1" });
  const store = await createStore(org.id, { name: "North Lot" });
  expect((await putInventory(store.id, { key: await createIngestKey(org.id) }, { units: BASE_UNITS })).status).toBe(200);
  return org;
}

describe("the operator's organization answer says where its data lives", () => {
  it("GET /api/operator/organizations and /{org_id} answer `storage`: object for one born there, d1 for one not moved", async () => {
    const token = await createOperatorToken();
    const born = await createOrg();
    const inD1 = await createOrg({ place: "d1" });
    const headers = { Authorization: `Bearer ${token}` };
    const list = await (await call("/api/operator/organizations", { headers })).json<{ organizations: { id: string; storage: string }[] }>();
    expect(list.organizations.filter((org) => [born.id, inD1.id].includes(org.id))).toEqual([
      expect.objectContaining({ id: born.id, storage: "object" }),
      expect.objectContaining({ id: inD1.id, storage: "d1" }),
    ]);
    expect(await (await call(`/api/operator/organizations/${inD1.id}`, { headers })).json()).toMatchObject({ storage: "d1" });
    await switchOrgStorage(getDb(env.DB), inD1.id, "d1", "moving");
    expect(await (await call(`/api/operator/organizations/${inD1.id}`, { headers })).json()).toMatchObject({ storage: "moving" });
  });
});

describe("npm run storage -- move --all (and npm run dev after its seed): every organization still in D1, one after another", () => {
  it("moves each organization in D1 with a line of its rows, tables and pause, skips one in its object, and run again does nothing", async () => {
    const api = await operatorApi();
    const first = await d1OrganizationWithUnits();
    const second = await d1OrganizationWithUnits();
    const born = await createOrg();
    const lines: string[] = [];
    const { moved, skipped } = await moveAll(api, (org) => lines.push(movedLine(org)));

    const mine = moved.filter((org) => [first.id, second.id].includes(org.org_id));
    expect(mine.map((org) => org.org_id)).toEqual([first.id, second.id]);
    expect(moved.map((org) => org.org_id)).not.toContain(born.id);
    expect(skipped).toBeGreaterThanOrEqual(1);
    for (const org of [first, second]) {
      expect(await readOrgStorage(getDb(env.DB), org.id)).toBe("object");
      const line = lines.find((l) => l.startsWith(`${org.id}:`));
      // Its rows and tables are the object's digests, as a move run again answers them.
      const digests = Object.values((await moveToObject(env, org.id)).tables);
      expect(mine.find((m) => m.org_id === org.id)).toMatchObject({
        rows: digests.reduce((sum, table) => sum + table.rows, 0),
        tables: digests.length,
      });
      expect(line).toMatch(new RegExp(`^${org.id}: moved [\\d,]+ rows in \\d+ tables, write pause \\d+ ms$`));
      expect(await rowsWhereStored(org.id, "SELECT count(*) AS n FROM inventory_units WHERE org_id = ?", org.id)).toEqual([{ n: BASE_UNITS.length }]);
    }
    // Run again (a restart of `npm run dev`): every organization is in its object, nothing moves.
    const again = await moveAll(api);
    expect(again.moved).toEqual([]);
    expect(again.skipped).toBe(skipped + moved.length);
  });

  it("stops at an organization whose move fails, with its error; the ones before stay moved, and run again goes on from it", async () => {
    const api = await operatorApi();
    const before = await d1OrganizationWithUnits();
    const failing = await d1OrganizationWithUnits();
    const after = await d1OrganizationWithUnits();
    // An undo under way holds `failing` (`returning`): its move is refused with 409.
    await switchOrgStorage(getDb(env.DB), failing.id, "d1", "returning");
    const stopped = await moveAll(api).catch((error: unknown) => error);
    expect(stopped).toBeInstanceOf(MoveAllStopped);
    expect(stopped).toMatchObject({ orgId: failing.id, message: expect.stringContaining("409: The organization's storage is returning") });
    expect((stopped as MoveAllStopped).moved.map((org) => org.org_id)).toContain(before.id);
    expect(await readOrgStorage(getDb(env.DB), before.id)).toBe("object");
    expect(await readOrgStorage(getDb(env.DB), after.id)).toBe("d1");

    await switchOrgStorage(getDb(env.DB), failing.id, "returning", "d1");
    const { moved } = await moveAll(api);
    expect(moved.map((org) => org.org_id)).toEqual(expect.arrayContaining([failing.id, after.id]));
    expect(moved.map((org) => org.org_id)).not.toContain(before.id);
  });
});
