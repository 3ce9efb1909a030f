/**
 * `npm run check:startup` (in .ci/run): the Worker's start-up CPU against a bare Hono + zod Worker's,
 * and its minified size against the ceiling (scripts/bench/budgets.ts). Exits 1 when either is over
 * its budget. Start-up is within it because nothing but hono and the path-to-area table runs then:
 * each route area, the stack and Node's built-ins load on first use (src/app.ts, BENCHMARKS.md).
 * `--json` adds one line with the figures.
 */
import { STARTUP_BUDGET_RATIO } from "./bench/budgets";
import { bundleMet, describeBundle, describeStartup, measureStartup, startupMet } from "./bench/startup";

const { startup, bundle } = measureStartup();
console.log([...describeStartup(startup), describeBundle(bundle)].join("\n"));
if (process.argv.includes("--json")) console.log(JSON.stringify({ startup, bundle }));
if (!startupMet(startup)) console.log(`start-up budget NOT MET (target: at most ${STARTUP_BUDGET_RATIO}x the bare Worker's median)`);
if (!bundleMet(bundle) || !startupMet(startup)) process.exit(1);
