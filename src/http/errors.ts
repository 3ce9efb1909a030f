import { z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";

const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  organization_suspended: 403,
  sandbox_expired: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_in_progress: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  validation_error: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  daily_rate_limit_reached: 429,
  internal_error: 500,
  upstream_timeout: 503,
  sanctions_list_stale: 503,
  vehicle_data_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ValidationDetail {
  path: string;
  code: string;
  message: string;
}

/** Thrown anywhere below the app; `onError` turns it into the one error body every client sees. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { details?: ValidationDetail[]; headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** A 422 lists at most this many `details`; `details_truncated` counts the ones left out. */
export const MAX_VALIDATION_DETAILS = 20;

export const unauthorized = (message: string) => new ApiError("unauthorized", message);

export const ErrorSchema = z
  .object({
    error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).openapi({ example: "unauthorized" }),
    message: z.string().openapi({ example: "A valid X-Service-API-Key header is required." }),
    request_id: z.string().openapi({ example: "c0a8012e-5b7e-4f0e-9a51-8f1f3b1c2d4e" }),
    details: z
      .array(z.object({ path: z.string(), code: z.string(), message: z.string() }))
      .max(MAX_VALIDATION_DETAILS)
      .optional()
      .openapi({ description: `Field-level problems; present on 422 only, at most ${MAX_VALIDATION_DETAILS} (the first ones found).` }),
    details_truncated: z
      .int()
      .min(1)
      .optional()
      .openapi({
        description: `On a 422 with more than ${MAX_VALIDATION_DETAILS} problems: how many were left out of \`details\`.`,
        example: 99_980,
      }),
  })
  .openapi("Error");

/** An error response for the OpenAPI document: the one error body, described for this status. */
export const documentedError = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

export const validationErrorResponse = {
  422: documentedError(
    "The body parsed but failed validation (`validation_error`). A body field the endpoint does not declare is a 422 too: `details[].code` is `unrecognized_keys` and `details[].path` names the field (docs/versioning.md#unknown-request-fields).",
  ),
} as const;
export const notFoundResponse = { 404: documentedError("No such resource in this organization (`not_found`).") } as const;
export const payloadTooLargeResponse = { 413: documentedError("The body is over the size limit (`payload_too_large`).") } as const;
