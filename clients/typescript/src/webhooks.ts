import type { webhooks } from "./schema.js";

/** Every event's envelope; `data` differs by event (see the `webhooks` section of the document). */
export interface WebhookEnvelope<Name extends string = string, Data = Record<string, unknown>> {
  id: string;
  event: Name;
  org_id: string;
  /** The event's store, else the organization's primary store. */
  store_id: string;
  timestamp: string;
  /** True for a sample you asked for (`POST /api/v1/webhooks/{id}/trigger`, the test ping): ignore it in production. */
  sample: boolean;
  data: Data;
}

type DocumentedEvent = {
  [Name in keyof webhooks]: webhooks[Name] extends { post: { requestBody: { content: { "application/json": infer Delivery } } } } ? Delivery : never;
}[keyof webhooks];

/**
 * The ping `POST /api/v1/webhooks/{id}/test` sends to check an endpoint: signed like every
 * delivery, but not retried, not in the delivery log, and sent whatever events the endpoint
 * subscribes to. Answer it 2xx and do nothing else.
 */
export type WebhookTestEvent = WebhookEnvelope<"webhook.test", { message: string }>;

/**
 * The union of the documented events and the test ping, discriminated by `event`; the generic
 * envelope stands in for the documented events until there are any.
 */
export type WebhookEvent = (string extends keyof webhooks ? WebhookEnvelope : DocumentedEvent) | WebhookTestEvent;

export type WebhookVerificationFailure = "missing_header" | "malformed_timestamp" | "stale_timestamp" | "bad_signature" | "malformed_body";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** Largest difference, either way, between the delivery's timestamp and your clock. Default 300 s. */
  toleranceSeconds?: number;
  /** Your clock, in milliseconds (tests pass a fixed one). Default `Date.now()`. */
  now?: number;
}

/** A Fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const encoder = new TextEncoder();

/**
 * Checks a delivery as the webhooks guide defines it (docs/webhooks.md, "Verifying the signature") and returns the event. `rawBody` must be the exact
 * bytes received (parsing and re-serialising JSON breaks the signature). Throws a
 * `WebhookVerificationError` when a header is missing, the timestamp is more than
 * `toleranceSeconds` from now (a replay), or no `sha256=` value in `X-Service-Signature` matches
 * (during a secret rotation there are two, space-separated). The comparison is WebCrypto's
 * `verify`, which takes the same time however much of a signature matches. De-duplicate on the
 * returned `id`: retries carry the same id with a fresh timestamp.
 */
export async function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  rawBody: string | ArrayBuffer | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "x-service-webhook-id");
  const timestamp = header(headers, "x-service-webhook-timestamp");
  const signatures = header(headers, "x-service-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing_header", "X-Service-Webhook-Id, X-Service-Webhook-Timestamp and X-Service-Signature are required.");
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("malformed_timestamp", "X-Service-Webhook-Timestamp is not Unix seconds.");
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const skewSeconds = Math.abs((options.now ?? Date.now()) / 1000 - Number(timestamp));
  if (skewSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      "stale_timestamp",
      `The delivery's timestamp is ${Math.round(skewSeconds)} s from this clock (tolerance ${toleranceSeconds} s).`,
    );
  }

  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  let valid = false;
  for (const value of signatures.split(" ")) {
    const mac = value.startsWith("sha256=") ? fromHex(value.slice("sha256=".length)) : null;
    // Every candidate is checked, so the time taken does not depend on which one matched.
    if (mac && (await crypto.subtle.verify("HMAC", key, mac, signed))) valid = true;
  }
  if (!valid) throw new WebhookVerificationError("bad_signature", "No X-Service-Signature value matches this secret.");

  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("malformed_body", "The signed body is not JSON.");
  }
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry.join(" ") : entry;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
  return Uint8Array.from(hex.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
