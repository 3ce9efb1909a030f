import { z } from "@hono/zod-openapi";
import { TEST_KEY_DAILY_LIMIT } from "../../credentials/sandbox-limits";
import { ENDPOINT_NAMES } from "../../http/endpoints";
import { documentedError, notFoundResponse } from "../../http/errors";
import { route } from "../../http/route";

/** The documented permission set: every key reads; `ingest` also lets it push DMS data (/api/v1/ingest). */
export const PERMISSIONS = ["read", "ingest"] as const;
const DEFAULT_RATE_LIMIT = 100;
const MAX_RATE_LIMIT = 1_000_000;

const Permission = z.enum(PERMISSIONS);
const Scope = z.enum(ENDPOINT_NAMES);

export const CreateApiKeyRequestSchema = z
  .object({
    label: z
      .string()
      .trim()
      .min(1)
      .max(100)
      // Labels end up in dashboards, logs and terminals: no NUL, escape sequences or line breaks.
      .regex(/^\P{Cc}*$/u, "must not contain control characters")
      // The document would carry the regex flag as "/u" inside the pattern; JSON Schema patterns are Unicode-aware already.
      .openapi({
        description: "1 to 100 characters, after trimming; no control characters (NUL, ESC, CR, LF…).",
        pattern: "^\\P{Cc}*$",
        example: "DMS integration",
      }),
    permissions: z
      .union([Permission, z.array(Permission).min(1).max(PERMISSIONS.length)])
      .optional()
      .openapi({
        description:
          'Documented set: `read`, `ingest` (may push inventory and deals to /api/v1/ingest). Accepts a single string (`"read"`) or an array (`["read"]`); always stored and returned as an array. Default `["read"]`.',
      }),
    rate_limit: z
      .int()
      .min(1)
      .max(MAX_RATE_LIMIT)
      .default(DEFAULT_RATE_LIMIT)
      .openapi({ description: `Requests per UTC day, 1 to 1,000,000; in a sandbox at most ${TEST_KEY_DAILY_LIMIT} (a \`lak_test_\` key).` }),
    scopes: z
      .array(Scope)
      .min(1)
      .max(ENDPOINT_NAMES.length)
      .nullable()
      .optional()
      .openapi({
        description: `Endpoint names this key may call (at most ${ENDPOINT_NAMES.length} entries). Omitted or null: every endpoint of the organization.`,
        example: ["lender-route", "stip-check"],
      }),
  })
  .openapi("CreateApiKeyRequest", {
    example: { label: "DMS integration", permissions: ["read"], rate_limit: 1000, scopes: ["inventory", "sales-summary"] },
  });

const keyFields = {
  id: z.string().openapi({ example: "key_4kQ9bX2mN7pR1sT8" }),
  key_prefix: z
    .string()
    .openapi({ description: "The first characters of the key, to recognise it; never enough to use it.", example: "lak_EtRsPOGb" }),
  mode: z.enum(["live", "test"]).openapi({
    description: "`test`: a sandbox's `lak_test_` key (docs/sandboxes.md), answered with `X-Service-Mode: test`; `live`: a `lak_` key.",
    example: "live",
  }),
  label: z.string(),
  permissions: z.array(z.string()).openapi({ example: ["read"] }),
  scopes: z.array(z.string()).nullable().openapi({ description: "Endpoint names; null: every endpoint of the organization." }),
  rate_limit: z.int().openapi({ description: "Requests per UTC day." }),
  created_at: z.iso.datetime(),
};

export const CreatedApiKeySchema = z
  .object({
    ...keyFields,
    key: z.string().openapi({
      description: "The raw key. Shown in this response only; it cannot be retrieved again.",
      example: "lak_EtRsPOGbI6IEgJZLPhzyu6IcI2oXsq8E0lHuOc",
    }),
  })
  .openapi("CreatedApiKey", {
    example: {
      id: "key_4kQ9bX2mN7pR1sT8",
      key: "lak_EtRsPOGbI6IEgJZLPhzyu6IcI2oXsq8E0lHuOc",
      key_prefix: "lak_EtRsPOGb",
      mode: "live",
      label: "DMS integration",
      permissions: ["read"],
      scopes: ["inventory", "sales-summary"],
      rate_limit: 1000,
      created_at: "2026-11-26T09:30:00.000Z",
    },
  });

const ApiKeySummarySchema = z
  .object({
    ...keyFields,
    last_used_at: z.iso
      .datetime()
      .nullable()
      .openapi({ description: "Last authenticated call; recorded in batches, so up to about a minute behind." }),
    revoked_at: z.iso.datetime().nullable(),
    expires_at: z.iso.datetime().nullable().openapi({ description: "A rotated key works until this moment, then is refused (401); null: no end." }),
    usage_today: z.int().nullable().openapi({
      description:
        "Requests counted against today's (UTC) quota by the key's counter. Above 100 a day this can run a little ahead of calls served, as running instances reserve small blocks of quota. null if the counter could not be read.",
    }),
  })
  .openapi("ApiKeySummary");

export const ApiKeyListSchema = z.object({ count: z.int(), keys: z.array(ApiKeySummarySchema) }).openapi("ApiKeyList", {
  example: {
    count: 1,
    keys: [
      {
        id: "key_4kQ9bX2mN7pR1sT8",
        key_prefix: "lak_EtRsPOGb",
        mode: "live",
        label: "DMS integration",
        permissions: ["read"],
        scopes: null,
        rate_limit: 1000,
        created_at: "2026-11-26T09:30:00.000Z",
        last_used_at: "2026-11-26T10:02:11.000Z",
        revoked_at: null,
        expires_at: null,
        usage_today: 37,
      },
    ],
  },
});

const MAX_ROTATION_OVERLAP_HOURS = 168;

const RotateApiKeyRequestSchema = z
  .strictObject({
    overlap_hours: z
      .int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_HOURS)
      .default(24)
      .openapi({ description: `How long the old key keeps working beside the new one, 0 to ${MAX_ROTATION_OVERLAP_HOURS} hours; default 24.` }),
  })
  .openapi("RotateApiKeyRequest", { example: { overlap_hours: 24 } });

export const RotatedApiKeySchema = z
  .object({
    ...CreatedApiKeySchema.shape,
    previous_key: z
      .object({
        id: z.string().openapi({ example: "key_4kQ9bX2mN7pR1sT8" }),
        expires_at: z.iso.datetime().openapi({ description: "The old key is refused (401) from this moment." }),
      })
      .openapi({ description: "The key this one replaces." }),
  })
  .openapi("RotatedApiKey", {
    example: {
      id: "key_9mN2pQ7rT4sV1xK8",
      key: "lak_EtRsPOGbI6IEgJZLPhzyu6IcI2oXsq8E0lHuOc",
      key_prefix: "lak_EtRsPOGb",
      label: "DMS integration",
      permissions: ["read"],
      scopes: ["inventory", "sales-summary"],
      rate_limit: 1000,
      created_at: "2026-11-26T09:30:00.000Z",
      previous_key: { id: "key_4kQ9bX2mN7pR1sT8", expires_at: "2026-11-27T09:30:00.000Z" },
    },
  });

export const createApiKey = route({
  method: "post",
  path: "/api/public-api/keys",
  operationId: "createApiKey",
  tags: ["Keys"],
  summary: "Create an API key for the caller's organization",
  description:
    "Authenticated by a staff session cookie (then `Content-Type: application/json` and an allowed `Origin` are required) or by `Authorization: Bearer <broker token>`; the key belongs to the session's or the token's organization. The raw key is in this response only.",
  caller: "staff-or-broker",
  body: true,
  idempotent: true,
  request: { body: { content: { "application/json": { schema: CreateApiKeyRequestSchema } }, required: true } },
  responses: {
    201: {
      description: "Created. Sent with `Cache-Control: no-store`.",
      content: { "application/json": { schema: CreatedApiKeySchema } },
    },
  },
});

export const listApiKeys = route({
  method: "get",
  path: "/api/public-api/keys",
  operationId: "listApiKeys",
  tags: ["Keys"],
  summary: "List the organization's keys, active and revoked, newest first",
  description: "Metadata, today's usage and last use only; never the key or its hash.",
  caller: "staff-or-broker",
  responses: {
    200: {
      description: "The organization's keys. Sent with `Cache-Control: no-store`.",
      content: { "application/json": { schema: ApiKeyListSchema } },
    },
  },
});

export const revokeApiKey = route({
  method: "delete",
  path: "/api/public-api/keys/{id}",
  operationId: "revokeApiKey",
  tags: ["Keys"],
  summary: "Revoke a key",
  description:
    "The key is refused everywhere within 60 seconds (at once by the instance that revoked it). Revoking a revoked key answers 204 again and keeps the first revocation time. With a session cookie, an allowed `Origin` is required.",
  caller: "staff-or-broker",
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: "id", in: "path" }, example: "key_4kQ9bX2mN7pR1sT8" }),
    }),
  },
  responses: {
    204: { description: "Revoked." },
    ...notFoundResponse,
  },
});

export const rotateApiKey = route({
  method: "post",
  path: "/api/public-api/keys/{id}/rotate",
  operationId: "rotateApiKey",
  tags: ["Keys"],
  summary: "Replace a key with a new one, both working during an overlap",
  description:
    "Creates a key with the old one's label, permissions, scopes and rate limit (the raw key is in this response only) and gives the old key an end: now + `overlap_hours`. Until then both work; from then on the old key is refused (401). The new key's daily quota counts from zero (docs/quota.md#rotating-a-key). With `overlap_hours` 0 the old key is refused at once by this instance and within 60 seconds by every other, as after a revocation. With a session cookie, `Content-Type: application/json` and an allowed `Origin` are required.",
  caller: "staff-or-broker",
  body: true,
  idempotent: true,
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: "id", in: "path" }, example: "key_4kQ9bX2mN7pR1sT8" }),
    }),
    body: { content: { "application/json": { schema: RotateApiKeyRequestSchema } }, required: true },
  },
  responses: {
    201: {
      description: "The new key, and when the old one ends. Sent with `Cache-Control: no-store`.",
      content: { "application/json": { schema: RotatedApiKeySchema } },
    },
    ...notFoundResponse,
    409: documentedError("The key is revoked, or already rotated and running out its overlap (`conflict`)."),
  },
});
