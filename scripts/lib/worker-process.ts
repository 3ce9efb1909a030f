import type { ChildProcess } from "node:child_process";

/** Polls `url` until it answers 2xx; fails as soon as the process exits, or after `timeoutMs`. */
export async function waitForWorker(worker: ChildProcess, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) throw new Error(`the server exited (code ${worker.exitCode}) before answering ${url}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/**
 * Stops a server spawned with `detached: true`: wrangler runs workerd as its child (and `npm run`
 * adds two more levels), so the whole process group it leads is signalled. Resolves on its exit.
 */
export function stopWorker(worker: ChildProcess | undefined): Promise<void> {
  if (!worker?.pid || worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  process.kill(-worker.pid, "SIGTERM");
  return exited;
}
