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

/** base64 of exactly 32 bytes: an AES-256-GCM key. */
const aes256KeyBase64 = z.string().refine((value) => {
  try {
    return atob(value).length === 32;
  } catch {
    return false;
  }
}, "must be base64 of 32 random bytes (openssl rand -base64 32)");

const ConfigSchema = z.object({
  PASSWORD_PEPPER: z.string().min(16, "must be a random string of at least 16 characters"),
  STAFF_ALLOWED_ORIGINS: z
    .string()
    .transform((list) => list.split(",").map((item) => item.trim()))
    .pipe(z.array(origin).min(1)),
  WEBHOOK_SECRETS_KEY: aes256KeyBase64,
  /** Development only: lets webhooks point at http://localhost and http://127.0.0.1. */
  WEBHOOK_ALLOW_LOCALHOST: z.enum(["true", "false"]).optional(),
});

export interface Config {
  passwordPepper: string;
  staffAllowedOrigins: readonly string[];
  /** Encrypts webhook signing secrets at rest. */
  webhookSecretsKey: string;
  webhookAllowLocalhost: boolean;
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
    webhookSecretsKey: parsed.data.WEBHOOK_SECRETS_KEY,
    webhookAllowLocalhost: parsed.data.WEBHOOK_ALLOW_LOCALHOST === "true",
  };
  checked.set(env, config);
  return config;
}
