import fc from "fast-check";

/**
 * Runs an invariant over generated inputs. 2,000 cases by default (FC_RUNS changes it); the seed is
 * the suite's (test/setup/property-seed.ts), printed with the shrunk counter-example on failure.
 */
export function holds<Ts extends [unknown, ...unknown[]]>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>) {
  return fc.assert(property as fc.IProperty<Ts>, { numRuns: Number(process.env.FC_RUNS ?? 2_000), verbose: 1 });
}
