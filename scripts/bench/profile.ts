/**
 * `npm run profile -- <scenario> [--seconds=10] [--connections=50] [--top=25] [--inspector-port=9239] [--in-isolate] [--heap]`
 *
 * A workerd CPU profile of one bench scenario under load: the bench's Worker (scripts/bench/entry.ts)
 * built unminified, served as `npm run bench` serves it with Miniflare's inspector open, seeded the
 * same way; V8's sampling profiler runs over the load (sampled every 100 µs) and the profile is
 * written to .bench/profiles/<scenario>.cpuprofile (open it in Chrome DevTools or speedscope). It
 * prints the functions with the most self time and the modules they belong to (esbuild's unminified
 * output names each module in a `// path` comment), as shares of the busy (non-idle) time, and what
 * each middleware and handler costs per request with the native calls it makes.
 *
 * `--in-isolate` serves the scenario's request over and over inside the isolate (scripts/bench/entry.ts,
 * one call at a time) instead of loading it over HTTP: no socket, no Miniflare entry Worker, no load
 * generator sharing the cores, so the profile holds our code and workerd's Request and Response work
 * alone. It also times the calls without the profiler first: the sampled figures have run up to
 * about twice that, so read them as shares.
 *
 * `--heap` then samples what the same load allocates (V8's sampling heap profiler, every 256 bytes,
 * the garbage collected since included): bytes per request in all and by function. Unlike time,
 * this repeats to within a percent from run to run, so it shows a change of a few hundred bytes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { moduleOfLine } from "./bundle-modules";
import { IN_ISOLATE_PATH } from "./floor-paths";
import { connectInspector } from "./inspector";
import { copyAnswer, load } from "./load";
import { requestInit, type Scenario } from "./scenario";
import { benchScenarios } from "./scenarios";
import { buildForProfile, migrateAndSeed, serve } from "./worker";

const SAMPLING_INTERVAL_US = 100;

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
// Two profiles taken side by side (two checkouts) each need their own inspector port.
const INSPECTOR_PORT = option("inspector-port", 9239);
const scenarioName = args.find((a) => !a.startsWith("--"));
const seconds = option("seconds", 10);
const connections = option("connections", 50);
const top = option("top", 25);
const inIsolate = args.includes("--in-isolate");
const heap = args.includes("--heap");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Sampled µs per profile node. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const selfUs = new Map<number, number>();
  for (const [i, nodeId] of profile.samples.entries()) selfUs.set(nodeId, (selfUs.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0));
  return selfUs;
}

/** A frame's module (or V8's pseudo-frame, or the native API) and its name as the tables print it. */
function frameOf(callFrame: ProfileNode["callFrame"], moduleOf: (line: number) => string): { module: string; name: string } {
  const { functionName, url, lineNumber } = callFrame;
  const module = url.endsWith("entry.js") ? moduleOf(lineNumber) : functionName.startsWith("(") ? functionName : url || "(native)";
  return { module, name: `${functionName || "(anonymous)"}  ${module}${url.endsWith("entry.js") ? `:${lineNumber + 1}` : ""}` };
}

function summarize(profile: CpuProfile, moduleOf: (line: number) => string) {
  const selfUs = selfTimes(profile);
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { functionName } = node.callFrame;
    if (us === 0 || functionName === "(idle)" || functionName === "(program)") continue;
    busy += us;
    const { module, name } = frameOf(node.callFrame, moduleOf);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
  }
  const table = (title: string, rows: Map<string, number>) => {
    console.log(`\n| ${title} | self ms | share of busy |\n|---|---:|---:|`);
    for (const [name, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`| ${name} | ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)}% |`);
    }
  };
  table("function (bundle line)", byFunction);
  table("module", byModule);
  return busy;
}

/**
 * Each function's time per request with everything it calls, native calls included, up to the next
 * middleware: hono's `dispatch` (compose) starts the next layer, so a middleware's row is its own work
 * before and after `await next()`, and a handler's row its whole answer. Rows nest (a handler's row
 * holds the helpers it calls, which have rows of their own); a function that calls itself counts once.
 */
function layerTable(profile: CpuProfile, moduleOf: (line: number) => string, requests: number) {
  const selfUs = selfTimes(profile);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const names = new Map(profile.nodes.map((node) => [node.id, frameOf(node.callFrame, moduleOf).name]));
  const startsLayer = (node: ProfileNode) => node.callFrame.functionName === "dispatch" && names.get(node.id)?.includes(" hono:");
  const totals = new Map<string, number>();
  // Depth first from the root, with the names open above each node within its layer.
  const visit = (id: number, open: Set<string>): number => {
    const node = byId.get(id);
    const name = names.get(id);
    if (!node || name === undefined) return 0;
    const inner = open.has(name) ? open : new Set(open).add(name);
    let us = selfUs.get(id) ?? 0;
    for (const child of node.children ?? []) {
      const childNode = byId.get(child);
      if (childNode && startsLayer(childNode)) visit(child, new Set());
      else us += visit(child, inner);
    }
    // A `dispatch` frame holds every layer's synchronous start: not a cost of its own.
    if (!open.has(name) && !startsLayer(node)) totals.set(name, (totals.get(name) ?? 0) + us);
    return us;
  };
  visit(profile.nodes[0].id, new Set());
  // V8's own frames ((root), (program), (garbage collector)) are not functions of ours.
  const rows = [...totals].filter(([name]) => !name.split("  ")[1]?.startsWith("(")).sort((a, b) => b[1] - a[1]);
  console.log("\n| function with what it calls, up to the next middleware | µs per request |\n|---|---:|");
  for (const [name, us] of rows.slice(0, top)) console.log(`| ${name} | ${(us / requests).toFixed(1)} |`);
}

interface HeapNode {
  callFrame: ProfileNode["callFrame"];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated per request, in all and by the function that allocated them. */
function allocationTable(head: HeapNode, moduleOf: (line: number) => string, requests: number) {
  const byFunction = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode) => {
    total += node.selfSize;
    const { name } = frameOf(node.callFrame, moduleOf);
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(head);
  console.log(`\n| function (allocated) | bytes per request |\n|---|---:|`);
  for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| ${name} | ${(bytes / requests).toFixed(0)} |`);
  }
  console.log(`\nallocated ${(total / requests).toFixed(0)} bytes per request (${requests.toFixed(0)} requests)`);
}

/** Calls the Worker makes for each request of `callInIsolate`: enough that the request's own cost vanishes. */
const CALLS_PER_LOOP = 200;

/** The scenario's request served inside the isolate, CALLS_PER_LOOP calls per request to the Worker, for `seconds`: how many calls, and the wall time per call. */
async function callInIsolate(url: URL, scenario: Scenario, seconds: number): Promise<{ calls: number; usPerCall: number }> {
  const loop = new URL(IN_ISOLATE_PATH, url);
  loop.searchParams.set("path", scenario.path);
  loop.searchParams.set("n", String(CALLS_PER_LOOP));
  if (scenario.manyClients) loop.searchParams.set("many_clients", "1");
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < seconds * 1000) {
    const res = await fetch(loop, requestInit(scenario));
    const text = await res.text();
    if (!res.ok) throw new Error(`${scenario.name} in the isolate: ${text}`);
    calls += Number(text);
  }
  return { calls, usPerCall: ((performance.now() - started) * 1000) / calls };
}

async function main(): Promise<void> {
  if (!scenarioName) throw new Error("usage: npm run profile -- <scenario> [--seconds=10] (scenario names: npm run bench prints them)");
  const bundlePath = buildForProfile();
  const mf = serve({ scriptPath: bundlePath, inspectorPort: INSPECTOR_PORT });
  try {
    const url = await mf.ready;
    const { platform, areas } = await migrateAndSeed(mf);
    const scenario = benchScenarios(platform, areas).find((s) => s.name === scenarioName);
    if (!scenario) throw new Error(`no scenario named ${scenarioName}`);
    const original = benchScenarios(platform, areas).find((s) => s.name === scenario.copiesAnswerOf);
    if (original) await copyAnswer(url, original, scenario);
    const first = await fetch(new URL(scenario.path, url), requestInit(scenario));
    if (!first.ok) throw new Error(`${scenario.name} answered ${first.status}: ${await first.text()}`);
    await first.arrayBuffer();

    /** `seconds` of the scenario's load, in the isolate or over HTTP: how many requests, and what to print of it. */
    const serve = async (forSeconds: number): Promise<{ requests: number; served: string }> => {
      if (inIsolate) {
        const { calls, usPerCall } = await callInIsolate(url, scenario, forSeconds);
        return {
          requests: calls,
          served: `${calls} calls inside the isolate, one at a time: ${usPerCall.toFixed(1)} µs per call of wall time (its Request and the reading of its answer included)`,
        };
      }
      const figures = await load(url, scenario, forSeconds, connections);
      return {
        requests: figures.rps * forSeconds,
        served: `${figures.rps.toFixed(0)} req/s (${connections} connections); workerd processes ${figures.cpu_us ?? "–"} µs per request`,
      };
    };
    await serve(2);
    // What a call costs without the profiler, which can slow the isolate (up to about 2x, 2026-11-27).
    if (inIsolate) console.log(`${scenario.name} without the profiler, ${seconds} s: ${(await serve(seconds)).served}`);

    const send = await connectInspector(INSPECTOR_PORT);
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
    await send("Profiler.start");
    const { requests, served } = await serve(seconds);
    const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };

    const dir = path.resolve(import.meta.dirname, "../../.bench/profiles");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${scenario.name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${scenario.name} under the profiler, ${seconds} s: ${served}; profile: ${file}`);
    const moduleOf = moduleOfLine(readFileSync(bundlePath, "utf8"));
    const busyUs = summarize(profile, moduleOf);
    layerTable(profile, moduleOf, requests);
    console.log(
      `\nbusy ${(busyUs / 1000).toFixed(0)} ms over ${requests.toFixed(0)} requests: ${(busyUs / requests).toFixed(0)} µs of CPU per request` +
        ` (with D1's simulator; load average ${loadavg()[0].toFixed(2)})`,
    );

    if (heap) {
      await send("HeapProfiler.enable");
      await send("HeapProfiler.startSampling", {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      const allocating = await serve(seconds);
      const { profile: sampled } = (await send("HeapProfiler.stopSampling")) as { profile: { head: HeapNode } };
      allocationTable(sampled.head, moduleOf, allocating.requests);
    }
  } finally {
    await mf.dispose();
  }
}

await main();
