import { z } from "@hono/zod-openapi";
import { TRIGGERED_RULES } from "../../engines/screening/decision";
import { MATCH_RULES, type MatchRule } from "../../engines/screening/match-rules";
import { documentedError, notFoundResponse, validationErrorResponse } from "../../http/errors";
import { v1Route } from "../../http/v1-chain";

const personName = (example: string) => z.string().trim().min(1).max(100).openapi({ example });

export const ComplianceCheckRequestSchema = z
  .strictObject({
    first_name: personName("Maria"),
    last_name: personName("Hernandez"),
    dob: z.iso
      .date({ error: "must be a real calendar date, YYYY-MM-DD" })
      .openapi({ description: "Date of birth, YYYY-MM-DD.", example: "1984-06-12" }),
    ssn_last4: z
      .string()
      .regex(/^\d{4}$/, "must be exactly four digits")
      .optional()
      .openapi({ description: "Last four digits of the SSN; never stored.", example: "4821" }),
    address_zip: z
      .string()
      .regex(/^\d{5}$/, "must be five digits")
      .optional()
      .openapi({ description: "Five-digit US ZIP of the customer's address.", example: "78704" }),
  })
  .openapi("ComplianceCheckRequest");

const FlagSchema = z
  .object({
    code: z.string().openapi({ example: "zip_not_found" }),
    field: z.string().openapi({ description: "The request field concerned (`request` for the request as a whole).", example: "address_zip" }),
    message: z.string().openapi({ example: "The ZIP code does not exist." }),
  })
  .openapi("ComplianceFlag");

const triggeredRule = z.enum(TRIGGERED_RULES).nullable().openapi({
  description:
    "Why the result is not `pass`: `ofac_sdn_match` (hold), `ofac_list_unavailable` (no list: the check fails closed; `ofac_list_stale` only on checks recorded before stale lists were refused with 503), `ofac_potential_match`, `identity_red_flag`. null on `pass`.",
});

const SanctionsMatchSchema = z
  .object({
    ent_num: z.int().openapi({ description: "The SDN entry's number (OFAC `ent_num`)." }),
    sdn_name: z.string().openapi({ description: "The entry's primary name as OFAC lists it." }),
    matched_name: z.string().openapi({ description: "The listed name (primary or alias) that scored highest." }),
    matched_as: z.enum(["primary", "aka", "fka", "nka"]),
    programs: z.array(z.string()),
    score: z.number().openapi({ description: "0–100: the name score (the date of birth is weighed by the rule, not the score)." }),
    name_score: z.number().openapi({ description: "The higher of the two techniques below." }),
    full_name_score: z.number().openapi({ description: "Technique A: Jaro-Winkler of the whole names (discounted for a difference in length)." }),
    name_parts_score: z
      .number()
      .openapi({ description: "Technique B: each entered name part against the listed parts, by Jaro-Winkler and Soundex." }),
    dob: z.enum(["match", "near", "conflict", "not_listed"]).openapi({ description: "The entered date of birth against the entry's." }),
    outcome: z.enum(["hold", "flag", "pass"]).openapi({ description: "What this listed name means for the deal; `pass` when it is ruled out." }),
    rule: z.enum(Object.keys(MATCH_RULES) as [MatchRule, ...MatchRule[]]).openapi({
      description: "The rule that decides it: a heading of docs/domain/screening.md (e.g. `given-names-only`).",
      example: "exact-full-name",
    }),
    reason: z.string().openapi({ description: "The rule's sentence from docs/domain/screening.md." }),
  })
  .openapi("ComplianceSanctionsMatch");

export const ComplianceCheckResultSchema = z
  .object({
    check_id: z.string().openapi({ example: "chk_7mQ2xV9pL4sT1wZ8" }),
    result: z.enum(["pass", "flag", "hold"]).openapi({ description: "`hold`: do not proceed with the deal (docs/compliance.md)." }),
    ofac_match: z.boolean().openapi({ description: "True on a hold." }),
    triggered_rule: triggeredRule,
    red_flags: z.array(FlagSchema).openapi({ description: "Identity-theft red flags (FTC Red Flags Rule); any one flags the check." }),
    safeguards_flags: z
      .array(FlagSchema)
      .openapi({ description: "How the request handled customer information (FTC Safeguards Rule); reported, they do not change the result." }),
    checked_at: z.iso.datetime(),
    screening: z.object({
      score: z.number().openapi({
        description: "The name score of the listed individual that decides the screening, 0–100 (0 when none comes close or no list is loaded).",
      }),
      hold_threshold: z.number(),
      flag_threshold: z.number(),
      list: z
        .object({
          version: z.string().openapi({
            description:
              "The date OFAC gave the list (its Publish_Date), never the day it was copied; with `version_basis: upper_bound`, the latest date a copy that kept no date can bear.",
            example: "2026-11-25",
          }),
          version_basis: z.enum(["published", "upper_bound"]).openapi({
            description: "`published`: OFAC's own date. `upper_bound`: the copy kept none; its data shows it is no newer than `version`.",
          }),
          loaded_at: z.iso.datetime().openapi({ description: "When the list was last loaded (informational; the age counts from `version`)." }),
          age_days: z.int().openapi({ description: "Whole days from `version` to today (UTC)." }),
          max_age_days: z.int(),
          stale: z.boolean().openapi({ description: "`age_days` is past `max_age_days`: only in development is such a list screened at all." }),
          warning: z.string().optional().openapi({
            description: "Development only, on a stale list: how old it is and why a production service refuses it.",
          }),
        })
        .nullable()
        .openapi({ description: "null when no list is loaded (the result is then never `pass`)." }),
      match: SanctionsMatchSchema.nullable().openapi({
        description:
          "The listed name that decides the screening, when it holds or flags, or scores at or above the flag threshold and was ruled out (its rule says why).",
      }),
    }),
  })
  .openapi("ComplianceCheckResult", {
    example: {
      check_id: "chk_7mQ2xV9pL4sT1wZ8",
      result: "pass",
      ofac_match: false,
      triggered_rule: null,
      red_flags: [],
      safeguards_flags: [],
      checked_at: "2026-11-26T15:04:05.000Z",
      screening: {
        score: 71.3,
        hold_threshold: 95,
        flag_threshold: 85,
        list: {
          version: "2026-11-25",
          version_basis: "published",
          loaded_at: "2026-11-26T04:30:12.000Z",
          age_days: 1,
          max_age_days: 45,
          stale: false,
        },
        match: null,
      },
    },
  });

const ComplianceCheckRecordSchema = z
  .object({
    check_id: z.string(),
    result: z.enum(["pass", "flag", "hold"]),
    ofac_match: z.boolean(),
    triggered_rule: triggeredRule,
    score: z.number(),
    hold_threshold: z.number(),
    flag_threshold: z.number(),
    max_list_age_days: z.int(),
    list_version: z.string().nullable(),
    list_loaded_at: z.iso.datetime().nullable(),
    matched_ent_num: z.int().nullable(),
    red_flags: z.array(z.string()).openapi({ description: "Codes of the red flags raised." }),
    safeguards_flags: z.array(z.string()).openapi({ description: "Codes of the safeguards flags raised." }),
    key_id: z.string().openapi({ description: "The API key that ran the check." }),
    checked_at: z.iso.datetime(),
  })
  .openapi("ComplianceCheckRecord", {
    example: {
      check_id: "chk_7mQ2xV9pL4sT1wZ8",
      result: "hold",
      ofac_match: true,
      triggered_rule: "ofac_sdn_match",
      score: 100,
      hold_threshold: 95,
      flag_threshold: 85,
      max_list_age_days: 45,
      list_version: "2026-11-26",
      list_loaded_at: "2026-11-26T04:30:12.000Z",
      matched_ent_num: 23343,
      red_flags: [],
      safeguards_flags: [],
      key_id: "key_4kQ9bX2mN7pR1sT8",
      checked_at: "2026-11-26T15:04:05.000Z",
    },
  });

export const createComplianceCheck = v1Route({
  method: "post",
  path: "/api/v1/compliance-check",
  operationId: "createComplianceCheck",
  tags: ["Compliance"],
  summary: "Screen a customer before deal submission (OFAC SDN list, identity red flags, safeguards)",
  description:
    "Scores the name against the individuals of OFAC's SDN list (primary names and strong aliases) as OFAC's Sanctions List Search does, checks the FTC Red Flags the fields allow, and records the check in the organization's audit trail with the person only as keyed hashes. Fails closed: with no list loaded the result is never `pass`, and a list older than the organization's limit (from OFAC's publication date) is refused with 503 `sanctions_list_stale`. A `hold` raises `compliance.hold_triggered`. The service surfaces; the dealer decides.",
  endpoint: "compliance-check",
  body: true,
  idempotent: true,
  // Its reads are the list, the ZIP set, the nicknames and the settings, each cached per isolate for
  // up to 60 s or more anyway; its one write (the audit row, which reads the history in the same
  // statement) goes to the primary whatever the session (docs/consistency.md).
  reads: "nearest-replica",
  request: {
    body: {
      content: {
        "application/json": {
          schema: ComplianceCheckRequestSchema,
          example: { first_name: "Maria", last_name: "Hernandez", dob: "1984-06-12", ssn_last4: "4821", address_zip: "78704" },
        },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: "The check's result. Sent with `Cache-Control: no-store`.",
      content: { "application/json": { schema: ComplianceCheckResultSchema } },
    },
    422: documentedError(
      `${validationErrorResponse[422].description} A name written in another script (Cyrillic, Arabic, Hangul…) is refused too, \`details[].code\` \`name_not_latin_script\`: enter it as on the customer's ID, in Latin letters (docs/domain/screening.md#names-in-other-scripts).`,
    ),
    503: documentedError(
      "`sanctions_list_stale`: the sanctions list in force is older than the organization's limit (45 days by default, counted from OFAC's publication date), so no customer can be screened as clear; nothing is recorded. A listed name that holds is still answered (200, `hold`).",
    ),
  },
});

export const getComplianceCheck = v1Route({
  method: "get",
  path: "/api/v1/compliance-checks/{check_id}",
  operationId: "getComplianceCheck",
  tags: ["Compliance"],
  summary: "One check from the organization's compliance audit trail",
  description: "What was decided, by which rule, score, thresholds and list version, with which key and when. Holds no personal data.",
  endpoint: "compliance-check",
  reads: "nearest-replica",
  request: {
    params: z.object({
      check_id: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "check_id", in: "path" }, example: "chk_7mQ2xV9pL4sT1wZ8" }),
    }),
  },
  responses: {
    200: {
      description: "The audit record. Sent with `Cache-Control: no-store`.",
      content: { "application/json": { schema: ComplianceCheckRecordSchema } },
    },
    ...notFoundResponse,
  },
});
