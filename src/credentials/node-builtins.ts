/**
 * Node's built-ins, taken on first use rather than imported. The bundle keeps an `import` of a
 * built-in at its top, so workerd would load node:crypto at every isolate's start-up, before any
 * route needs it: a few ms of a start-up profile (BENCHMARKS.md).
 */
let cryptoModule: typeof import("node:crypto") | undefined;

export const nodeCrypto = () => (cryptoModule ??= process.getBuiltinModule("node:crypto"));
