/**
 * `npm run profile -- <scenario> [--seconds=10] [--connections=50] [--top=25] [--inspector-port=9239]`
 *
 * A workerd CPU profile of one bench scenario under load: the bench's Worker (scripts/bench/entry.ts)
 * built unminified, served as `npm run bench` serves it with Miniflare's inspector open, seeded the
 * same way; V8's sampling profiler runs over the load (sampled every 100 µs) and the profile is
 * written to .bench/profiles/<scenario>.cpuprofile (open it in Chrome DevTools or speedscope). It
 * prints the functions with the most self time and the modules they belong to (esbuild's unminified
 * output names each module in a `// path` comment), as shares of the busy (non-idle) time.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { connectInspector } from "./inspector";
import { copyAnswer, load, requestHeaders } from "./load";
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

/** The module each line of the unminified bundle belongs to, from esbuild's `// path` comments. */
function moduleOfLine(bundle: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  for (const [i, text] of bundle.split("\n").entries()) {
    // A worktree whose node_modules links elsewhere names them `../../main/node_modules/…`.
    const match = /^\/\/ (?:\.\.\/[^ ]*?)?((?:node_modules|src|scripts)\/\S+)$/.exec(text);
    if (match) starts.push({ line: i, module: match[1].replace(/^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*/, "$1") });
  }
  return (line) => {
    let found = "(bundle preamble)";
    for (const start of starts) {
      if (start.line > line) break;
      found = start.module;
    }
    return found;
  };
}

function summarize(profile: CpuProfile, bundlePath: string) {
  const selfUs = new Map<number, number>();
  for (const [i, nodeId] of profile.samples.entries()) selfUs.set(nodeId, (selfUs.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const moduleOf = moduleOfLine(readFileSync(bundlePath, "utf8"));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (us === 0 || functionName === "(idle)" || functionName === "(program)") continue;
    busy += us;
    const module = url.endsWith("entry.js") ? moduleOf(lineNumber) : functionName.startsWith("(") ? functionName : url || "(native)";
    const name = `${functionName || "(anonymous)"}  ${module}${url.endsWith("entry.js") ? `:${lineNumber + 1}` : ""}`;
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
    const first = await fetch(new URL(scenario.path, url), {
      method: scenario.method ?? "GET",
      headers: requestHeaders(scenario),
      body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
    });
    if (!first.ok) throw new Error(`${scenario.name} answered ${first.status}: ${await first.text()}`);
    await first.arrayBuffer();
    await load(url, scenario, 2, connections);

    const send = await connectInspector(INSPECTOR_PORT);
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
    await send("Profiler.start");
    const figures = await load(url, scenario, seconds, connections);
    const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };

    const dir = path.resolve(import.meta.dirname, "../../.bench/profiles");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${scenario.name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${scenario.name}: ${figures.rps.toFixed(0)} req/s under the profiler (${connections} connections, ${seconds} s); profile: ${file}`);
    const busyUs = summarize(profile, bundlePath);
    const requests = figures.rps * seconds;
    console.log(
      `\nbusy ${(busyUs / 1000).toFixed(0)} ms over ${requests.toFixed(0)} requests: ${(busyUs / requests).toFixed(0)} µs of CPU per request` +
        `; workerd processes ${figures.cpu_us ?? "–"} µs per request (with D1's simulator; load average ${loadavg()[0].toFixed(2)})`,
    );
  } finally {
    await mf.dispose();
  }
}

await main();
