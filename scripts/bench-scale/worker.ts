/**
 * `wrangler dev` on the benchmark's own state directory and port, with the query log on; every
 * statement it logs is kept, tagged with the phase the bench is in.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { WRANGLER_BIN, wranglerEnv } from "../lib/local-d1";
import { REPO_ROOT } from "../lib/repo-root";
import { stopWorker, waitForWorker } from "../lib/worker-process";
import { type LoggedStatement, parseQueryLog } from "./query-plans";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface BenchWorker {
  url: string;
  /** Statements logged since the start, each tagged with the phase current when it arrived. */
  statements: LoggedStatement[];
  /** Log lines of failed scheduled jobs. */
  jobFailures: string[];
  /** The last lines of wrangler's other output (to explain a failure). */
  outputTail(): string;
  setPhase(phase: string): void;
  stop(): Promise<void>;
}

export async function startWorker(persistTo: string): Promise<BenchWorker> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      WRANGLER_BIN,
      "dev",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      persistTo,
      // The committed local-only values; a developer's .dev.vars is never read.
      "--env-file",
      ".dev.vars.example",
      "--var",
      "QUERY_LOG:1",
      // GET /__scheduled?cron=… runs a cron's jobs (PLATFORM.md §8.3).
      "--test-scheduled",
    ],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: wranglerEnv({ X_LOCAL_OBSERVABILITY: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" }),
    },
  );
  const statements: LoggedStatement[] = [];
  const jobFailures: string[] = [];
  let phase = "startup";
  let tail = "";
  const read = (stream: NodeJS.ReadableStream | null) => {
    if (!stream) return;
    createInterface({ input: stream }).on("line", (line) => {
      const logged = parseQueryLog(line);
      if (logged) statements.push({ ...logged, phase });
      else if (line.includes("scheduled_job_failed")) jobFailures.push(line.slice(0, 600));
      else tail = `${tail}${line}\n`.slice(-4000);
    });
  };
  read(child.stdout);
  read(child.stderr);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForWorker(child, `${url}/health`, 180_000);
  } catch (error) {
    await stopWorker(child);
    throw new Error(`${error instanceof Error ? error.message : error}\nwrangler dev's output:\n${tail}`);
  }
  return {
    url,
    statements,
    jobFailures,
    outputTail: () => tail,
    setPhase: (next) => {
      phase = next;
    },
    stop: () => stopWorker(child),
  };
}
