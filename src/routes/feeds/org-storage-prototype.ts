import { createMiddleware } from "hono/factory";
import { orgInventorySnapshot } from "../../db/queries/org-storage";
import type { AppEnv } from "../../http/app-env";
import { createRouter, validationError } from "../../http/router";
import { v1Chain } from "../../http/v1-chain";
import * as routes from "./feeds.routes";
import { type InventoryReader, inventoryPageAnswer } from "./feeds.service";

/**
 * The per-organization storage prototype (docs/scaling.md), for `npm run bench:scale` only:
 * answered only when the dev var `ORG_STORAGE_PROTOTYPE=1` is set (a 404 otherwise, like any
 * unknown path), and absent from the OpenAPI document. Both routes take the inventory feed's key
 * and chain, so a timing beside GET /api/v1/inventory differs only by where the units are read.
 *
 * - `POST /__prototype/org-storage/load`: copies the key's organization's stores and units from
 *   D1 into its storage object (`idFromName(orgId)`).
 * - `GET /__prototype/org-storage/inventory`: the paged inventory feed (same parameters and
 *   answer as a paged GET /api/v1/inventory), read from that object.
 */
const onlyWhenEnabled = createMiddleware<AppEnv>(async (c, next) => {
  if (c.env.ORG_STORAGE_PROTOTYPE !== "1") return c.notFound();
  await next();
});

const storageOf = (env: Env, orgId: string) => env.ORG_STORAGE.get(env.ORG_STORAGE.idFromName(orgId));

const feedChain = v1Chain("inventory", { reads: "nearest-replica" });

export const orgStoragePrototypeRouter = createRouter();
orgStoragePrototypeRouter.use("/__prototype/*", onlyWhenEnabled);
for (const step of feedChain) orgStoragePrototypeRouter.use("/__prototype/org-storage/*", step);

orgStoragePrototypeRouter.post("/__prototype/org-storage/load", async (c) => {
  const orgId = c.get("principal").orgId;
  const snapshot = await orgInventorySnapshot(c.get("db"), orgId);
  return c.json(await storageOf(c.env, orgId).load(orgId, snapshot));
});

orgStoragePrototypeRouter.get("/__prototype/org-storage/inventory", async (c) => {
  const orgId = c.get("principal").orgId;
  const params = routes.listInventory.request.query.safeParse(c.req.query());
  if (!params.success) throw validationError(params.error, "query");
  const storage = storageOf(c.env, orgId);
  const read: InventoryReader = (org, query, after) => storage.inventory(org, query, after) as unknown as ReturnType<InventoryReader>;
  return c.json(await inventoryPageAnswer(c.get("db"), orgId, new Date(), params.data, read));
});
