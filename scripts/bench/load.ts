import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { clientAddress, requestHeaders, requestInit, type Scenario } from "./scenario";

export interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** CPU the workerd processes spent per answered request (µs), or null where /proc cannot tell. */
  cpu_us: number | null;
}

const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  } catch {
    return null;
  }
})();

/** /proc/<pid>/stat: the command's name, and the fields after it from the 3rd (state) on; null once the process is gone. */
function processStat(pid: string): { command: string; fields: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const end = stat.lastIndexOf(")");
    return { command: stat.slice(stat.indexOf("(") + 1, end), fields: stat.slice(end + 2).split(" ") };
  } catch {
    return null;
  }
}

/** The workerd processes serving the bench: this process's descendants named workerd (Linux only). */
function workerdPids(): string[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const stats = new Map(entries.map((pid) => [pid, processStat(pid)]));
  const descends = (pid: string) => {
    for (let p = stats.get(pid)?.fields[1]; p && p !== "0"; p = stats.get(p)?.fields[1]) if (p === String(process.pid)) return true;
    return false;
  };
  return entries.filter((pid) => stats.get(pid)?.command === "workerd" && descends(pid));
}

/**
 * CPU seconds the workerd processes have used (user + system): per request, the server's share of
 * a scenario's cost without the load generator's. It is no steadier than the rate on a busy
 * machine: both move together when other work slows the cores (BENCHMARKS.md, 2026-11-27 run).
 */
function workerdCpuSeconds(): number | null {
  const pids = workerdPids();
  if (CLOCK_TICKS_PER_SECOND === null || pids.length === 0) return null;
  let ticks = 0;
  for (const pid of pids) {
    const stat = processStat(pid);
    if (!stat) return null;
    // utime and stime: the 14th and 15th fields of the whole line.
    ticks += Number(stat.fields[11]) + Number(stat.fields[12]);
  }
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** `connections` concurrent clients on one scenario for `seconds`; any answer but 2xx fails it. */
export async function load(url: URL, scenario: Scenario, seconds: number, connections: number): Promise<Figures> {
  const cpuBefore = workerdCpuSeconds();
  const result = await autocannon({
    url: new URL(scenario.path, url).href,
    connections,
    duration: seconds,
    ...requestInit(scenario),
    requests: scenario.manyClients ? [{ setupRequest: fromAnotherClient }] : undefined,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(
      `${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts out of ${result.requests.sent}`,
    );
  }
  const cpuAfter = workerdCpuSeconds();
  const cpu_us = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1e6) / result.requests.total);
  return { rps: result.requests.average, p50_ms: result.latency.p50, p99_ms: result.latency.p99, cpu_us };
}

let clientCounter = 0;
function fromAnotherClient(request: autocannon.Request): autocannon.Request {
  return { ...request, headers: { ...request.headers, "CF-Connecting-IP": clientAddress(clientCounter++) } };
}

/**
 * Hands `of`'s real answer (body and headers, less those the runtime sets) to the bare Worker that
 * serves `to`: the answer the load generator receives, which asks for no compression. (fetch asks
 * for gzip by default; Miniflare then compresses JSON, and a copied `Content-Encoding: gzip` made
 * the bare Worker gzip every answer it served: BENCHMARKS.md, "`baseline_answer` gzipped every answer".)
 */
export async function copyAnswer(url: URL, of: Scenario, to: Scenario): Promise<void> {
  const res = await fetch(new URL(of.path, url), { headers: { ...requestHeaders(of), "Accept-Encoding": "identity" } });
  if (!res.ok) throw new Error(`${of.name} answered ${res.status}`);
  if (res.headers.has("content-encoding")) throw new Error(`${of.name} answered compressed; the copy must be the answer autocannon gets`);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !["content-length", "date", "x-request-id"].includes(name)));
  const put = await fetch(new URL(to.path, url), { method: "PUT", body: JSON.stringify({ body: await res.text(), headers }) });
  if (put.status !== 204) throw new Error(`${to.name} did not take the copy of ${of.name}'s answer: ${put.status}`);
}
