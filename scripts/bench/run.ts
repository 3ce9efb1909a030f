/**
 * `npm run bench [-- --json] [-- --duration=10] [-- --connections=50] [-- --only=name,name] [-- --repeat=3] [-- --paired]`
 *
 * Builds the Worker as `wrangler deploy` would, serves it in workerd through Miniflare's API (with
 * D1, the QuotaCounter Durable Object, the rate-limit binding and the webhooks queue) next to a
 * bare Worker that returns a constant, and loads each scenario with autocannon (chosen over wrk,
 * whose latency percentiles were implausible on these machines; see PERF-NOTES). The served
 * Worker is the app with its floors mounted (scripts/bench/entry.ts: `metered_echo`,
 * `metered_write`, `metered_event`, `metered_read`, `metered_page`), so each endpoint is held to the floor of its
 * own kind of work (its `target`).
 * Rounds are interleaved so drift on a shared machine hits every scenario alike; before each
 * scenario the queue's leftover work is waited for (and the wait printed). Each figure is the
 * median of the rounds and each ratio the median of the per-round ratios. `--repeat=N` measures
 * the whole set N times and prints each ratio's spread. `--paired` measures each scenario's target
 * floor again right before it in every round and takes its ratio to that measurement, so a pair
 * shares the machine's conditions (the floor's own figures still come from its own place). It also reports the bundle's size
 * (minified, gzip) against its ceiling, start-up CPU against a bare Hono + zod Worker's
 * (scripts/bench/budgets.ts), each scenario's first call (a fresh isolate's cold path), the CPU
 * workerd spent per request (and the target floor's over the scenario's: the server's share of a
 * ratio, without the load generator's) and, beside every run, the load average and the
 * hypervisor's steal. `--json` ends the output with one line holding those figures.
 * `--only` runs the named scenarios (with the baseline, `metered_v1` and the scenarios their
 * targets compare them with). Any answer other than 2xx aborts the run. Each endpoint area adds
 * its scenarios, and the rows they need, in scripts/bench/areas/ (listed in areas/index.ts).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { BENCH_AREAS } from "./areas";
import { APPRAISAL_PHOTOS } from "./areas/appraisal";
import { copyAnswer, type Figures, load } from "./load";
import { requestInit, type Scenario, SETS_FOR_VERDICT } from "./scenario";
import { benchScenarios } from "./scenarios";
import { describeBundle, describeStartup, measureStartup, median } from "./startup";
import { build, machine, migrateAndSeed, pendingWork, serve } from "./worker";

const ROUNDS = 3;
const WARMUP_SECONDS = 2;
/** A fresh isolate's first call of any endpoint (issue 19, "Cold paths"). */
const FIRST_CALL_LIMIT_MS = 500;
/** How long the queue may take to finish the previous scenario's work before the run fails. */
const DRAIN_TIMEOUT_MS = 120_000;
/**
 * Photo appraisal is held to the cost of its body: the milliseconds of serving a MiB of photos
 * adds (with minus without, per request) within 1.5 times what the same MiB adds to the echo.
 */
const BODY_COST = {
  scenario: "trade_appraisal_photos",
  without: "trade_appraisal",
  echo: "metered_echo_photos",
  echoWithout: "metered_echo",
  mib: JSON.stringify(APPRAISAL_PHOTOS).length / 2 ** 20,
  maxRatio: 1.5,
};

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
};
const json = args.includes("--json");
const duration = option("duration", 10);
const connections = option("connections", 50);
const repeat = option("repeat", 1);
/** Each scenario's target floor is measured again right before it, and its ratio taken to that measurement. */
const paired = args.includes("--paired");
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");

/**
 * Events, deliveries and retries that one scenario leaves to the queue consumer would be served on
 * the same thread as the next scenario's requests and measured as its cost: wait until none is
 * left — no outbox row not yet fanned out (the fan-out marks it, whatever the subscriptions), no
 * delivery pending in any organization's object (PENDING_WORK_PATH) — and say how long that took.
 */
async function drainQueue(url: URL): Promise<number> {
  const started = performance.now();
  for (;;) {
    const work = await pendingWork(url);
    const pending = work.outbox_not_fanned_out + (work.deliveries.pending ?? 0);
    const waited = performance.now() - started;
    if (pending === 0) return Math.round(waited);
    if (waited > DRAIN_TIMEOUT_MS) throw new Error(`the queue still had ${pending} events or deliveries pending after ${DRAIN_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

type Summary = Record<string, Figures & { ratio: number; vs_metered: number; vs_target?: number; cpu_vs_target?: number; drain_ms: number }>;

/** One full set: ROUNDS interleaved rounds of every scenario, each after the queue is drained. */
async function measureSet(url: URL, scenarios: Scenario[], run: number): Promise<Summary> {
  const rounds: Record<string, Figures>[] = [];
  // With --paired: per round, each scenario's target floor as measured right before it.
  const pairedFloors: Record<string, Figures>[] = [];
  const drainMs: Record<string, number> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    const figures: Record<string, Figures> = {};
    const floors: Record<string, Figures> = {};
    for (const scenario of scenarios) {
      const floor = paired ? scenarios.find((s) => s.name === scenario.target?.of) : undefined;
      if (floor) {
        await drainQueue(url);
        floors[scenario.name] = await load(url, floor, duration, connections);
        console.log(
          `run ${run} round ${round}  ${floor.name.padEnd(22)} ${floors[scenario.name].rps.toFixed(0).padStart(7)} req/s  ${floors[scenario.name].cpu_us ?? "–"} µs CPU/req  (paired with ${scenario.name})`,
        );
      }
      const drained = await drainQueue(url);
      drainMs[scenario.name] = Math.max(drainMs[scenario.name] ?? 0, drained);
      const f = await load(url, scenario, duration, connections);
      figures[scenario.name] = f;
      console.log(
        `run ${run} round ${round}  ${scenario.name.padEnd(22)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50_ms} ms  p99 ${f.p99_ms} ms  ${f.cpu_us ?? "–"} µs CPU/req  (queue drained in ${drained} ms)`,
      );
    }
    rounds.push(figures);
    pairedFloors.push(floors);
  }
  const summary: Summary = {};
  const perRoundRatio = (name: string, of: string) => Number(median(rounds.map((r) => r[name].rps / r[of].rps)).toFixed(3));
  const pairedRatio = (name: string) => Number(median(rounds.map((r, i) => r[name].rps / pairedFloors[i][name].rps)).toFixed(3));
  // The floor's CPU per request over the scenario's, read like the rate ratio: ≥ the target's ratio is met.
  const cpuRatio = (name: string, floorOf: (round: number) => Figures) => {
    const ratios = rounds.map((r, i) => {
      const floorCpu = floorOf(i).cpu_us;
      const cpu = r[name].cpu_us;
      return floorCpu === null || cpu === null ? null : floorCpu / cpu;
    });
    return ratios.includes(null) ? undefined : Number(median(ratios as number[]).toFixed(3));
  };
  for (const { name, target } of scenarios) {
    summary[name] = {
      rps: Math.round(median(rounds.map((r) => r[name].rps))),
      p50_ms: median(rounds.map((r) => r[name].p50_ms)),
      p99_ms: median(rounds.map((r) => r[name].p99_ms)),
      cpu_us: rounds.some((r) => r[name].cpu_us === null) ? null : median(rounds.map((r) => r[name].cpu_us as number)),
      ratio: Number(median(rounds.map((r) => r[name].rps / r.baseline.rps)).toFixed(3)),
      vs_metered: Number(median(rounds.map((r) => r[name].rps / r.metered_v1.rps)).toFixed(3)),
      ...(target && rounds[0][target.of]
        ? pairedFloors[0][name]
          ? { vs_target: pairedRatio(name), cpu_vs_target: cpuRatio(name, (i) => pairedFloors[i][name]) }
          : { vs_target: perRoundRatio(name, target.of), cpu_vs_target: cpuRatio(name, (i) => rounds[i][target.of]) }
        : {}),
      drain_ms: drainMs[name],
    };
  }
  return summary;
}

/** Milliseconds of serving a MiB of photos adds per request, to the appraisal and to the echo. */
function bodyCost(summary: Summary) {
  const msPerRequest = (name: string) => 1000 / summary[name].rps;
  const perMiB = (withBody: string, without: string) => (msPerRequest(withBody) - msPerRequest(without)) / BODY_COST.mib;
  if (![BODY_COST.scenario, BODY_COST.without, BODY_COST.echo, BODY_COST.echoWithout].every((name) => summary[name])) return null;
  const appraisal = perMiB(BODY_COST.scenario, BODY_COST.without);
  const echo = perMiB(BODY_COST.echo, BODY_COST.echoWithout);
  return {
    appraisal_ms_per_mib: Number(appraisal.toFixed(2)),
    echo_ms_per_mib: Number(echo.toFixed(2)),
    ratio: Number((appraisal / echo).toFixed(2)),
  };
}

const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

/** The machine's CPU time so far from /proc/stat (Linux): all of it and what the hypervisor took (steal), in ticks. */
function machineTicks(): { total: number; steal: number } | null {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] };
  } catch {
    return null;
  }
}

/** What share of the machine's CPU time the hypervisor gave to other guests between two readings. */
const stealShare = (before: ReturnType<typeof machineTicks>, after: ReturnType<typeof machineTicks>) =>
  before && after && after.total > before.total
    ? `; CPU steal ${(((after.steal - before.steal) / (after.total - before.total)) * 100).toFixed(1)}%`
    : "";
const spread = (values: number[]) =>
  values.length > 1 ? `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}` : values[0].toFixed(2);

async function main(): Promise<void> {
  const bundle = build();
  const parts = Object.entries(bundle.parts_kib).map(([part, kib]) => `${part} ${kib}`);
  console.log(describeBundle(bundle));
  console.log(`  minified KiB by package: ${parts.join(", ")}`);
  const { startup } = measureStartup();
  console.log(`${describeStartup(startup).join("\n")}\n`);
  const mf = serve();
  try {
    const url = await mf.ready;
    const { platform, areas } = await migrateAndSeed(mf);
    const allScenarios = benchScenarios(platform, areas);
    // A scenario runs with the ones its target and its body cost compare it with.
    const wanted = only && new Set([...only, ...allScenarios.filter((s) => only.includes(s.name)).flatMap((s) => (s.target ? [s.target.of] : []))]);
    if (wanted?.has(BODY_COST.scenario)) for (const name of [BODY_COST.without, BODY_COST.echo, BODY_COST.echoWithout]) wanted.add(name);
    const scenarios = allScenarios.filter((s) => !wanted || s.name === "baseline" || s.name === "metered_v1" || wanted.has(s.name));

    // The first call of each scenario, untimed by autocannon, is timed here: for a route that builds
    // a per-isolate cache on first use (the compliance index), it is that cache's cold cost.
    const firstCallMs: Record<string, number> = {};
    for (const scenario of scenarios) {
      await drainQueue(url);
      const original = scenarios.find((s) => s.name === scenario.copiesAnswerOf);
      // After the original's own first call, so that one stays the isolate's first.
      if (original) await copyAnswer(url, original, scenario);
      const started = performance.now();
      const res = await fetch(new URL(scenario.path, url), requestInit(scenario));
      if (!res.ok) throw new Error(`${scenario.name} answered ${res.status}: ${await res.text()}`);
      // Without a Remaining figure the quota failed open, and the run would measure the wrong path.
      if (scenario.metered && !res.headers.has("X-Service-RateLimit-Remaining")) throw new Error(`${scenario.name} was not metered`);
      await res.arrayBuffer();
      firstCallMs[scenario.name] = Math.round(performance.now() - started);
      await load(url, scenario, WARMUP_SECONDS, connections);
    }

    const runs: { summary: Summary; load: string }[] = [];
    for (let run = 1; run <= repeat; run++) {
      const before = loadAverage();
      const ticks = machineTicks();
      const summary = await measureSet(url, scenarios, run);
      runs.push({ summary, load: `${before} before, ${loadAverage()} after${stealShare(ticks, machineTicks())}` });
    }

    for (const [i, { summary, load }] of runs.entries()) {
      console.log(
        `\nrun ${i + 1} of ${runs.length}: ${machine()}; load average ${load}; ${connections} connections, ${duration} s per scenario, median of ${ROUNDS} interleaved rounds${paired ? ", each ratio to a target taken to the floor measured right before it" : ""}\n`,
      );
      console.log(
        "| scenario | req/s | p50 ms | p99 ms | vs baseline | vs metered_v1 | target | vs target | CPU µs/req | CPU vs target | queue wait ms | first call ms |",
      );
      console.log("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|");
      for (const { name, target } of scenarios) {
        const f = summary[name];
        const goal = target ? `≥ ${target.ratio} of ${target.of}` : "";
        const verdict = (ratio: number | undefined) =>
          ratio === undefined ? "" : `${ratio.toFixed(2)} ${ratio >= (target?.ratio ?? 0) ? "met" : "**NOT met**"}`;
        console.log(
          `| ${name} | ${f.rps} | ${f.p50_ms} | ${f.p99_ms} | ${f.ratio.toFixed(2)} | ${f.vs_metered.toFixed(2)} | ${goal} | ${verdict(f.vs_target)} | ${f.cpu_us ?? ""} | ${verdict(f.cpu_vs_target)} | ${f.drain_ms} | ${firstCallMs[name]} |`,
        );
      }
      const cost = bodyCost(summary);
      if (cost) {
        console.log(
          `\n${BODY_COST.scenario}: ${cost.appraisal_ms_per_mib} ms per MiB of body, ${BODY_COST.echo}: ${cost.echo_ms_per_mib} ms per MiB → ${cost.ratio}× (target ≤ ${BODY_COST.maxRatio}: ${cost.ratio <= BODY_COST.maxRatio ? "met" : "NOT met"})`,
        );
      }
    }
    // A target is met when the median of SETS_FOR_VERDICT sets is (issue 37); the spread beside it.
    console.log(
      `\nTargets: the median of ${runs.length} set${runs.length === 1 ? "" : "s"} (min–max beside it)${runs.length < SETS_FOR_VERDICT ? `: a reading, not a verdict (a verdict takes --repeat=${SETS_FOR_VERDICT})` : ""}\n`,
    );
    console.log("| scenario | target | vs target (median) | spread | CPU vs target (median) | met |\n|---|---|---:|---|---:|---|");
    for (const { name, target } of scenarios) {
      if (!target) continue;
      const ratios = (figure: "vs_target" | "cpu_vs_target") =>
        runs.flatMap(({ summary }) => (summary[name][figure] === undefined ? [] : [summary[name][figure] as number]));
      const vs = ratios("vs_target");
      if (vs.length === 0) continue;
      const cpu = ratios("cpu_vs_target");
      const met = median(vs) >= target.ratio;
      console.log(
        `| ${name} | ≥ ${target.ratio} of ${target.of} | ${median(vs).toFixed(2)} | ${spread(vs)} | ${cpu.length > 0 ? median(cpu).toFixed(2) : ""} | ${runs.length < SETS_FOR_VERDICT ? (met ? "(met)" : "(not met)") : met ? "met" : "**NOT met**"} |`,
      );
    }
    const slowFirstCalls = Object.entries(firstCallMs).filter(([, ms]) => ms >= FIRST_CALL_LIMIT_MS);
    console.log(
      `\nfirst calls: ${slowFirstCalls.length === 0 ? `every scenario under ${FIRST_CALL_LIMIT_MS} ms (max ${Math.max(...Object.values(firstCallMs))} ms)` : `NOT met: ${slowFirstCalls.map(([name, ms]) => `${name} ${ms} ms`).join(", ")}`}`,
    );
    console.log(describeBundle(bundle));
    console.log(describeStartup(startup)[0]);
    const measurements = [];
    for (const m of BENCH_AREAS.flatMap((area) => area.measurements ?? [])) {
      if (only && !only.includes(m.name)) continue;
      measurements.push(...(await m.run(url, areas)));
    }
    if (measurements.length > 0) {
      console.log("\n| measurement | detail | time | rate |\n|---|---|---:|---:|");
      for (const m of measurements) console.log(`| ${m.name} | ${m.detail} | ${m.value} ${m.unit} | ${m.rate} ${m.rateUnit} |`);
    }
    if (json) {
      const last = runs[runs.length - 1].summary;
      console.log(
        JSON.stringify({
          ...last,
          runs: runs.map(({ summary, load }) => ({ load, summary, body_cost: bodyCost(summary) })),
          first_call_ms: firstCallMs,
          bundle,
          startup,
          ...(measurements.length > 0 ? { measurements } : {}),
        }),
      );
    }
  } finally {
    await mf.dispose();
  }
}

await main();
