/**
 * The benchmark's Worker: the production app with three baseline routes mounted behind the same
 * stack, so an endpoint is compared with the floor of its own kind of work (issue 19):
 * - `metered_echo`: the metered `/api/v1` chain, then a 1 KiB JSON body parsed, validated and
 *   answered — the floor of a POST engine;
 * - `metered_write`: the metered chain, then one call to the organization's object that records a
 *   compliance audit row (`recordCheck`, no screening) — the floor of an endpoint that must record
 *   before it answers;
 * - `metered_event`: the same call with a `compliance.hold_triggered` event in the object's outbox,
 *   relayed to D1 and handed to the queue (`commitWithEvents`), marked relayed after the answer —
 *   what raising an event costs on top of recording, with the queue simulator and the fan-out
 *   running on the same machine;
 * - `metered_read`: the metered chain, then one indexed D1 SELECT of one row (the key's primary
 *   store) — the floor of a GET that must read D1 on every call (a settings read);
 * - `metered_page`: the metered chain, then one call to the organization's object for a page of 100
 *   units in stock of a store (`inventoryPage`), answered as JSON with no feed formatting or cache —
 *   the floor of a paged feed read.
 * It also serves any request many times inside the isolate for `npm run profile -- --in-isolate`.
 * Built by scripts/bench/worker.ts; the bundle whose size and start-up are budgeted is src/index.ts.
 */
import { z } from "@hono/zod-openapi";
import { createApp } from "../../src/app";
import type { Database } from "../../src/db/client";
import { findOrgStore } from "../../src/db/queries/reports";
import { type ComplianceSettingsValues, getComplianceDefaults } from "../../src/db/queries/settings";
import { confirmRelayed, orgStore } from "../../src/durable-objects/org-storage-routing";
import { commitWithEvents } from "../../src/events/emit";
import type { Principal } from "../../src/http/app-env";
import type { AppRouter } from "../../src/http/router";
import { v1Route } from "../../src/http/v1-chain";
import { webhookStorage } from "../../src/jobs/webhook-storage";
import { inBackground } from "../../src/lib/background";
import { newId } from "../../src/lib/ids";
import { createWorker } from "../../src/worker";
import {
  IN_ISOLATE_PATH,
  METERED_ECHO_PATH,
  METERED_EVENT_PATH,
  METERED_PAGE_PATH,
  METERED_READ_PATH,
  METERED_WRITE_PATH,
  PENDING_WORK_PATH,
} from "./floor-paths";
import { clientAddress } from "./scenario";

export { OrganizationStore } from "../../src/durable-objects/org-storage";
export { QuotaCounter } from "../../src/durable-objects/quota-counter";

const Party = z.strictObject({
  first_name: z.string().max(100),
  last_name: z.string().max(100),
  email: z.email(),
  phone: z.string().max(20),
  address: z.string().max(200),
  zip: z.string().regex(/^\d{5}$/),
});

/** About 1 KiB as JSON (ECHO_BODY in scripts/bench/areas/baselines.ts): the size of a deal-desk body. */
export const EchoBodySchema = z.strictObject({
  deal_id: z.string().max(50),
  store_id: z.string().max(50),
  buyer: Party,
  co_buyer: Party.nullable(),
  vehicle: z.strictObject({
    vin: z.string().length(17),
    year: z.int().min(1980).max(2030),
    make: z.string().max(50),
    model: z.string().max(50),
    trim: z.string().max(50),
    mileage: z.int().min(0).max(1_000_000),
  }),
  beacon: z.int().min(300).max(900),
  vehicle_price: z.number().min(0).max(500_000),
  down_payment: z.number().min(0).max(500_000),
  trade_value: z.number().min(0).max(500_000),
  trade_payoff: z.number().min(0).max(500_000),
  term_months: z.int().min(12).max(96),
  products: z.array(z.strictObject({ name: z.string().max(50), price: z.number().min(0), cost: z.number().min(0) })).max(10),
  notes: z.string().max(1000),
  /** Photos as data URIs, like the trade appraisal's: answered as a count, as the appraisal does. */
  photos: z.array(z.string().max(8_000_000)).max(10).optional(),
});

const EchoAnswerSchema = EchoBodySchema.omit({ photos: true }).extend({ photo_count: z.int() });

function mountBaselines(app: AppRouter) {
  app.openapi(
    v1Route({
      method: "post",
      path: METERED_ECHO_PATH,
      endpoint: "lender-route",
      reads: "nearest-replica",
      body: true,
      request: { body: { content: { "application/json": { schema: EchoBodySchema } }, required: true } },
      responses: { 200: { description: "The body, validated", content: { "application/json": { schema: EchoAnswerSchema } } } },
    }),
    (c) => {
      const { photos, ...deal } = c.req.valid("json");
      return c.json({ ...deal, photo_count: photos?.length ?? 0 }, 200);
    },
  );
  app.openapi(
    v1Route({
      method: "get",
      path: METERED_READ_PATH,
      endpoint: "inventory",
      reads: "nearest-replica",
      responses: {
        200: {
          description: "The key's primary store",
          content: { "application/json": { schema: z.object({ store: z.object({ id: z.string() }).nullable() }) } },
        },
      },
    }),
    async (c) => c.json({ store: await findOrgStore(c.get("db"), c.get("principal").orgId, undefined) }, 200),
  );
  app.openapi(
    v1Route({
      method: "get",
      path: METERED_PAGE_PATH,
      endpoint: "inventory",
      reads: "nearest-replica",
      request: { query: z.object({ store_id: z.string().max(64) }) },
      responses: {
        200: { description: "A page of 100 units in stock", content: { "application/json": { schema: z.object({ units: z.array(z.object({})) }) } } },
      },
    }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const { rows } = await orgStore(c.env, orgId).inventoryPage(orgId, { storeId: c.req.valid("query").store_id, limit: 100 });
      return c.json({ units: rows }, 200);
    },
  );
  const hash = "0".repeat(64);
  const auditRow = (keyId: string, id: string) => ({
    id,
    keyId,
    score: 41.5,
    holdScore: 95,
    flagScore: 85,
    maxListAgeDays: 45,
    listVersion: "2026-11-20",
    listLoadedAt: new Date().toISOString(),
    matchedEntNum: null,
    safeguardsFlags: [],
    personHash: hash,
    ssnDobHash: hash,
    nameZipHash: hash,
    nameHash: hash,
    dobHash: hash,
    checkedAt: new Date().toISOString(),
  });
  const recordingRoute = (path: string) =>
    v1Route({
      method: "post",
      path,
      endpoint: "compliance-check",
      reads: "primary",
      responses: { 200: { description: "The row's id", content: { "application/json": { schema: z.object({ id: z.string() }) } } } },
    });
  const keyOf = (principal: Principal) => {
    if (principal.kind !== "api_key") throw new Error("the recording floors are called with a lak_ key");
    return principal;
  };
  const passed = [{ result: "pass" as const, triggeredRule: null, redFlags: [] }];
  // As the compliance check: D1's default thresholds read once per isolate, the object checking them against its own.
  let defaults: Promise<ComplianceSettingsValues> | undefined;
  const thresholdsOf = async (db: Database) => {
    defaults ??= getComplianceDefaults(db).then((row) => {
      if (!row) throw new Error("the bench's D1 holds no default compliance thresholds");
      return row;
    });
    const values = await defaults;
    return { used: values, defaults: values };
  };
  app.openapi(recordingRoute(METERED_WRITE_PATH), async (c) => {
    const { orgId, keyId } = keyOf(c.get("principal"));
    const id = newId("chk");
    const written = await orgStore(c.env, orgId).recordCheck(
      orgId,
      auditRow(keyId, id),
      passed,
      [],
      new Date().toISOString(),
      await thresholdsOf(c.get("db")),
    );
    if ("thresholds" in written) throw new Error("the bench's organizations keep the default thresholds");
    return c.json({ id }, 200);
  });
  app.openapi(recordingRoute(METERED_EVENT_PATH), async (c) => {
    const { orgId, keyId } = keyOf(c.get("principal"));
    const id = newId("chk");
    const now = new Date();
    const event = { event: "compliance.hold_triggered" as const, orgId, storeId: null, data: { check_id: id } };
    const written = await orgStore(c.env, orgId).recordCheck(
      orgId,
      auditRow(keyId, id),
      passed,
      [event],
      now.toISOString(),
      await thresholdsOf(c.get("db")),
    );
    if ("thresholds" in written) throw new Error("the bench's organizations keep the default thresholds");
    await commitWithEvents(c.env, c.get("db"), [], [], now, written.events);
    confirmRelayed(c.env, orgId, written.events, inBackground(c.executionCtx, "org_outbox_mark_failed"));
    return c.json({ id }, 200);
  });
}

const worker = createWorker(createApp({ mount: mountBaselines }));

/** How many calls `serveInIsolate` has made from another client address. */
let clientCounter = 0;

/**
 * Serves the request it is given `n` times inside this isolate, one call after another, with the
 * path in `?path=`: no socket, no Miniflare entry Worker and no load generator in between, so a CPU
 * profile over it holds our code and workerd's own Request and Response work alone (`npm run
 * profile -- <scenario> --in-isolate`). With `?many_clients=1`, each call comes from another client
 * address, as the load generator sends a public endpoint's. Answers the number of calls, or 502 with
 * the first failure.
 */
async function serveInIsolate(...[request, env, ctx]: Parameters<typeof worker.fetch>): Promise<Response> {
  const url = new URL(request.url);
  const target = new URL(url.searchParams.get("path") ?? "/", url);
  const calls = Number(url.searchParams.get("n") ?? 1);
  const manyClients = url.searchParams.has("many_clients");
  const body = request.method === "GET" ? undefined : await request.text();
  for (let call = 1; call <= calls; call++) {
    const headers = manyClients ? new Headers(request.headers) : request.headers;
    if (manyClients) headers.set("CF-Connecting-IP", clientAddress(clientCounter++));
    const answer = await worker.fetch(new Request(target, { method: request.method, headers, body }), env, ctx);
    const text = await answer.text();
    if (!answer.ok) return new Response(`call ${call} answered ${answer.status}: ${text}`, { status: 502 });
  }
  return new Response(String(calls));
}

/**
 * What the queue has left to do, for the bench's drain between scenarios and the soak's count: D1's
 * outbox rows not yet fanned out, and the deliveries by status, which live in each organization's
 * object (all organizations', or `?org_id=`'s).
 */
async function pendingWork(request: Request, env: Env): Promise<Response> {
  const only = new URL(request.url).searchParams.get("org_id");
  const orgIds = only ? [only] : (await env.DB.prepare("SELECT id FROM organizations").all<{ id: string }>()).results.map((row) => row.id);
  const outbox = await env.DB.prepare(`SELECT count(*) AS n FROM event_outbox WHERE fanned_out_at IS NULL${only ? " AND org_id = ?" : ""}`)
    .bind(...(only ? [only] : []))
    .first<number>("n");
  const deliveries: Record<string, number> = {};
  for (const counts of await Promise.all(orgIds.map((orgId) => webhookStorage(env, orgId)("deliveryCounts", undefined))))
    for (const { status, n } of counts) deliveries[status] = (deliveries[status] ?? 0) + n;
  return Response.json({ outbox_not_fanned_out: outbox ?? 0, deliveries });
}

export default {
  ...worker,
  fetch: (...[request, env, ctx]: Parameters<typeof worker.fetch>) => {
    const { pathname } = new URL(request.url);
    if (pathname === IN_ISOLATE_PATH) return serveInIsolate(request, env, ctx);
    if (pathname === PENDING_WORK_PATH) return pendingWork(request, env);
    return worker.fetch(request, env, ctx);
  },
};
