import autocannon from "autocannon";
import type { Scenario } from "./scenario";

export interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
}

/** `connections` concurrent clients on one scenario for `seconds`; any answer but 2xx fails it. */
export async function load(url: URL, scenario: Scenario, seconds: number, connections: number): Promise<Figures> {
  const result = await autocannon({
    url: new URL(scenario.path, url).href,
    connections,
    duration: seconds,
    method: scenario.method ?? "GET",
    headers: requestHeaders(scenario),
    body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
    requests: scenario.manyClients ? [{ setupRequest: fromAnotherClient }] : undefined,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(
      `${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts out of ${result.requests.sent}`,
    );
  }
  return { rps: result.requests.average, p50_ms: result.latency.p50, p99_ms: result.latency.p99 };
}

/** Visitors of many sites, each well under the public per-client limit (120 a minute). */
const CLIENT_ADDRESSES = 20_000;
let clientCounter = 0;
function fromAnotherClient(request: autocannon.Request): autocannon.Request {
  const n = clientCounter++ % CLIENT_ADDRESSES;
  return { ...request, headers: { ...request.headers, "CF-Connecting-IP": `10.${(n >> 8) & 255}.${n & 255}.1` } };
}

export function requestHeaders(scenario: Scenario): Record<string, string> {
  return { ...(scenario.body === undefined ? {} : { "Content-Type": "application/json" }), ...scenario.headers };
}

/** Hands `of`'s real answer (body and headers, less those the runtime sets) to the bare Worker that serves `to`. */
export async function copyAnswer(url: URL, of: Scenario, to: Scenario): Promise<void> {
  const res = await fetch(new URL(of.path, url), { headers: requestHeaders(of) });
  if (!res.ok) throw new Error(`${of.name} answered ${res.status}`);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !["content-length", "date", "x-request-id"].includes(name)));
  const put = await fetch(new URL(to.path, url), { method: "PUT", body: JSON.stringify({ body: await res.text(), headers }) });
  if (put.status !== 204) throw new Error(`${to.name} did not take the copy of ${of.name}'s answer: ${put.status}`);
}
