/**
 * `npm run check:startup` (in .ci/run): the Worker's start-up CPU against a bare Hono + zod Worker's,
 * and its minified size against the ceiling (scripts/bench/budgets.ts). Exits 1 when either is over.
 * `--json` adds one line with the figures.
 */
import { bundleMet, describeBundle, describeStartup, measureStartup, startupMet } from "./bench/startup";

const { startup, bundle } = measureStartup();
console.log([...describeStartup(startup), describeBundle(bundle)].join("\n"));
if (process.argv.includes("--json")) console.log(JSON.stringify({ startup, bundle }));
if (!startupMet(startup) || !bundleMet(bundle)) process.exit(1);
