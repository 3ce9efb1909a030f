/**
 * `npm run test:readme`: every `curl` line of the README's ```sh blocks, as written, against
 * `npm run dev` — started in a temporary copy of this working tree (its files as they are now, the
 * same node_modules), so it migrates and seeds a fresh database and never touches the developer's
 * `.wrangler`, `.dev.vars` or `demo-credentials.json`.
 *
 * It runs on a free port rather than 8787 (a developer's server may be there): `localhost:8787`
 * is rewritten to that port in each command, and the copy's `.dev.vars` (from `.dev.vars.example`)
 * allows that origin for staff writes. The variable lines of the blocks (`KEY=…`) are kept for the
 * commands; one that captures an answer (`KEY_ID=$(curl … | jq -r .id)`) runs once, in its place
 * in the README, and its value is kept. Lines with a placeholder (`<key id>`) and lines that are not
 * `curl` are skipped and listed. A line fails on a refused connection, a 5xx, or a 4xx unless it ends with `# → <status>`,
 * which must then be the status.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  createWriteStream,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./lib/repo-root";
import { stopWorker } from "./lib/worker-process";

const README_PORT = "localhost:8787";
const EXPECTED_STATUS = /#\s*→\s*(\d{3})\s*$/;
const PLACEHOLDER = /<[^<>\s][^<>]*>/;

interface ReadmeLine {
  command: string;
  kind: "variable" | "curl" | "placeholder" | "other";
  expectedStatus?: number;
}

/** The logical lines (continuations joined) of every ```sh block, classified. */
function readmeCommands(markdown: string): ReadmeLine[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const lines = blocks.flatMap((block) => block.replace(/\\\n\s*/g, "").split("\n"));
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((command): ReadmeLine => {
      const expected = EXPECTED_STATUS.exec(command)?.[1];
      const kind = /^[A-Za-z_][A-Za-z0-9_]*=/.test(command)
        ? "variable"
        : !command.startsWith("curl ")
          ? "other"
          : PLACEHOLDER.test(command)
            ? "placeholder"
            : "curl";
      return { command, kind, ...(expected ? { expectedStatus: Number(expected) } : {}) };
    });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** The working tree's files (tracked and new, not ignored) in a temporary directory, with the same node_modules. */
function copyOfWorkingTree(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "dealer-intel-readme-"));
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0")) {
    if (file === "" || file === "node_modules") continue;
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    try {
      // A linked directory (a worktree's node_modules or client build linked from another checkout) stays a link.
      if (lstatSync(path.join(REPO_ROOT, file)).isSymbolicLink()) symlinkSync(realpathSync(path.join(REPO_ROOT, file)), path.join(dir, file));
      else copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
    } catch (error) {
      // A tracked file deleted in the working tree is not part of it.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  symlinkSync(realpathSync(path.join(REPO_ROOT, "node_modules")), path.join(dir, "node_modules"));
  return dir;
}

/** Runs one README command with bash, curl wrapped to write the body to a file and print the status. */
function runCurl(command: string, variables: string[], cwd: string): { status: number; exitCode: number; body: string; stderr: string } {
  const bodyFile = path.join(cwd, ".readme-check-body");
  writeFileSync(bodyFile, "");
  const script = [...variables, `curl() { command curl -sS -o "$README_CHECK_BODY" -w '%{http_code}' --max-time 30 "$@"; }`, command].join("\n");
  const result = spawnSync("bash", ["-c", script], { cwd, encoding: "utf8", env: { ...process.env, README_CHECK_BODY: bodyFile } });
  return {
    status: Number(result.stdout.trim().slice(-3)) || 0,
    exitCode: result.status ?? 1,
    body: readFileSync(bodyFile, "utf8"),
    stderr: result.stderr,
  };
}

/**
 * A variable line as the later commands need it: a plain assignment as written; one that captures
 * an answer (`$(…)`) run once, now, after the variables before it, and kept as its value.
 */
function resolveVariable(line: string, variables: string[], cwd: string): string {
  if (!line.includes("$(")) return line;
  const name = line.slice(0, line.indexOf("="));
  const result = spawnSync("bash", ["-c", [...variables, line, `printf '%s' "$${name}"`].join("\n")], { cwd, encoding: "utf8" });
  const value = result.stdout;
  if (result.status !== 0 || value === "" || value === "null") throw new Error(`README variable line captured nothing: ${line}\n${result.stderr}`);
  return `${name}='${value.replaceAll("'", "'\\''")}'`;
}

/**
 * What a developer sees in the first minute of `npm run dev`: the demo credentials printed last,
 * below wrangler's banner and binding tables, and public figures that already count the demo
 * organizations (npm run dev makes one call with each demo key once the server answers).
 */
async function firstMinuteProblems(output: string, base: string): Promise<string[]> {
  const problems: string[] = [];
  if (output.lastIndexOf("Demo credentials") < output.indexOf("Ready on")) {
    problems.push("npm run dev printed the demo credentials before wrangler's output, where they scroll away");
  }
  // The usage of the first call is written just after its answer (src/http/usage.ts).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const stats = (await (await fetch(`${base}/api/public/stats`)).json()) as { organizations_evaluated: number; active_rooftops: number };
  if (!(stats.organizations_evaluated >= 1 && stats.active_rooftops >= 1)) {
    problems.push(`the public figures are zeros in the first minute of a fresh server: ${JSON.stringify(stats)}`);
  }
  console.log(`${problems.length ? "FAIL" : "ok  "} first minute: credentials printed last; public figures ${JSON.stringify(stats)}`);
  return problems;
}

/** Waits until the server has printed `text` (or fails when it exits or takes over two minutes). */
async function waitForOutput(server: ChildProcess, output: () => string, text: string): Promise<void> {
  for (const deadline = Date.now() + 120_000; !output().includes(text); ) {
    if (server.exitCode !== null) throw new Error(`npm run dev exited (code ${server.exitCode}) before printing "${text}"`);
    if (Date.now() > deadline) throw new Error(`npm run dev did not print "${text}" within two minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main() {
  const started = performance.now();
  const lines = readmeCommands(readFileSync(path.join(REPO_ROOT, "README.md"), "utf8"));
  const port = await freePort();
  const local = (command: string) => command.replaceAll(README_PORT, `localhost:${port}`);
  const dir = copyOfWorkingTree();
  // npm run dev makes the copy's .dev.vars, its staff origin on this port (scripts/lib/dev-vars.ts).
  rmSync(path.join(dir, ".dev.vars"), { force: true });
  const log = path.join(dir, "npm-run-dev.log");
  const logStream = createWriteStream(log);
  console.log(`npm run dev in ${dir} on :${port} (the commands' ${README_PORT} is rewritten to localhost:${port})`);

  let server: ChildProcess | undefined;
  const failures: string[] = [];
  try {
    server = spawn("npm", ["run", "dev"], {
      cwd: dir,
      env: { ...process.env, DEV_PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    // Its own process group does not get the terminal's Ctrl-C: stop it and remove the copy here.
    const running = server;
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        void stopWorker(running).finally(() => {
          rmSync(dir, { recursive: true, force: true });
          process.exit(130);
        });
      });
    }
    // Each chunk of its output stamped with the seconds since the start, to show which step is slow.
    const stamp = (chunk: Buffer) => logStream.write(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${chunk}`);
    let output = "";
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      stamp(chunk);
    });
    server.stderr?.on("data", stamp);
    // Not polled: npm run dev's own first calls are to be the server's first requests, as on a developer's machine.
    await waitForOutput(server, () => output, "Demo credentials");
    console.log(`ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);
    failures.push(...(await firstMinuteProblems(output, `http://localhost:${port}`)));

    const variables: string[] = [];
    for (const line of lines) {
      if (line.kind === "variable") variables.push(resolveVariable(local(line.command), variables, dir));
      if (line.kind !== "curl") continue;
      const { status, exitCode, body, stderr } = runCurl(local(line.command), variables, dir);
      const problem =
        status === 0 || exitCode !== 0
          ? `no answer (curl exit ${exitCode}: ${stderr.trim()})`
          : status >= 500
            ? "a 5xx"
            : line.expectedStatus !== undefined
              ? status !== line.expectedStatus
                ? `expected ${line.expectedStatus}`
                : undefined
              : status >= 400
                ? "a 4xx on a line not marked # → 4xx"
                : undefined;
      console.log(`${problem ? "FAIL" : "ok  "} ${status} ${line.command.slice(0, 150)}`);
      if (problem) failures.push(`${line.command}\n    answered ${status}: ${problem}\n    ${body.slice(0, 400)}`);
    }
  } finally {
    await stopWorker(server);
    logStream.end();
    if (failures.length > 0 || process.exitCode) console.log(`\nnpm run dev's output:\n${readFileSync(log, "utf8").slice(-4000)}`);
    rmSync(dir, { recursive: true, force: true });
  }

  const skipped = lines.filter((l) => l.kind === "placeholder");
  const curls = lines.filter((l) => l.kind === "curl");
  console.log(`\n${curls.length} curl lines run in ${((performance.now() - started) / 1000).toFixed(1)} s; not run:`);
  for (const line of skipped) console.log(`  placeholder: ${line.command}`);
  console.log(`  ${lines.filter((l) => l.kind === "other").length} lines that are not curl (npm, npx, openssl…)`);
  if (failures.length > 0) {
    console.error(`\n${failures.length} README line(s) failed:\n${failures.join("\n")}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
