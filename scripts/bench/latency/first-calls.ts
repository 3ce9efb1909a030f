/**
 * `npm run bench:latency -- --first-calls=framework_floor,health,metered_v1 [--isolates=10] [--against=<dir>/entry.js] [--profile]`
 *
 * What a fresh isolate's first call computes, with the latency model off (bench:latency's "no
 * model" column). Each scenario is served by `--isolates` fresh isolates of the latency Worker;
 * each one's first call is set against the median of its next ten, in wall time and in workerd's
 * CPU time (every workerd thread's, from /proc: unlike wall time, it does not grow with what other
 * processes on a shared machine are doing, so a gain of a few ms shows on a loaded machine).
 * `--against` serves the same scenarios from a bundle built before a change (`wrangler deploy
 * scripts/bench/latency/entry.ts --dry-run --outdir <dir>` on the old code), its isolates
 * interleaved with this build's, so both see the same load. `--profile` instead takes a CPU profile
 * of one fresh isolate's first call per scenario (built unminified): self time by function and by
 * module, then the inclusive time of the functions on the path (module initializers are named by
 * their file), written to .bench/profiles/first-<scenario>.cpuprofile.
 * `framework_floor` serves the framework's floor (./workers.ts) the same way.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { runWrangler } from "../../lib/local-d1";
import { moduleOfLine } from "../bundle-modules";
import { connectInspector } from "../inspector";
import { requestInit, type Scenario } from "../scenario";
import { benchScenarios } from "../scenarios";
import { compatibilityDate, median } from "../startup";
import { IN_MEMORY_RATE_LIMITER, migrateAndSeed } from "../worker";
import { buildFrameworkFloor, FRAMEWORK_FLOOR, FRAMEWORK_FLOOR_SCENARIO, latencyWorkers } from "./workers";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const INSPECTOR_PORT = 9241;
const WARM_CALLS = 10;
const TOP = 30;

/** CPU time (ns) of every thread of the workerd processes this process started. */
function workerdCpuNs(): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) continue;
      const parent = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      if (parent !== process.pid) continue;
      for (const task of readdirSync(`/proc/${pid}/task`)) total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A process or thread that ended while it was read.
    }
  }
  return total;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(["(idle)", "(program)"]);

function printProfile(name: string, profile: CpuProfile, moduleOf: (line: number) => string) {
  const selfUs = new Map<number, number>();
  for (const [i, node] of profile.samples.entries()) selfUs.set(node, (selfUs.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const labelOf = ({ callFrame: { functionName, url, lineNumber } }: ProfileNode) =>
    url.endsWith("entry.js") ? `${functionName || "(anonymous)"}  ${moduleOf(lineNumber)}` : `${functionName || "(anonymous)"}  ${url || "(native)"}`;
  const bySelf = new Map<string, number>();
  const byModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  const visit = (id: number, open: Set<string>): number => {
    const node = byId.get(id) as ProfileNode;
    const label = labelOf(node);
    const { functionName, url, lineNumber } = node.callFrame;
    let us = IDLE.has(functionName) ? 0 : (selfUs.get(id) ?? 0);
    if (us > 0) {
      busy += us;
      bySelf.set(label, (bySelf.get(label) ?? 0) + us);
      const module = url.endsWith("entry.js") ? moduleOf(lineNumber) : functionName.startsWith("(") ? functionName : "(native)";
      byModule.set(module, (byModule.get(module) ?? 0) + us);
    }
    const inner = new Set(open).add(label);
    for (const child of node.children ?? []) us += visit(child, inner);
    // A function that calls itself counts once.
    if (!open.has(label)) inclusive.set(label, (inclusive.get(label) ?? 0) + us);
    return us;
  };
  visit(profile.nodes[0].id, new Set());
  const table = (title: string, rows: Map<string, number>, top: number) => {
    console.log(`\n| ${name}: ${title} | sampled ms | share of busy |\n|---|---:|---:|`);
    for (const [label, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`| ${label} | ${(us / 1000).toFixed(1)} | ${((100 * us) / busy).toFixed(0)}% |`);
    }
  };
  table("self, by function", bySelf, TOP);
  table("self, by module", byModule, TOP);
  table("inclusive", inclusive, TOP * 2);
  console.log(`\n${name}: ${(busy / 1000).toFixed(0)} ms busy under the profiler (sampled every 50 µs; read the shares, not the times)`);
}

export async function firstCalls(names: string[], options: { isolates: number; against?: string; profile: boolean }) {
  const outDir = path.join(ROOT, options.profile ? ".bench/dist-first-calls-profile" : ".bench/dist-first-calls");
  runWrangler(["deploy", "scripts/bench/latency/entry.ts", "--dry-run", "--outdir", outDir, ...(options.profile ? ["--minify=false"] : [])], {
    captureStdout: true,
  });
  const scriptPath = path.join(outDir, "entry.js");
  const date = compatibilityDate();
  const workers = latencyWorkers(date);
  const isolates = options.profile ? 1 : options.isolates;
  const builds = { "this build": scriptPath, ...(options.against ? { against: path.resolve(options.against) } : {}) };
  const floorScript = names.includes(FRAMEWORK_FLOOR) ? buildFrameworkFloor({ minify: !options.profile }) : undefined;
  // The floor's isolates serve the fixture whatever the build: it has no code of ours.
  const workerOf = (name: string, scenario: string, script: string) =>
    scenario === FRAMEWORK_FLOOR && floorScript ? workers.frameworkFloor(name, floorScript) : workers.copy(name, script, "off");
  const nameOf = (build: string, scenario: string, i: number) => `${build.replace(" ", "-")}-${scenario}-${i}`;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      inspectorPort: options.profile ? INSPECTOR_PORT : undefined,
      workers: [
        workers.first(scriptPath, "off"),
        ...Object.entries(builds).flatMap(([build, script]) =>
          names.flatMap((scenario) => Array.from({ length: isolates }, (_, i) => workerOf(nameOf(build, scenario, i), scenario, script))),
        ),
        { name: "bench-ratelimit", modules: true, script: IN_MEMORY_RATE_LIMITER, compatibilityDate: date },
      ],
    }),
  );
  try {
    await mf.ready;
    const { platform, areas } = await migrateAndSeed(mf);
    const scenarios = new Map([...benchScenarios(platform, areas), FRAMEWORK_FLOOR_SCENARIO].map((s) => [s.name, s]));
    const timedCall = async (workerName: string, scenario: Scenario) => {
      const fetcher = await mf.getWorker(workerName);
      const cpuBefore = workerdCpuNs();
      const started = performance.now();
      const res = await fetcher.fetch(new URL(scenario.path, "https://api.bench.test").href, requestInit(scenario));
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${scenario.name} answered ${res.status}`);
      return { ms: performance.now() - started, cpuMs: (workerdCpuNs() - cpuBefore) / 1e6 };
    };
    for (const name of names) {
      const scenario = scenarios.get(name);
      if (!scenario) throw new Error(`no bench scenario named ${name}`);
      if (options.profile) {
        const workerName = nameOf("this build", name, 0);
        const send = await connectInspector(INSPECTOR_PORT, workerName);
        await send("Profiler.enable");
        await send("Profiler.setSamplingInterval", { interval: 50 });
        await send("Profiler.start");
        await timedCall(workerName, scenario);
        const { profile } = (await send("Profiler.stop")) as { profile: CpuProfile };
        const dir = path.join(ROOT, ".bench/profiles");
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, `first-${name}.cpuprofile`), JSON.stringify(profile));
        printProfile(name, profile, moduleOfLine(readFileSync(name === FRAMEWORK_FLOOR && floorScript ? floorScript : scriptPath, "utf8")));
        continue;
      }
      const over = Object.fromEntries(Object.keys(builds).map((build) => [build, { ms: [] as number[], cpuMs: [] as number[] }]));
      for (let i = 0; i < isolates; i++) {
        for (const build of Object.keys(builds)) {
          const workerName = nameOf(build, name, i);
          const first = await timedCall(workerName, scenario);
          const warm = [];
          for (let j = 0; j < WARM_CALLS; j++) warm.push(await timedCall(workerName, scenario));
          over[build].ms.push(Math.round(first.ms - median(warm.map((w) => w.ms))));
          over[build].cpuMs.push(Math.round(first.cpuMs - median(warm.map((w) => w.cpuMs))));
        }
      }
      for (const [build, { ms, cpuMs }] of Object.entries(over)) {
        const spread = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
        console.log(
          `${name} (${build}): first − warm, median of ${isolates} fresh isolates: workerd CPU ${median(cpuMs)} ms (${spread(cpuMs)}), wall ${median(ms)} ms (${spread(ms)})`,
        );
      }
      if (options.against) {
        // Isolate i of each build ran back to back, so their difference cancels what the machine did then.
        const differences = over["this build"].cpuMs.map((cpu, i) => cpu - over.against.cpuMs[i]).sort((a, b) => a - b);
        const quartile = (q: number) => differences[Math.round(q * (differences.length - 1))];
        const lower = differences.filter((d) => d < 0).length;
        console.log(
          `${name}: this build − against, paired by isolate: workerd CPU median ${median(differences)} ms (quartiles ${quartile(0.25)} to ${quartile(0.75)}); lower in ${lower} of ${differences.length} pairs`,
        );
      }
    }
  } finally {
    await mf.dispose();
  }
}
