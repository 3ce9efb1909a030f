import { z } from "@hono/zod-openapi";
import { documentedError, validationErrorResponse } from "../../http/errors";
import { route } from "../../http/route";
import { optionalStoreSettingSchemas, storeSettingSchemas } from "../../http/store-setting-fields";

const TAG = "Operator";
const orgNotFound = { 404: documentedError("No organization with that id (`not_found`).") } as const;

/** Control characters never belong in a name shown in dashboards, logs and terminals. */
const displayText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^\P{Cc}*$/u, "must not contain control characters")
    .openapi({ pattern: "^\\P{Cc}*$" });

const idParam = (name: string, example: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name, in: "path" }, example });
const OrgParams = z.object({ org_id: idParam("org_id", "org_acme") });

const ORGANIZATION_EXAMPLE = {
  id: "org_acme",
  name: "Acme Motors",
  is_sandbox: false,
  is_demo: false,
  suspended_at: null,
  expires_at: null,
  created_at: "2026-11-26T09:30:00.000Z",
};

const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    is_sandbox: z.boolean().openapi({ description: "A self-serve sandbox (docs/sandboxes.md)." }),
    is_demo: z.boolean().openapi({ description: "Seeded with the demo data (the local demo organizations and every sandbox)." }),
    suspended_at: z.iso
      .datetime()
      .nullable()
      .openapi({ description: "Set while suspended: its keys, broker tokens and staff sessions are refused (403 `organization_suspended`)." }),
    expires_at: z.iso.datetime().nullable().openapi({ description: "A sandbox's expiry; null for a live organization." }),
    created_at: z.iso.datetime(),
  })
  .openapi("Organization", { example: ORGANIZATION_EXAMPLE });

const ORG_ID_PATTERN = /^org_[a-z0-9][a-z0-9_]{1,58}$/;
const STORE_ID_PATTERN = /^sto_[a-z0-9][a-z0-9_]{1,58}$/;

const CreateOrganizationRequestSchema = z
  .object({
    id: z
      .string()
      .regex(ORG_ID_PATTERN)
      .refine((id) => !id.startsWith("org_sbx_"), "org_sbx_ ids are reserved for sandboxes")
      .optional()
      .openapi({
        description: "`org_` and 2 to 59 lower-case letters, digits or `_` (not `org_sbx_…`). Omitted: one is generated.",
        example: "org_acme",
      }),
    name: displayText(200).openapi({ example: "Acme Motors" }),
  })
  .openapi("CreateOrganizationRequest", { example: { id: "org_acme", name: "Acme Motors" } });

const STORE_EXAMPLE = {
  id: "sto_acme_main",
  org_id: "org_acme",
  name: "Acme Motors Main Street",
  market_zip: "78701",
  is_primary: true,
  pack_new: 300,
  pack_used: 650,
  holding_cost_per_day: 35,
  holding_high_value_cost: 30000,
  holding_high_value_daily_pct: 0.1,
  floorplan_apr_new: 7,
  floorplan_apr_used: 8.5,
  floorplan_assistance_new_per_day: 0,
  overhead_new_per_day: 0,
  wholesale_ratio_pct: 82,
  auction_fees: 500,
  recon_car: 1200,
  recon_truck: 1400,
  recon_suv: 1300,
  recon_van: 1200,
  aged_threshold_days: 45,
  aged_threshold_days_new: 90,
  target_front_gross_used_pct: 8,
  target_front_gross_used_min: 1200,
  inventory_stale_hours: 24,
  deals_stale_hours: 72,
  created_at: "2026-11-26T09:31:00.000Z",
};

export const CreateStoreRequestSchema = z
  .object({
    id: z
      .string()
      .regex(STORE_ID_PATTERN)
      .optional()
      .openapi({ description: "`sto_` and 2 to 59 lower-case letters, digits or `_`. Omitted: one is generated.", example: "sto_acme_main" }),
    name: displayText(200).openapi({ example: "Acme Motors Main Street" }),
    market_zip: z
      .string()
      .regex(/^\d{5}$/)
      .openapi({ description: "The store's market ZIP code (five digits).", example: "78701" }),
    is_primary: z.boolean().default(false).openapi({ description: "The organization's primary store (reports default to it)." }),
    // The settings PATCH's ranges, from the one schema of each (docs/settings.md#the-store-fields-and-their-ranges).
    ...optionalStoreSettingSchemas,
  })
  .openapi("CreateStoreRequest", {
    description: "Settings left out take the shipped defaults (docs/domain/gross.md, docs/domain/reports.md); the answer shows them.",
    example: { id: "sto_acme_main", name: "Acme Motors Main Street", market_zip: "78701", is_primary: true, pack_used: 650 },
  });

const StoreSchema = z
  .object({
    id: z.string(),
    org_id: z.string(),
    name: z.string(),
    market_zip: z.string(),
    is_primary: z.boolean(),
    ...storeSettingSchemas,
    created_at: z.iso.datetime(),
  })
  .openapi("Store", { example: STORE_EXAMPLE });

export const CreateStaffUserRequestSchema = z
  .object({
    email: z
      .email()
      .max(254)
      .openapi({ description: "The login; unique across all organizations (409 `conflict` when taken).", example: "gm@acme-motors.example" }),
    name: displayText(200).openapi({ example: "Jordan Reyes" }),
    password: z
      .string()
      .min(12)
      .max(200)
      .openapi({ description: "12 to 200 characters; stored only as a scrypt hash, never returned.", example: "correct-horse-battery-staple" }),
  })
  .openapi("CreateStaffUserRequest", {
    example: { email: "gm@acme-motors.example", name: "Jordan Reyes", password: "correct-horse-battery-staple" },
  });

const StaffUserSchema = z
  .object({ id: z.string(), org_id: z.string(), email: z.string(), name: z.string(), created_at: z.iso.datetime() })
  .openapi("StaffUser", {
    example: {
      id: "usr_8sK2mQ4vX9pL1nR7",
      org_id: "org_acme",
      email: "gm@acme-motors.example",
      name: "Jordan Reyes",
      created_at: "2026-11-26T09:32:00.000Z",
    },
  });

const CreateBrokerTokenRequestSchema = z
  .object({ label: displayText(100).openapi({ example: "Acme DMS broker" }) })
  .openapi("CreateBrokerTokenRequest", { example: { label: "Acme DMS broker" } });

const brokerTokenFields = {
  id: z.string().openapi({ example: "brk_4kQ9bX2mN7pR1sT8" }),
  org_id: z.string(),
  label: z.string(),
  created_at: z.iso.datetime(),
};

const BrokerTokenSchema = z.object({ ...brokerTokenFields, revoked_at: z.iso.datetime().nullable() }).openapi("BrokerToken");

const CreatedBrokerTokenSchema = z
  .object({
    ...brokerTokenFields,
    token: z.string().openapi({
      description: "The raw `dbt_` token, for `Authorization: Bearer` on key management and ingestion. Shown in this response only.",
      example: "dbt_55wXaCsEY6KmRqPQDnnOdrQ9wz798vmft4byDsns",
    }),
  })
  .openapi("CreatedBrokerToken", {
    example: {
      id: "brk_4kQ9bX2mN7pR1sT8",
      org_id: "org_acme",
      label: "Acme DMS broker",
      created_at: "2026-11-26T09:33:00.000Z",
      token: "dbt_55wXaCsEY6KmRqPQDnnOdrQ9wz798vmft4byDsns",
    },
  });

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

export const createOrganization = route({
  method: "post",
  path: "/api/operator/organizations",
  operationId: "operatorCreateOrganization",
  tags: [TAG],
  summary: "Create an organization",
  description:
    "A live organization with no stores, staff or credentials yet: add them with the calls below. It is born in its own storage object, where its data lives from the first write (docs/scaling.md).",
  caller: "operator",
  body: true,
  idempotent: true,
  request: { body: { content: { "application/json": { schema: CreateOrganizationRequestSchema } }, required: true } },
  responses: {
    201: json(OrganizationSchema, "Created."),
    409: documentedError("An organization with that id exists (`conflict`)."),
  },
});

export const listOrganizations = route({
  method: "get",
  path: "/api/operator/organizations",
  operationId: "operatorListOrganizations",
  tags: [TAG],
  summary: "List organizations, oldest first",
  description: "Live organizations by default; `include_sandboxes=true` adds the sandboxes.",
  caller: "operator",
  request: {
    query: z.object({
      include_sandboxes: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true")
        .openapi({ description: "Also list sandboxes (default: live organizations only)." }),
    }),
  },
  responses: {
    200: json(
      z
        .object({ count: z.int(), organizations: z.array(OrganizationSchema) })
        .openapi("OrganizationList", { example: { count: 1, organizations: [ORGANIZATION_EXAMPLE] } }),
      "The organizations.",
    ),
    ...validationErrorResponse,
  },
});

export const getOrganization = route({
  method: "get",
  path: "/api/operator/organizations/{org_id}",
  operationId: "operatorGetOrganization",
  tags: [TAG],
  summary: "Get an organization",
  description: "A live organization or a sandbox, with its standing (suspended, expiry).",
  caller: "operator",
  request: { params: OrgParams },
  responses: { 200: json(OrganizationSchema, "The organization."), ...orgNotFound },
});

export const suspendOrganization = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/suspend",
  operationId: "operatorSuspendOrganization",
  tags: [TAG],
  summary: "Suspend an organization",
  description:
    "From the next request on, its staff sessions are refused with 403 `organization_suspended`, and so are its keys and broker tokens: at once by the instance that suspended it, within 60 seconds by every other (each instance keeps a verified key or broker token for up to a minute). Nothing is deleted; suspending again keeps the first time.",
  caller: "operator",
  request: { params: OrgParams },
  responses: { 200: json(OrganizationSchema, "Suspended."), ...orgNotFound },
});

export const reinstateOrganization = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/reinstate",
  operationId: "operatorReinstateOrganization",
  tags: [TAG],
  summary: "Reinstate a suspended organization",
  description: "Its credentials work again (keys within 60 seconds on every instance).",
  caller: "operator",
  request: { params: OrgParams },
  responses: { 200: json(OrganizationSchema, "Reinstated."), ...orgNotFound },
});

export const createStore = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/stores",
  operationId: "operatorCreateStore",
  tags: [TAG],
  summary: "Create a store (a rooftop) of an organization",
  description: "Every setting is optional; what is left out takes the shipped default, and the answer shows the store as stored.",
  caller: "operator",
  body: true,
  idempotent: true,
  request: {
    params: OrgParams,
    body: { content: { "application/json": { schema: CreateStoreRequestSchema } }, required: true },
  },
  responses: {
    201: json(StoreSchema, "Created, with every setting (the defaults where none was given)."),
    409: documentedError("A store with that id exists (`conflict`)."),
    ...orgNotFound,
  },
});

export const listStores = route({
  method: "get",
  path: "/api/operator/organizations/{org_id}/stores",
  operationId: "operatorListStores",
  tags: [TAG],
  summary: "List an organization's stores",
  description: "Every store of the organization, with its settings.",
  caller: "operator",
  request: { params: OrgParams },
  responses: {
    200: json(
      z.object({ count: z.int(), stores: z.array(StoreSchema) }).openapi("StoreList", { example: { count: 1, stores: [STORE_EXAMPLE] } }),
      "The stores, oldest first.",
    ),
    ...orgNotFound,
  },
});

export const createStaffUser = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/staff-users",
  operationId: "operatorCreateStaffUser",
  tags: [TAG],
  summary: "Create a staff user (a login) of an organization",
  description: "The user logs in with POST /api/auth/login. The password is stored as a scrypt hash and never returned.",
  caller: "operator",
  body: true,
  idempotent: true,
  request: {
    params: OrgParams,
    body: { content: { "application/json": { schema: CreateStaffUserRequestSchema } }, required: true },
  },
  responses: {
    201: json(StaffUserSchema, "Created."),
    409: documentedError("A staff user with that e-mail address exists, in this or another organization (`conflict`)."),
    ...orgNotFound,
  },
});

export const createBrokerToken = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/broker-tokens",
  operationId: "operatorCreateBrokerToken",
  tags: [TAG],
  summary: "Issue a broker token for an organization",
  description: "The raw token is in this response only; only its SHA-256 is stored. Sent with `Cache-Control: no-store`.",
  caller: "operator",
  body: true,
  idempotent: true,
  request: {
    params: OrgParams,
    body: { content: { "application/json": { schema: CreateBrokerTokenRequestSchema } }, required: true },
  },
  responses: { 201: json(CreatedBrokerTokenSchema, "Issued."), ...orgNotFound },
});

export const listBrokerTokens = route({
  method: "get",
  path: "/api/operator/organizations/{org_id}/broker-tokens",
  operationId: "operatorListBrokerTokens",
  tags: [TAG],
  summary: "List an organization's broker tokens, active and revoked, newest first",
  description: "Metadata only; never the token or its hash.",
  caller: "operator",
  request: { params: OrgParams },
  responses: {
    200: json(
      z.object({ count: z.int(), broker_tokens: z.array(BrokerTokenSchema) }).openapi("BrokerTokenList", {
        example: {
          count: 1,
          broker_tokens: [
            { id: "brk_4kQ9bX2mN7pR1sT8", org_id: "org_acme", label: "Acme DMS broker", created_at: "2026-11-26T09:33:00.000Z", revoked_at: null },
          ],
        },
      }),
      "The tokens.",
    ),
    ...orgNotFound,
  },
});

export const revokeBrokerToken = route({
  method: "delete",
  path: "/api/operator/organizations/{org_id}/broker-tokens/{token_id}",
  operationId: "operatorRevokeBrokerToken",
  tags: [TAG],
  summary: "Revoke a broker token",
  description:
    "Refused at once by the instance that revoked it, within 60 seconds by every other (each instance keeps a verified broker token for up to a minute). Keys it created stay valid; revoke them with DELETE /api/public-api/keys/{id}.",
  caller: "operator",
  request: { params: OrgParams.extend({ token_id: idParam("token_id", "brk_4kQ9bX2mN7pR1sT8") }) },
  responses: {
    204: { description: "Revoked." },
    404: documentedError("No such organization, or no active broker token with that id in it (`not_found`)."),
  },
});
