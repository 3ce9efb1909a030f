import fc from "fast-check";

/**
 * `npm test` replays one seed for every property test, so a run is reproducible and a commit's CI
 * does not turn red on a new draw; `npm run test:explore` draws new seeds (docs/domain/invariants.md).
 * FC_SEED comes through the config's `define`, which reaches both the Node and the workerd project.
 */
declare const __FC_SEED__: string;
if (__FC_SEED__ !== "random") fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(__FC_SEED__) });
