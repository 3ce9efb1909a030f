import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runWrangler } from "../lib/local-d1";
import { REPO_ROOT } from "../lib/repo-root";
import { BUNDLE_CEILING_KIB, STARTUP_BUDGET_RATIO, STARTUP_RUNS } from "./budgets";

/** A bare Hono + zod Worker, built with the API's settings: the reference for the start-up budget. */
const FIXTURE_CONFIG = path.join(REPO_ROOT, "scripts/bench/startup-fixture/wrangler.toml");

/** The API's compatibility date (wrangler.toml), which the bench's Workers and the fixture run with too. */
export function compatibilityDate(): string {
  const match = readFileSync(path.join(REPO_ROOT, "wrangler.toml"), "utf8").match(/^compatibility_date\s*=\s*"([^"]+)"/m);
  if (!match) throw new Error("wrangler.toml has no compatibility_date");
  return match[1];
}

export interface StartupFigures {
  /** Start-up CPU (ms) of each profile, run by run (the two Workers were profiled alternately). */
  api_ms: number[];
  fixture_ms: number[];
  api_median_ms: number;
  fixture_median_ms: number;
  ratio: number;
  budget_ratio: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The CPU time of a start-up profile as `wrangler check startup` reports it ("Active"): every sample but idle ones. */
function activeMs(profileFile: string): number {
  const profile = JSON.parse(readFileSync(profileFile, "utf8")) as CpuProfile;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const micros = profile.timeDeltas.reduce((sum, delta, i) => (idle.has(profile.samples[i]) ? sum : sum + delta), 0);
  return micros / 1000;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * Builds the API and the fixture once each, as `wrangler deploy` would, then profiles their start-up
 * (`wrangler check startup`: workerd imports the bundle under the V8 profiler) STARTUP_RUNS times,
 * alternating, so that load on a shared machine falls on both alike.
 */
export function measureStartup(): { startup: StartupFigures; bundle: BundleFigures } {
  const dir = mkdtempSync(path.join(tmpdir(), "startup-"));
  try {
    const apiBundle = path.join(dir, "api.bundle");
    const fixtureBundle = path.join(dir, "fixture.bundle");
    const build = runWrangler(["deploy", "--dry-run", "--outfile", apiBundle], { captureStdout: true });
    runWrangler(["deploy", "--dry-run", "--config", FIXTURE_CONFIG, "--compatibility-date", compatibilityDate(), "--outfile", fixtureBundle], {
      captureStdout: true,
    });
    // A profile with no active sample (the sampler missed the whole start-up) is a failed measurement,
    // not a start-up of 0 ms: it is taken again, up to three times.
    const profile = (bundle: string, run: number) => {
      const file = path.join(dir, `${path.basename(bundle, ".bundle")}-${run}.cpuprofile`);
      for (let attempt = 1; ; attempt++) {
        runWrangler(["check", "startup", "--worker", bundle, "--outfile", file], { captureStdout: true });
        const ms = activeMs(file);
        if (ms > 0 || attempt === 3) return ms;
      }
    };
    const api_ms: number[] = [];
    const fixture_ms: number[] = [];
    for (let run = 1; run <= STARTUP_RUNS; run++) {
      api_ms.push(profile(apiBundle, run));
      fixture_ms.push(profile(fixtureBundle, run));
    }
    const api_median_ms = median(api_ms);
    const fixture_median_ms = median(fixture_ms);
    return {
      startup: {
        api_ms,
        fixture_ms,
        api_median_ms,
        fixture_median_ms,
        ratio: Number((api_median_ms / fixture_median_ms).toFixed(2)),
        budget_ratio: STARTUP_BUDGET_RATIO,
      },
      bundle: bundleFigures(build),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const startupMet = (f: StartupFigures) => f.ratio <= f.budget_ratio;

export function describeStartup(f: StartupFigures): string[] {
  const ms = (values: number[]) => values.map((v) => v.toFixed(1)).join(", ");
  return [
    `start-up CPU (median of ${f.api_ms.length}): API ${f.api_median_ms.toFixed(1)} ms, bare Hono + zod ${f.fixture_median_ms.toFixed(1)} ms: ` +
      `${f.ratio}× (budget ${f.budget_ratio}×) ${startupMet(f) ? "met" : "NOT met"}`,
    `  each run: API ${ms(f.api_ms)}; bare Hono + zod ${ms(f.fixture_ms)}`,
  ];
}

/** The Worker's size as `wrangler deploy` reports it, against the ceiling. */
export interface BundleFigures {
  upload_kib: number;
  gzip_kib: number;
  ceiling_kib: number;
}

/** From the output of `wrangler deploy --dry-run` ("Total Upload: … KiB / gzip: … KiB"). */
export function bundleFigures(deployOutput: string): BundleFigures {
  const size = deployOutput.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
  if (!size) throw new Error(`wrangler did not report the bundle size:\n${deployOutput}`);
  return { upload_kib: Number(size[1]), gzip_kib: Number(size[2]), ceiling_kib: BUNDLE_CEILING_KIB };
}

export const bundleMet = (b: BundleFigures) => b.upload_kib <= b.ceiling_kib;

export const describeBundle = (b: BundleFigures) =>
  `bundle ${b.upload_kib} KiB minified, ${b.gzip_kib} KiB gzip: ceiling ${b.ceiling_kib} KiB minified ${bundleMet(b) ? "met" : "NOT met"}`;
