import { describeError, logEvent } from "./log";

/** Keeps work alive past the response without the response waiting for it (`ctx.waitUntil`). */
export type Background = (work: Promise<unknown>) => void;

/** Work handed to `ctx.waitUntil`, its failure logged as `event` (it has no caller left to fail). */
export function inBackground(ctx: Pick<ExecutionContext, "waitUntil">, event: string): Background {
  return (work) => ctx.waitUntil(work.catch((error) => logEvent("warn", { event, ...describeError(error) })));
}
