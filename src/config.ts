/**
 * The Worker's vars and secrets, checked once per isolate at the first request. A problem is
 * reported by variable name only: values may be secrets.
 *
 * Checked by hand, not by a zod schema: building and running the schema was 19–45 ms of a profiled
 * first call on a fresh isolate (BENCHMARKS.md, "First calls and lazy route areas"), for fifteen
 * strings; without it a first call's workerd CPU fell by a median 8–25 ms on /health and 5–21 ms
 * on a metered read (`npm run bench:latency -- --first-calls=…`, 2026-11-29). Each check returns
 * the value the code reads, or INVALID.
 */
const INVALID = Symbol("invalid");
type Check<T> = (value: unknown) => T | typeof INVALID;

const isOrigin = (value: string) => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

const secret: Check<string> = (value) => (typeof value === "string" && value.length >= 16 ? value : INVALID);

/**
 * Where the sanctions-list refresh downloads (wrangler.toml: OFAC's Sanctions List Service; a test
 * server in tests): an http(s) address, trimmed, as zod's `z.url({ protocol: /^https?$/ })` read it.
 */
const downloadUrl: Check<string> = (value) => {
  if (typeof value !== "string") return INVALID;
  const trimmed = value.trim();
  // The scheme is checked on the text: the URL parser would read "https:/x" as https://x.
  return /^https?:\/\//i.test(trimmed) && URL.canParse(trimmed) ? trimmed.replace(/[\t\n\r]/g, "") : INVALID;
};

/** A comma-separated list of origins such as https://app.example.com. */
const origins: Check<readonly string[]> = (value) => {
  if (typeof value !== "string") return INVALID;
  const list = value.split(",").map((item) => item.trim());
  return list.every(isOrigin) ? list : INVALID;
};

/** An optional API key: absent or empty is none. */
const optionalKey =
  (pattern: RegExp): Check<string | undefined> =>
  (value) =>
    value === undefined || value === "" ? undefined : typeof value === "string" && pattern.test(value) ? value : INVALID;

/** A number (a string var is read as `Number` reads it) within `ok`, or `fallback` when the var is absent. */
const numberOr =
  (fallback: number, ok: (n: number) => boolean): Check<number> =>
  (value) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    return Number.isFinite(n) && ok(n) ? n : INVALID;
  };

/** base64 of exactly 32 bytes: an AES-256-GCM key (openssl rand -base64 32). */
const aes256KeyBase64: Check<string> = (value) => {
  if (typeof value !== "string") return INVALID;
  try {
    return atob(value).length === 32 ? value : INVALID;
  } catch {
    return INVALID;
  }
};

/** An optional "true" or "false" switch: whether it is "true". */
const flag: Check<boolean> = (value) => (value === undefined || value === "false" ? false : value === "true" ? true : INVALID);

/** The vars the Worker reads, each with its check, in the order a problem is reported. */
const VARS = {
  PASSWORD_PEPPER: secret,
  /** Key of the HMAC that stands in for a screened person in the compliance audit trail. */
  COMPLIANCE_HASH_SALT: secret,
  OFAC_SDN_URL: downloadUrl,
  OFAC_ALT_URL: downloadUrl,
  OFAC_COMMENTS_URL: downloadUrl,
  /** SDN.XML of the same publication: its header states OFAC's Publish_Date, the list's version. */
  OFAC_PUBLICATION_URL: downloadUrl,
  STAFF_ALLOWED_ORIGINS: origins,
  // Public data feeds (docs/reports.md): without a key the nightly refresh records a failure and keeps the last data.
  FRED_API_KEY: optionalKey(/^[a-z0-9]{32}$/),
  EIA_API_KEY: optionalKey(/^[A-Za-z0-9]{20,64}$/),
  /** Points the 60-month bank auto rate must move over three readings to count as a lender-environment change (docs/domain/reports.md). */
  LENDER_ENVIRONMENT_CHANGE_PTS: numberOr(0.25, (n) => n > 0 && n <= 5),
  /** Workers AI model for trade photos (used only when an `AI` binding exists; docs/appraisal.md). */
  APPRAISAL_VISION_MODEL: (value: unknown) =>
    value === undefined ? "@cf/meta/llama-4-scout-17b-16e-instruct" : typeof value === "string" && value.length > 0 ? value : INVALID,
  /** The AI call is bounded by 30 s (docs/appraisal.md); tests set a shorter bound. */
  APPRAISAL_VISION_TIMEOUT_MS: numberOr(30_000, (n) => Number.isSafeInteger(n) && n >= 1 && n <= 30_000),
  /** Encrypts webhook signing secrets at rest. */
  WEBHOOK_SECRETS_KEY: aes256KeyBase64,
  /** Development only: lets webhooks point at http://localhost and http://127.0.0.1. */
  WEBHOOK_ALLOW_LOCALHOST: flag,
  /** Development only: screen against a sanctions list past its age limit, with a warning, instead of refusing (docs/domain/screening.md#list-age). */
  DEV_SCREEN_STALE_SANCTIONS_LIST: flag,
} satisfies Record<string, Check<unknown>>;

type Vars = { [Name in keyof typeof VARS]: Exclude<ReturnType<(typeof VARS)[Name]>, typeof INVALID> };

export interface Config {
  passwordPepper: string;
  complianceHashSalt: string;
  ofacUrls: { sdn: string; alt: string; comments: string; publication: string };
  staffAllowedOrigins: readonly string[];
  fredApiKey: string | undefined;
  eiaApiKey: string | undefined;
  lenderEnvironmentChangePts: number;
  appraisalVisionModel: string;
  appraisalVisionTimeoutMs: number;
  webhookSecretsKey: string;
  webhookAllowLocalhost: boolean;
  staleSanctionsListMode: "development" | "production";
}

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
  const vars: Record<string, unknown> = {};
  const bad: string[] = [];
  for (const [name, check] of Object.entries(VARS)) {
    const value = check((env as unknown as Record<string, unknown>)[name]);
    if (value === INVALID) bad.push(name);
    else vars[name] = value;
  }
  if (bad.length > 0) throw new ConfigError(bad);
  const v = vars as Vars;
  const config: Config = {
    passwordPepper: v.PASSWORD_PEPPER,
    complianceHashSalt: v.COMPLIANCE_HASH_SALT,
    ofacUrls: { sdn: v.OFAC_SDN_URL, alt: v.OFAC_ALT_URL, comments: v.OFAC_COMMENTS_URL, publication: v.OFAC_PUBLICATION_URL },
    staffAllowedOrigins: v.STAFF_ALLOWED_ORIGINS,
    fredApiKey: v.FRED_API_KEY,
    eiaApiKey: v.EIA_API_KEY,
    lenderEnvironmentChangePts: v.LENDER_ENVIRONMENT_CHANGE_PTS,
    appraisalVisionModel: v.APPRAISAL_VISION_MODEL,
    appraisalVisionTimeoutMs: v.APPRAISAL_VISION_TIMEOUT_MS,
    webhookSecretsKey: v.WEBHOOK_SECRETS_KEY,
    webhookAllowLocalhost: v.WEBHOOK_ALLOW_LOCALHOST,
    staleSanctionsListMode: v.DEV_SCREEN_STALE_SANCTIONS_LIST ? "development" : "production",
  };
  checked.set(env, config);
  return config;
}
