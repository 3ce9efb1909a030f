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

const ConfigSchema = z.object({
  PASSWORD_PEPPER: z.string().min(16, "must be a random string of at least 16 characters"),
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
  /** Points the 60-month bank auto rate must move over three readings to count as a lender-environment change (DOMAIN §8.4). */
  LENDER_ENVIRONMENT_CHANGE_PTS: z.coerce.number().positive().max(5).default(0.25),
});

export interface Config {
  passwordPepper: string;
  staffAllowedOrigins: readonly string[];
  fredApiKey: string | undefined;
  eiaApiKey: string | undefined;
  lenderEnvironmentChangePts: number;
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
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError([...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))]);
  }
  const config = {
    passwordPepper: parsed.data.PASSWORD_PEPPER,
    staffAllowedOrigins: parsed.data.STAFF_ALLOWED_ORIGINS,
    fredApiKey: parsed.data.FRED_API_KEY,
    eiaApiKey: parsed.data.EIA_API_KEY,
    lenderEnvironmentChangePts: parsed.data.LENDER_ENVIRONMENT_CHANGE_PTS,
  };
  checked.set(env, config);
  return config;
}
