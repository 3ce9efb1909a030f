/**
 * `npm run bench:scale [-- --max-stores=10000] [-- --calls=30] [-- --rounds=3] [-- --smoke]`: the
 * service's cost as stores grow, every organization's data in its own object (./objects.ts).
 */
import { runObjects } from "./objects";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
};
const smoke = args.includes("--smoke");

runObjects({
  maxStores: smoke ? 10 : option("max-stores", 10_000),
  calls: option("calls", smoke ? 5 : 30),
  rounds: smoke ? 1 : option("rounds", 3),
}).catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
