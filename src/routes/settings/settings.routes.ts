import { type RouteConfig, z } from "@hono/zod-openapi";
import { SETTINGS_AREAS } from "../../db/schema";
import { documentedError } from "../../http/errors";
import { type RouteDeclaration, route } from "../../http/route";
import { optionalStoreSettingSchemas, storeSettingSchemas } from "../../http/store-setting-fields";

const STORE_EXAMPLE = {
  store_id: "sto_summit_north",
  name: "Summit Auto North",
  pack_new: 300,
  pack_used: 500,
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
};

export const StoreSettingsSchema = z
  .object({ store_id: z.string(), name: z.string(), ...storeSettingSchemas })
  .openapi("SettingsStore", { example: STORE_EXAMPLE });
const StoreSettingsListSchema = z
  .object({ count: z.int(), stores: z.array(StoreSettingsSchema) })
  .openapi("SettingsStoreList", { example: { count: 1, stores: [STORE_EXAMPLE] } });
export const StoreSettingsPatchSchema = z
  .strictObject(optionalStoreSettingSchemas)
  .openapi("SettingsStorePatch", { example: { aged_threshold_days: 60, pack_used: 650 } });

const LenderProgramSchema = z.object({
  id: z.string().openapi({ example: "lp_fresh_start_auto_lending" }),
  name: z.string().openapi({ example: "Fresh Start Auto Lending" }),
  type: z.string().openapi({ example: "specialty" }),
});
export const LenderPanelSchema = z
  .object({ store_id: z.string(), count: z.int(), programs: z.array(LenderProgramSchema) })
  .openapi("SettingsLenderPanel", {
    example: {
      store_id: "sto_summit_north",
      count: 2,
      programs: [
        { id: "lp_fresh_start_auto_lending", name: "Fresh Start Auto Lending", type: "specialty" },
        { id: "lp_harbor_point_bank", name: "Harbor Point Bank", type: "bank" },
      ],
    },
  });
const MAX_PANEL_PROGRAMS = 100;
export const LenderPanelPutSchema = z
  .strictObject({
    programs: z
      .array(z.string().trim().min(1).max(100))
      .max(MAX_PANEL_PROGRAMS)
      .openapi({
        description: `The whole panel: each entry a program id (\`lp_…\`) or its name (any case) from the shared lender matrix; at most ${MAX_PANEL_PROGRAMS}, repeats count once. An empty list leaves the store with no lender to route to.`,
        example: ["Fresh Start Auto Lending", "lp_harbor_point_bank"],
      }),
  })
  .openapi("SettingsLenderPanelPut", { example: { programs: ["Fresh Start Auto Lending", "lp_harbor_point_bank"] } });

/**
 * The screening thresholds a manager may set: within the practice docs/domain/screening.md#tuning
 * cites, so a setting can tighten screening a little or loosen it a little, never switch it off.
 */
export const COMPLIANCE_RANGES = {
  hold_score: { min: 85, max: 100 },
  flag_score: { min: 80, max: 95 },
  max_list_age_days: { min: 1, max: 45 },
  minimum_age: { min: 18, max: 21 },
  maximum_age: { min: 100, max: 120 },
} as const;
const range = (field: keyof typeof COMPLIANCE_RANGES, description: string, integer = false) => {
  const { min, max } = COMPLIANCE_RANGES[field];
  return (integer ? z.int() : z.number())
    .min(min)
    .max(max)
    .openapi({ description: `${description} ${min} to ${max}.` });
};
const complianceFields = {
  hold_score: range("hold_score", "Match score at and above which a listed name holds the deal; at least `flag_score`."),
  flag_score: range("flag_score", "Match score at and above which a listed name flags the deal for a person to compare."),
  max_list_age_days: range("max_list_age_days", "A sanctions list older than this many days is stale and every check flags.", true),
  minimum_age: range("minimum_age", "A customer younger than this is an identity red flag.", true),
  maximum_age: range("maximum_age", "A customer older than this is an identity red flag.", true),
};
const COMPLIANCE_DEFAULTS_EXAMPLE = { hold_score: 95, flag_score: 85, max_list_age_days: 45, minimum_age: 18, maximum_age: 110 };

export const ComplianceSettingsSchema = z
  .object({
    ...complianceFields,
    is_default: z.boolean().openapi({ description: "True while the organization has changed nothing: the values are the service's defaults." }),
    defaults: z.object(complianceFields).openapi({ description: "The service's defaults, for comparison." }),
    updated_at: z.iso.datetime().nullable().openapi({ description: "The organization's last change; null while `is_default`." }),
  })
  .openapi("SettingsCompliance", {
    example: {
      ...COMPLIANCE_DEFAULTS_EXAMPLE,
      flag_score: 82,
      is_default: false,
      defaults: COMPLIANCE_DEFAULTS_EXAMPLE,
      updated_at: "2026-11-26T13:10:00.000Z",
    },
  });
export const ComplianceSettingsPatchSchema = z
  .strictObject({
    hold_score: complianceFields.hold_score.optional(),
    flag_score: complianceFields.flag_score.optional(),
    max_list_age_days: complianceFields.max_list_age_days.optional(),
    minimum_age: complianceFields.minimum_age.optional(),
    maximum_age: complianceFields.maximum_age.optional(),
  })
  .openapi("SettingsCompliancePatch", { example: { flag_score: 82 } });

const AUDIT_PAGE_MAX = 100;
const SettingsAuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: "set_4kQ9bX2mN7pR1sT8" }),
    store_id: z.string().nullable().openapi({ description: "Null for an organization-wide setting (`compliance`)." }),
    area: z.enum(SETTINGS_AREAS),
    field: z
      .string()
      .openapi({ description: "The field as the settings endpoints name it; `programs` for a lender panel.", example: "aged_threshold_days" }),
    old_value: z.unknown().openapi({ description: "The value before (a lender panel: its program ids, sorted).", example: 45 }),
    new_value: z.unknown().openapi({ example: 60 }),
    actor: z.string().openapi({ description: "`staff:<user id>`, `broker:<token id>` or `operator:<id>`.", example: "staff:usr_summit_desk" }),
    changed_at: z.iso.datetime(),
  })
  .openapi("SettingsAuditEntry");
export const SettingsAuditListSchema = z
  .object({
    count: z.int().openapi({ description: "Entries on this page." }),
    entries: z.array(SettingsAuditEntrySchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next, older page; null on the last page." }),
  })
  .openapi("SettingsAuditList", {
    example: {
      count: 1,
      entries: [
        {
          id: "set_4kQ9bX2mN7pR1sT8",
          store_id: "sto_summit_north",
          area: "store",
          field: "aged_threshold_days",
          old_value: 45,
          new_value: 60,
          actor: "staff:usr_summit_desk",
          changed_at: "2026-11-26T13:10:00.000Z",
        },
      ],
      has_more: false,
      next_cursor: null,
    },
  });

/** Each settings route's declaration, for the operator's copy of it. */
const declarations = new Map<RouteConfig, RouteDeclaration>();

function settingsRoute<Declaration extends RouteDeclaration>(declaration: Declaration) {
  const created = route(declaration);
  declarations.set(created, declaration);
  return created;
}

const common = { tags: ["Settings"], caller: "staff-or-broker" as const };
const storeIdParam = z.object({
  store_id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "store_id", in: "path" }, example: "sto_summit_north" }),
});
const storeNotFound = { 404: documentedError("No store with that id in the caller's organization (`not_found`).") } as const;
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description: `${description} Sent with \`Cache-Control: no-store\`.`,
  content: { "application/json": { schema } },
});
/** The store's settings with their entity tag, for `If-Match` on the PATCH. */
const taggedStore = (description: string) => ({
  ...json(StoreSettingsSchema, description),
  headers: {
    ETag: {
      description: "The settings' entity tag (strong): send it as `If-Match` on the PATCH to refuse overwriting a change you have not seen.",
      schema: { type: "string" as const, example: '"5c0b7d3e9a1f4b2c8d6e0f1a2b3c4d5e"' },
    },
  },
});
const CALLERS =
  "A staff session cookie (writes then need `Content-Type: application/json` and an allowed `Origin`) or `Authorization: Bearer <broker token>`; the organization is the session's or the token's.";

export const listStoreSettings = settingsRoute({
  ...common,
  method: "get",
  path: "/api/settings/stores",
  operationId: "listStoreSettings",
  summary: "Every store's settings",
  description: `${CALLERS} What the gross, aging, alert and appraisal engines read for each store (docs/settings.md).`,
  responses: { 200: json(StoreSettingsListSchema, "The organization's stores, by id.") },
});

export const getStoreSettings = settingsRoute({
  ...common,
  method: "get",
  path: "/api/settings/stores/{store_id}",
  operationId: "getStoreSettings",
  summary: "One store's settings",
  description: CALLERS,
  request: { params: storeIdParam },
  responses: { 200: taggedStore("The store's settings."), ...storeNotFound },
});

export const updateStoreSettings = settingsRoute({
  ...common,
  method: "patch",
  path: "/api/settings/stores/{store_id}",
  operationId: "updateStoreSettings",
  summary: "Change some of a store's settings",
  description: `${CALLERS} Fields left out are unchanged. Each field whose value changes is written to the audit log (\`GET /api/settings/audit\`) in the same transaction as the change, with exactly the value it replaced; a body that changes nothing writes nothing. With \`If-Match\` (the \`ETag\` of a read) the change is made only to that version, else 412; without it the last writer wins (docs/settings.md#simultaneous-changes). The engines see the change within 60 seconds (docs/settings.md#when-a-change-takes-effect).`,
  body: true,
  request: {
    params: storeIdParam,
    headers: z.object({
      "If-Match": z
        .string()
        .optional()
        .openapi({
          param: { name: "If-Match", in: "header" },
          description:
            "The `ETag` of the settings you read (`GET` or a previous `PATCH`), or `*`: the change is made only if the settings are still that version, else 412 `precondition_failed`. Left out: the last writer wins.",
          example: '"5c0b7d3e9a1f4b2c8d6e0f1a2b3c4d5e"',
        }),
    }),
    body: { required: true, content: { "application/json": { schema: StoreSettingsPatchSchema } } },
  },
  responses: {
    200: taggedStore("The store's settings after the change."),
    412: documentedError("`If-Match` names a version the settings no longer are: read them again and decide (`precondition_failed`)."),
    ...storeNotFound,
    422: documentedError("A value out of its range, or a field this endpoint does not declare (`validation_error`, `unrecognized_keys`)."),
  },
});

export const getLenderPanel = settingsRoute({
  ...common,
  method: "get",
  path: "/api/settings/stores/{store_id}/lender-panel",
  operationId: "getLenderPanel",
  summary: "The programs a store routes deals to",
  description: `${CALLERS} The store's panel over the shared lender matrix, by name; \`POST /api/v1/lender-route\` ranks these.`,
  request: { params: storeIdParam },
  responses: { 200: json(LenderPanelSchema, "The panel."), ...storeNotFound },
});

export const replaceLenderPanel = settingsRoute({
  ...common,
  method: "put",
  path: "/api/settings/stores/{store_id}/lender-panel",
  operationId: "replaceLenderPanel",
  summary: "Replace a store's lender panel",
  description: `${CALLERS} The panel becomes exactly the programs sent, in one transaction with its audit row (field \`programs\`, the sorted program ids before and after); the same panel again writes nothing. Routing sees it within 60 seconds.`,
  body: true,
  request: { params: storeIdParam, body: { required: true, content: { "application/json": { schema: LenderPanelPutSchema } } } },
  responses: {
    200: json(LenderPanelSchema, "The panel after the change."),
    ...storeNotFound,
    422: documentedError(
      "A program that is not in the lender matrix (`validation_error`; `details[].code` `unknown_lender_program`, the message names it), or a field this endpoint does not declare.",
    ),
  },
});

export const getComplianceSettings = settingsRoute({
  ...common,
  method: "get",
  path: "/api/settings/compliance",
  operationId: "getComplianceSettings",
  summary: "The organization's screening thresholds",
  description: `${CALLERS} The values \`POST /api/v1/compliance-check\` applies, whether they are the defaults, and the defaults.`,
  responses: { 200: json(ComplianceSettingsSchema, "The thresholds in force.") },
});

export const updateComplianceSettings = settingsRoute({
  ...common,
  method: "patch",
  path: "/api/settings/compliance",
  operationId: "updateComplianceSettings",
  summary: "Change the organization's screening thresholds",
  description: `${CALLERS} Fields left out keep their value in force. Ranges follow docs/domain/screening.md#tuning; \`hold_score\` must be at least \`flag_score\`. Each change is audited like a store's; checks apply it within 60 seconds.`,
  body: true,
  request: { body: { required: true, content: { "application/json": { schema: ComplianceSettingsPatchSchema } } } },
  responses: {
    200: json(ComplianceSettingsSchema, "The thresholds after the change."),
    422: documentedError(
      "A value out of its range, `hold_score` below `flag_score` (`details[].code` `hold_below_flag`), or an undeclared field (`validation_error`).",
    ),
  },
});

export const listSettingsAudit = settingsRoute({
  ...common,
  method: "get",
  path: "/api/settings/audit",
  operationId: "listSettingsAudit",
  summary: "Every settings change, newest first",
  description: `${CALLERS} One entry per field changed: who, when, the value before and after. Pages of \`limit\` (default 50, at most ${AUDIT_PAGE_MAX}); while \`has_more\`, pass \`next_cursor\` as \`cursor\` for the next, older page.`,
  request: {
    query: z.object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(AUDIT_PAGE_MAX)
        .default(50)
        .openapi({ description: `1 to ${AUDIT_PAGE_MAX}, default 50.`, example: 20 }),
      cursor: z.string().min(1).max(500).optional().openapi({ description: "`next_cursor` of the previous page, unchanged." }),
    }),
  },
  responses: {
    200: json(SettingsAuditListSchema, "One page of the log."),
    422: documentedError("`limit` out of range, or a `cursor` this list did not make (`validation_error`, `invalid_cursor` or `cursor_mismatch`)."),
  },
});

const OPERATOR_CALLER =
  "The operator's copy of the organization's own settings route: `Authorization: Bearer <operator token>`, for the organization in the path; changes are audited as `operator:<token id>`.";

/**
 * A settings route for the operator (docs/settings.md#the-operator): the same handler under
 * /api/operator/organizations/{org_id}/settings/…, with the operator token instead of the
 * organization's staff session or broker token.
 */
export function forOperator(settings: RouteConfig) {
  const declaration = declarations.get(settings);
  if (!declaration) throw new Error(`forOperator: ${settings.path} is not a settings route`);
  // The operator's 404 also covers the organization in the path.
  const { 404: _storeNotFound, ...responses } = declaration.responses;
  const params = (declaration.request?.params as z.ZodObject | undefined) ?? z.object({});
  return route({
    ...declaration,
    tags: ["Operator"],
    caller: "operator-for-org",
    operationId: `operator${declaration.operationId?.charAt(0).toUpperCase()}${declaration.operationId?.slice(1)}`,
    description: declaration.description?.replace(CALLERS, OPERATOR_CALLER),
    path: declaration.path.replace("/api/settings/", "/api/operator/organizations/{org_id}/settings/"),
    request: {
      ...declaration.request,
      params: params.extend({
        org_id: z
          .string()
          .min(1)
          .max(100)
          .openapi({ param: { name: "org_id", in: "path" }, example: "org_summit" }),
      }),
    },
    responses,
  });
}
