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
  /** Workers AI model for trade photos (used only when an `AI` binding exists; docs/appraisal.md). */
  APPRAISAL_VISION_MODEL: z.string().min(1).default("@cf/meta/llama-4-scout-17b-16e-instruct"),
  /** SPEC §7: the AI call is bounded by 30 s; tests set a shorter bound. */
  APPRAISAL_VISION_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(30_000),
});

export interface Config {
  passwordPepper: string;
  staffAllowedOrigins: readonly string[];
  appraisalVisionModel: string;
  appraisalVisionTimeoutMs: number;
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
    appraisalVisionModel: parsed.data.APPRAISAL_VISION_MODEL,
    appraisalVisionTimeoutMs: parsed.data.APPRAISAL_VISION_TIMEOUT_MS,
  };
  checked.set(env, config);
  return config;
}
