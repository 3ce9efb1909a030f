import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BROKER_TOKEN_PREFIX, isWellFormedApiKey, LEGACY_TOKEN_PREFIX, OPERATOR_TOKEN_PREFIX } from "../../src/credentials/tokens";
import { REPO_ROOT } from "./repo-root";

/**
 * 8787 as the README says; `npm run dev -- --port 8800` (or DEV_PORT=8800, which `npm run test:readme`
 * sets to run a second server beside a developer's) serves elsewhere. Any other option, or a port
 * that is not one, stops the command with a message rather than being ignored.
 */
export function devPort(args = process.argv.slice(2), env: Record<string, string | undefined> = process.env): number {
  const { values } = parseArgs({ args, options: { port: { type: "string" } }, strict: true, allowPositionals: false });
  const given = values.port ?? env.DEV_PORT ?? "8787";
  const port = Number(given);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`--port must be a TCP port number (1-65535), not "${given}"`);
  return port;
}

const DEV_VARS = path.join(REPO_ROOT, ".dev.vars");
const DEV_VARS_EXAMPLE = path.join(REPO_ROOT, ".dev.vars.example");

export interface DemoOrgSecrets {
  apiKey: string;
  brokerToken: string;
  staffEmail: string;
  staffPassword: string;
}

export interface DemoSecrets {
  passwordPepper: string;
  /** The local operator token (/api/operator). */
  operatorToken: string;
  summit: DemoOrgSecrets & { legacyToken: string };
  lakeside: DemoOrgSecrets;
}

/**
 * A fresh clone has no .dev.vars; the committed example holds working local-only values, with the
 * staff origin moved to the port this server runs on. An existing .dev.vars gains the variables
 * the example added since it was made (its own values are never changed), so an older checkout
 * keeps working after a pull; if its staff origins miss this port, that is said.
 */
export function ensureDevVars(port: number): void {
  if (!existsSync(DEV_VARS)) {
    writeFileSync(DEV_VARS, devVarsForPort(readFileSync(DEV_VARS_EXAMPLE, "utf8"), port));
    console.log("Created .dev.vars from .dev.vars.example.");
    return;
  }
  const existing = readFileSync(DEV_VARS, "utf8");
  const added = missingDevVarLines(existing, readFileSync(DEV_VARS_EXAMPLE, "utf8"));
  if (added.length > 0) {
    appendFileSync(DEV_VARS, `${existing.endsWith("\n") || existing === "" ? "" : "\n"}# Added from .dev.vars.example\n${added.join("\n")}\n`);
    console.log(`Added to .dev.vars from .dev.vars.example: ${added.map((line) => line.split("=")[0].trim()).join(", ")}.`);
  }
  const origins = parseDevVars(readFileSync(DEV_VARS, "utf8")).STAFF_ALLOWED_ORIGINS ?? "";
  if (!origins.split(",").some((origin) => origin.trim() === `http://localhost:${port}`)) {
    console.warn(`.dev.vars: STAFF_ALLOWED_ORIGINS does not list http://localhost:${port}, so staff logins from this server's pages are refused.`);
  }
}

/** The example's .dev.vars with its own local origin (the example's port) moved to `port`. */
export function devVarsForPort(example: string, port: number): string {
  return example.replace(/^(STAFF_ALLOWED_ORIGINS\s*=.*)$/m, (line) => line.replace(/http:\/\/localhost:\d+/, `http://localhost:${port}`));
}

/** The example's variable lines whose names the current .dev.vars does not define. */
export function missingDevVarLines(current: string, example: string): string[] {
  const defined = parseDevVars(current);
  return example.split(/\r?\n/).filter((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    return name !== undefined && !(name in defined);
  });
}

/** The part of the dotenv format .dev.vars uses: `KEY = "value"`, `KEY=value`, `# comments`. */
function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const [, name, raw] = match;
    const quoted = /^(["'])(.*)\1$/.exec(raw);
    vars[name] = quoted ? quoted[2] : raw.replace(/\s+#.*$/, "");
  }
  return vars;
}

/** Fails with the names of what is missing or malformed, so a hand-edited .dev.vars is easy to fix. */
export function readDemoSecrets(): DemoSecrets {
  const vars = parseDevVars(readFileSync(DEV_VARS, "utf8"));
  const problems: string[] = [];
  const read = (name: string, check?: (value: string) => boolean, expectation?: string) => {
    const value = vars[name] ?? "";
    if (!value) problems.push(`${name} is missing`);
    else if (check && !check(value)) problems.push(`${name} must be ${expectation}`);
    return value;
  };
  const apiKey = (name: string) => read(name, isWellFormedApiKey, "a well-formed lak_ key (checksum included)");
  const brokerToken = (name: string) => read(name, (v) => v.startsWith(BROKER_TOKEN_PREFIX), `a ${BROKER_TOKEN_PREFIX} token`);

  const secrets: DemoSecrets = {
    passwordPepper: read("PASSWORD_PEPPER"),
    operatorToken: read("DEV_OPERATOR_TOKEN", (v) => v.startsWith(OPERATOR_TOKEN_PREFIX), `a ${OPERATOR_TOKEN_PREFIX} token`),
    summit: {
      apiKey: apiKey("DEMO_ORG1_API_KEY"),
      brokerToken: brokerToken("DEMO_ORG1_BROKER_TOKEN"),
      staffEmail: read("DEMO_ORG1_STAFF_EMAIL"),
      staffPassword: read("DEMO_ORG1_STAFF_PASSWORD"),
      legacyToken: read("DEMO_ORG1_LEGACY_TOKEN", (v) => v.startsWith(LEGACY_TOKEN_PREFIX), `a ${LEGACY_TOKEN_PREFIX} token`),
    },
    lakeside: {
      apiKey: apiKey("DEMO_ORG2_API_KEY"),
      brokerToken: brokerToken("DEMO_ORG2_BROKER_TOKEN"),
      staffEmail: read("DEMO_ORG2_STAFF_EMAIL"),
      staffPassword: read("DEMO_ORG2_STAFF_PASSWORD"),
    },
  };
  if (problems.length > 0) throw new Error(`.dev.vars: ${problems.join("; ")}. Compare it with .dev.vars.example.`);
  return secrets;
}
