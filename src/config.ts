import { z } from "zod";

/**
 * The Worker's vars and secrets, checked once per isolate at the first request. A problem is
 * reported by variable name only: values may be secrets.
 */
const origin = z.string().refine((value) => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}, "must be an origin such as https://app.example.com");

const secret = z.string().min(16, "must be a random string of at least 16 characters");

/** Where the sanctions-list refresh downloads (wrangler.toml: OFAC's Sanctions List Service; a test server in tests). */
const downloadUrl = z.url({ protocol: /^https?$/ });
/** base64 of exactly 32 bytes: an AES-256-GCM key. */
const aes256KeyBase64 = z.string().refine((value) => {
  try {
    return atob(value).length === 32;
  } catch {
    return false;
  }
}, "must be base64 of 32 random bytes (openssl rand -base64 32)");

/** The vars as the Worker receives them, and (after the transform) as the code reads them: one declaration of both. */
const ConfigSchema = z
  .object({
    PASSWORD_PEPPER: secret,
    /** Key of the HMAC that stands in for a screened person in the compliance audit trail. */
    COMPLIANCE_HASH_SALT: secret,
    OFAC_SDN_URL: downloadUrl,
    OFAC_ALT_URL: downloadUrl,
    OFAC_COMMENTS_URL: downloadUrl,
    /** SDN.XML of the same publication: its header states OFAC's Publish_Date, the list's version. */
    OFAC_PUBLICATION_URL: downloadUrl,
    STAFF_ALLOWED_ORIGINS: z
      .string()
      .transform((list) => list.split(",").map((item) => item.trim()))
      .pipe(z.array(origin).min(1)),
    // Public data feeds (docs/reports.md): without a key the nightly refresh records a failure and keeps the last data.
    FRED_API_KEY: z
      .string()
      .regex(/^[a-z0-9]{32}$/, "must be a 32-character FRED API key")
      .optional()
      .or(z.literal("").transform(() => undefined)),
    EIA_API_KEY: z
      .string()
      .regex(/^[A-Za-z0-9]{20,64}$/, "must be an EIA API key")
      .optional()
      .or(z.literal("").transform(() => undefined)),
    /** Points the 60-month bank auto rate must move over three readings to count as a lender-environment change (docs/domain/reports.md). */
    LENDER_ENVIRONMENT_CHANGE_PTS: z.coerce.number().positive().max(5).default(0.25),
    /** Workers AI model for trade photos (used only when an `AI` binding exists; docs/appraisal.md). */
    APPRAISAL_VISION_MODEL: z.string().min(1).default("@cf/meta/llama-4-scout-17b-16e-instruct"),
    /** The AI call is bounded by 30 s (docs/appraisal.md); tests set a shorter bound. */
    APPRAISAL_VISION_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(30_000),
    /** Encrypts webhook signing secrets at rest. */
    WEBHOOK_SECRETS_KEY: aes256KeyBase64,
    /** Development only: lets webhooks point at http://localhost and http://127.0.0.1. */
    WEBHOOK_ALLOW_LOCALHOST: z.enum(["true", "false"]).optional(),
    /** Development only: screen against a sanctions list past its age limit, with a warning, instead of refusing (docs/domain/screening.md#list-age). */
    DEV_SCREEN_STALE_SANCTIONS_LIST: z.enum(["true", "false"]).optional(),
  })
  .transform((vars) => ({
    passwordPepper: vars.PASSWORD_PEPPER,
    complianceHashSalt: vars.COMPLIANCE_HASH_SALT,
    ofacUrls: { sdn: vars.OFAC_SDN_URL, alt: vars.OFAC_ALT_URL, comments: vars.OFAC_COMMENTS_URL, publication: vars.OFAC_PUBLICATION_URL },
    staffAllowedOrigins: vars.STAFF_ALLOWED_ORIGINS as readonly string[],
    fredApiKey: vars.FRED_API_KEY,
    eiaApiKey: vars.EIA_API_KEY,
    lenderEnvironmentChangePts: vars.LENDER_ENVIRONMENT_CHANGE_PTS,
    appraisalVisionModel: vars.APPRAISAL_VISION_MODEL,
    appraisalVisionTimeoutMs: vars.APPRAISAL_VISION_TIMEOUT_MS,
    webhookSecretsKey: vars.WEBHOOK_SECRETS_KEY,
    webhookAllowLocalhost: vars.WEBHOOK_ALLOW_LOCALHOST === "true",
    staleSanctionsListMode: vars.DEV_SCREEN_STALE_SANCTIONS_LIST === "true" ? ("development" as const) : ("production" as const),
  }));

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly variables: string[]) {
    super(`Invalid or missing Worker configuration: ${variables.join(", ")}`);
    this.name = "ConfigError";
  }
}

const checked = new WeakMap<object, Config>();

/** The parsed configuration of this environment; throws a ConfigError naming the bad variables. */
export function loadConfig(env: Env): Config {
  const hit = checked.get(env);
  if (hit) return hit;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError([...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))]);
  }
  const config = parsed.data;
  checked.set(env, config);
  return config;
}
