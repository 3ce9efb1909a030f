import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/app-env";
import { isCsvContentType } from "../../http/body";
import { inBackground } from "../../lib/background";
import { readBody } from "./csv";
import {
  IngestDealsSchema,
  IngestInventorySchema,
  type ingestDeals as ingestDealsRoute,
  type ingestInventory as ingestInventoryRoute,
} from "./ingest.routes";
import * as ingestService from "./ingest.service";

/**
 * The body, JSON or CSV. The route's validator has checked a JSON body already (its types leave
 * `json` out because the body may be CSV); a CSV body is parsed and checked by the service.
 */
async function bodyOf(c: { req: { header(name: string): string | undefined; text(): Promise<string> } }) {
  const contentType = c.req.header("Content-Type");
  const validatedJson = (c.req as unknown as { valid(target: "json"): unknown }).valid("json");
  return { contentType, json: validatedJson, csv: isCsvContentType(contentType) ? await c.req.text() : null };
}

export const ingestInventory: RouteHandler<typeof ingestInventoryRoute, AppEnv> = async (c) => {
  const body = readBody(IngestInventorySchema, await bodyOf(c), "units");
  const query = c.req.valid("query");
  const safety = { allowEmpty: query.allow_empty === "true", confirmRemovals: query.confirm_removals };
  const principal = c.get("principal");
  return c.json(
    await ingestService.ingestInventory(
      c.env,
      c.get("db"),
      principal.orgId,
      query.store_id,
      body,
      safety,
      new Date(),
      inBackground(c.executionCtx, "org_outbox_mark_failed"),
    ),
    200,
  );
};

export const ingestDeals: RouteHandler<typeof ingestDealsRoute, AppEnv> = async (c) => {
  const body = readBody(IngestDealsSchema, await bodyOf(c), "deals");
  const background = inBackground(c.executionCtx, "org_outbox_mark_failed");
  return c.json(await ingestService.ingestDeals(c.env, c.get("db"), c.get("principal").orgId, body, new Date(), background), 200);
};
