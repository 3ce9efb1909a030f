export { createDealerIntelClient, type DealerIntelClient, type DealerIntelClientOptions, type Unwrapped, unwrap } from "./client";
export { DealerIntelError, type ErrorBody, type ErrorCode, type ValidationDetail } from "./errors";
export { type Quota, readQuota } from "./quota";
export type { RetryOptions } from "./retry";
export type { components, operations, paths, webhooks } from "./schema";
export {
  type HeaderSource,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEnvelope,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from "./webhooks";
