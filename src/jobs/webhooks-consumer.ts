import { loadConfig } from "../config";
import { runBatch } from "../db/batch";
import { getDb } from "../db/client";
import { clearOutboxFannedOut, type EventRef, findOutboxEvents, findPrimaryStoreId, markOutboxFannedOut } from "../db/queries/events";
import { envelopeOf, postSigned } from "../events/delivery";
import { sendMessages, type WebhookMessage, WebhookMessageSchema } from "../events/messages";
import { signingSecrets } from "../events/signing";
import { describeError, logEvent } from "../lib/log";
import { webhookStorage } from "./webhook-storage";

/**
 * Delay before each retry (docs/webhooks.md#answers-retries-dead-letters): about +20 min, +2 h, +12 h
 * after the failed attempt. The queue's max_retries is 3, so a fourth failure goes to the dead-letter queue.
 */
export const RETRY_DELAYS_SECONDS = [20 * 60, 2 * 3600, 12 * 3600] as const;

/** The dead-letter queue of `webhooks` (wrangler.toml). Not exported from src/index.ts: the entry may export handlers only. */
export const WEBHOOKS_DLQ = "webhooks-dlq";

type Now = () => Date;

/**
 * The queue batch's events fanned out together: for each organization, one call to its object (its
 * endpoints and deliveries are there), which creates a delivery per subscribed enabled endpoint and
 * keeps the events they send; then one D1 batch marking the events fanned out in D1's outbox. A
 * duplicate message (the sweeper re-sending an event still waiting in a backed-up queue) adds no
 * delivery: the object's insert ignores an existing (endpoint, event) pair and the first fan-out's
 * time is kept. Events no longer in D1's outbox (purged) are left out.
 */
async function fanOut(env: Env, events: readonly EventRef[], now: Date): Promise<"done"> {
  const db = getDb(env.DB);
  const at = now.toISOString();
  const byOrganization = Map.groupBy(await findOutboxEvents(db, events), (row) => row.orgId);
  const pending = await Promise.all([...byOrganization].map(([orgId, rows]) => webhookStorage(env, orgId)("fanOut", { events: rows, at })));
  await runBatch(
    db,
    markOutboxFannedOut(
      db,
      [...byOrganization.values()].flat().map((row) => ({ orgId: row.orgId, eventId: row.id })),
      at,
    ),
  );
  await sendMessages(
    env.WEBHOOKS,
    pending.flat().map((d) => ({ kind: "delivery", orgId: d.orgId, deliveryId: d.id })),
  );
  return "done";
}

/** One attempt of one delivery; returns whether the message should be retried. */
async function attemptDelivery(env: Env, message: Extract<WebhookMessage, { kind: "delivery" }>, now: Date): Promise<"done" | "retry"> {
  const db = getDb(env.DB);
  // One call to the object before the POST (its claim), one after (its record).
  const on = webhookStorage(env, message.orgId);
  const found = await on("claim", { deliveryId: message.deliveryId, at: now.toISOString() });
  if (found === null) return "done";
  const { attempt } = found;

  const config = loadConfig(env);
  const secrets = await signingSecrets(config.webhookSecretsKey, found.endpoint, now);
  const storeId = found.event.storeId ?? (await findPrimaryStoreId(db, message.orgId));
  const body = JSON.stringify(envelopeOf({ ...found.event, storeId }));
  const result = await postSigned(found.endpoint.url, secrets, found.event.id, body, now, config.webhookAllowLocalhost);
  const gone = result.responseStatus === 410;
  // A URL the rules refuse fails at once: retrying cannot change it; fixing the URL and redelivering can.
  const outcome = result.delivered ? "delivered" : result.refused ? "failed" : gone ? "disabled" : "retrying";
  await on("record", {
    target: { deliveryId: found.delivery.id, endpointId: found.endpoint.id },
    attempt: {
      attempt,
      attemptedAt: now.toISOString(),
      durationMs: result.durationMs,
      responseStatus: result.responseStatus,
      error: result.error,
      outcome,
      requestBody: body,
      responseBody: result.responseBody,
      responseBytes: result.responseBytes,
    },
    status: result.delivered ? "delivered" : outcome === "retrying" ? "pending" : "failed",
  });
  if (!result.delivered) {
    logEvent("warn", {
      event: "webhook_attempt_failed",
      org_id: message.orgId,
      delivery_id: found.delivery.id,
      attempt,
      status: result.responseStatus,
    });
  }
  return outcome === "retrying" ? "retry" : "done";
}

/**
 * The message's body if this code can act on it. Anything else (a null body, an unknown kind, a
 * missing id) no retry can fix: it is logged, by its id and the shape it lacks, never its
 * content, and acked on its own.
 */
function readMessage(msg: Message<unknown>): WebhookMessage | null {
  const parsed = WebhookMessageSchema.safeParse(msg.body);
  if (parsed.success) return parsed.data;
  logEvent("error", {
    event: "webhook_message_malformed",
    message_id: msg.id,
    attempts: msg.attempts,
    body_type: msg.body === null ? "null" : typeof msg.body,
    issues: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), code: issue.code })),
  });
  msg.ack();
  return null;
}

const retryLater = (msg: Message<unknown>) => msg.retry({ delaySeconds: RETRY_DELAYS_SECONDS[msg.attempts - 1] ?? 0 });

/** Runs `work` for its messages, then acks them, or retries them when it asks to or fails. */
async function settle(messages: Message<unknown>[], kind: WebhookMessage["kind"], work: () => Promise<"done" | "retry">): Promise<void> {
  if (messages.length === 0) return;
  try {
    const outcome = await work();
    // After the last delay the queue's max_retries is spent, and this retry moves it to the dead-letter queue.
    for (const msg of messages) {
      if (outcome === "done") msg.ack();
      else retryLater(msg);
    }
  } catch (error) {
    const attempts = Math.max(...messages.map((msg) => msg.attempts));
    logEvent("error", { event: "webhook_message_failed", kind, messages: messages.length, attempts, ...describeError(error) });
    for (const msg of messages) retryLater(msg);
  }
}

/**
 * The WEBHOOKS consumer: the batch's events are fanned out together (they succeed or are retried
 * together); each delivery is attempted, acked or retried on its own, side by side with the rest,
 * so one slow receiver (up to 10 s) does not hold up the others. Never the whole batch.
 */
export async function consumeWebhooks(batch: MessageBatch<WebhookMessage>, env: Env, now: Now = () => new Date()): Promise<void> {
  const eventMessages: Message<unknown>[] = [];
  const events: EventRef[] = [];
  const deliveries: Promise<void>[] = [];
  for (const msg of batch.messages) {
    const body = readMessage(msg);
    if (body === null) continue;
    if (body.kind === "event") {
      eventMessages.push(msg);
      events.push(body);
    } else {
      deliveries.push(settle([msg], "delivery", () => attemptDelivery(env, body, now())));
    }
  }
  await Promise.all([settle(eventMessages, "event", () => fanOut(env, events, now())), ...deliveries]);
}

/**
 * The dead-letter queue's consumer: a delivery that spent its retries is marked failed; a fan-out
 * that kept failing is handed back to the outbox sweeper. A message is acked only once its mark is
 * written: if D1 refuses the write, it is retried on the delivery schedule (+20 min, +2 h, +12 h:
 * the dead-letter queue's own max_retries is 3), not dropped with the delivery left `pending`.
 */
export async function consumeDeadLetters(batch: MessageBatch<WebhookMessage>, env: Env, now: Now = () => new Date()): Promise<void> {
  const db = getDb(env.DB);
  for (const msg of batch.messages) {
    const body = readMessage(msg);
    if (body === null) continue;
    try {
      if (body.kind === "delivery") {
        await webhookStorage(env, body.orgId)("fail", { deliveryId: body.deliveryId, at: now().toISOString() });
        logEvent("error", { event: "webhook_delivery_dead_lettered", org_id: body.orgId, delivery_id: body.deliveryId });
      } else {
        await clearOutboxFannedOut(db, body.orgId, body.eventId);
        logEvent("error", { event: "webhook_fanout_dead_lettered", org_id: body.orgId, event_id: body.eventId });
      }
      msg.ack();
    } catch (error) {
      logEvent("error", { event: "webhook_dead_letter_failed", kind: body.kind, attempts: msg.attempts, ...describeError(error) });
      retryLater(msg);
    }
  }
}
