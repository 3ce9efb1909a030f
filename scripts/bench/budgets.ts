/**
 * What users feel of the Worker's size, checked by `npm run check:startup` (in .ci/run) and
 * reported by `npm run bench`; BENCHMARKS.md ("Start-up and bundle budgets") has the measurements.
 */

/** Start-up CPU (the median of STARTUP_RUNS profiles) may be at most this multiple of a bare Hono + zod Worker's. */
export const STARTUP_BUDGET_RATIO = 1.2;

/** Profiles per Worker: on a shared machine one start-up can take two to four times another. */
export const STARTUP_RUNS = 5;

/**
 * The minified bundle as `wrangler deploy` uploads it: 593.4 KiB on 2026-11-26 (with only zod's
 * index patch), plus 25% for growth (742); raised on 2026-11-28 to 800 when the engines' own rules
 * (funding limits, Appendix J, the VIN decode, screening forms: about 3,000 lines of our code, no
 * dependency and no reference data) took it to 777 KiB; raised on 2026-11-29 to 840 when the
 * store's own signals (two engines, two jobs, `data_as_of` on seven answers) and the route
 * factories took it to 803 KiB (gzip 262 KiB), start-up CPU still 0.8× its budget; raised on
 * 2026-11-29 afternoon to 880 when the deals group's storage-object schema (8.4 KiB of SQL, bundled
 * as the object's migration) and the code of the credential-at-a-replica path, the deals group's
 * object methods and compliance's stored name parts (8.7 KiB) took it to 851 KiB (gzip 277 KiB),
 * start-up CPU 0.76× its budget; raised on 2026-11-29 evening to 920 when four more groups moved
 * into the storage object (settings, webhooks, briefings and the move's life cycle: their object
 * methods, the webhook requests run on either storage, the purge job, and 5.9 KiB of the object's
 * migrations; our code, no dependency and no reference data) took it to 894.7 KiB (gzip 290 KiB),
 * start-up CPU 0.86× its budget; raised on 2026-11-29 night to 930 when the move's lease, the
 * store feeds and lender panels groups' code, organizations born in their objects and the storage
 * flag carried by staff sessions took it to 920.8 KiB (gzip 298 KiB), start-up 1.02× (load 4);
 * lowered on 2026-11-30 to 880 when the deletion of D1's per-organization path, the move and the
 * crons' per-organization jobs (issue 39's last step) took it to 859.5 KiB (gzip 278 KiB), start-up
 * 0.81× its budget. Parsing and compiling it is most of start-up, which check:startup holds to its own budget.
 */
export const BUNDLE_CEILING_KIB = 880;
