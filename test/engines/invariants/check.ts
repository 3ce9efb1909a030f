import fc from "fast-check";

/**
 * Runs an invariant over generated inputs. 2,000 cases by default (FC_RUNS changes it); the seed is
 * fast-check's own, printed with the shrunk counter-example on failure, and FC_SEED replays it.
 */
export function holds<Ts extends [unknown, ...unknown[]]>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>) {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return fc.assert(property as fc.IProperty<Ts>, { numRuns: Number(process.env.FC_RUNS ?? 2_000), seed, verbose: 1 });
}
