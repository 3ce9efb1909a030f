export { createDealerIntelClient, type DealerIntelClient, type DealerIntelClientOptions, type Unwrapped, unwrap } from "./client.js";
export { DealerIntelError, type ErrorBody, type ErrorCode, type QuotaExceededBody, type ValidationDetail } from "./errors.js";
export { type Quota, readQuota } from "./quota.js";
export type { RetryOptions } from "./retry.js";
export type { components, operations, paths, webhooks } from "./schema.js";
export {
  type HeaderSource,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookTestEvent,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from "./webhooks.js";
