import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { inject } from "vitest";
import { getDb } from "../../src/db/client";
import { listOutboxEvents as listOutboxRows } from "../../src/db/queries/events";
import type { EventName } from "../../src/events/emit";
import type { CreatedWebhookEndpointSchema } from "../../src/routes/webhooks/webhooks.routes";
import type { ReceivedDelivery } from "../setup/webhook-receiver";
import { call } from "./factories";

/**
 * The events an organization's changes raised (the outbox), newest first, in the envelope's
 * shape. Other areas assert their events with it, e.g.
 * `expect(await listOutboxEvents(org.id, "compliance.hold_triggered")).toHaveLength(1)`.
 */
export async function listOutboxEvents(orgId: string, event?: EventName) {
  const rows = await listOutboxRows(getDb(env.DB), orgId, 1000);
  return rows
    .filter((row) => event === undefined || row.event === event)
    .map((row) => ({
      id: row.id,
      event: row.event,
      org_id: row.orgId,
      store_id: row.storeId,
      timestamp: row.occurredAt,
      data: row.data,
      fanned_out: row.fannedOutAt !== null,
    }));
}

/** The local receiver (test/setup/webhook-receiver.ts): a URL with the given behaviour, unique per test. */
export function receiverUrl(
  behaviour: "ok" | "fail-twice" | "always-fail" | "gone" | "redirect" | "long-answer" | "binary-answer" | "slow-then-fail",
  name: string,
) {
  return `${inject("webhookReceiverUrl")}/hook/${behaviour}/${name}`;
}

/** Lets the receiver verify signatures for <name> with this secret. */
export async function tellReceiverSecret(name: string, secret: string) {
  await fetch(`${inject("webhookReceiverUrl")}/secret/${name}`, { method: "PUT", body: secret });
}

export async function receivedBy(name: string): Promise<ReceivedDelivery[]> {
  return (await fetch(`${inject("webhookReceiverUrl")}/log/${name}`)).json();
}

/** Creates an endpoint through the API and returns it with its secret. */
export async function createEndpoint(key: string, body: { url: string; events: EventName[]; description?: string }) {
  const res = await call("/api/v1/webhooks", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`endpoint creation answered ${res.status}: ${await res.text()}`);
  return res.json<z.infer<typeof CreatedWebhookEndpointSchema>>();
}

/** Polls until `check` returns a value (the queue consumer runs on its own schedule). */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}
