import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { REPO_ROOT } from "./repo-root";

/** The project's own wrangler, run by the Node running this script (Node 24 via `npm run`). */
export const WRANGLER_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");

export function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, WRANGLER_SEND_METRICS: "false", ...extra };
}

/**
 * stdin is closed, so wrangler sees no TTY and takes its default answer instead of asking
 * (`migrations apply` asks for confirmation otherwise): nothing can wait on input in CI.
 */
export function runWrangler(args: string[], options: { captureStdout?: boolean } = {}): string {
  const result = spawnSync(process.execPath, [WRANGLER_BIN, ...args], {
    cwd: REPO_ROOT,
    env: wranglerEnv(),
    stdio: ["ignore", options.captureStdout ? "pipe" : "inherit", "inherit"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed (${result.signal ? `signal ${result.signal}` : `exit code ${result.status}`})`);
  }
  return result.stdout ?? "";
}
