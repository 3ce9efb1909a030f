/**
 * The direction of imports in src/ (README, "Development"): db/, events/, jobs/ and durable-objects/
 * never reach up into http/ or routes/; engines import nothing but engines and the pure packages
 * below (no runtime, no database, no environment). `npm run lint` checks it in CI.
 */

/** Packages an engine may import: no I/O, no globals of a runtime, the same answer in Node and workerd. */
const PURE_PACKAGES = ["papaparse"];

module.exports = {
  forbidden: [
    {
      name: "engines-are-pure",
      comment: `An engine imports only other engines and the pure packages (${PURE_PACKAGES.join(", ")}): no db, http, routes, jobs, cloudflare:* or node:* modules.`,
      severity: "error",
      from: { path: "^src/engines/" },
      to: { pathNot: ["^src/engines/", ...PURE_PACKAGES.map((name) => `(^|/)node_modules/${name}/`)] },
    },
    {
      name: "db-below-http",
      comment: "src/db/ never imports from the HTTP layer, the routes, the jobs, the events or the credentials (ids come from src/lib/ids.ts).",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/(http|routes|jobs|events|credentials|durable-objects)/" },
    },
    {
      name: "http-below-routes",
      comment: "Cross-cutting HTTP code does not depend on a particular endpoint group.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "events-below-http",
      comment: "The outbox and webhook delivery (src/events/) run from requests, the queue and the cron alike: no HTTP layer, routes or jobs.",
      severity: "error",
      from: { path: "^src/events/" },
      to: { path: "^src/(http|routes|jobs|durable-objects)/" },
    },
    {
      name: "jobs-below-http",
      comment:
        "Scheduled jobs (src/jobs/) call db/, engines/ and events/, never the HTTP layer or an endpoint group; they reach an organization's storage object only through its routing (the sandbox purge).",
      severity: "error",
      from: { path: "^src/jobs/" },
      to: { path: "^src/(http|routes|durable-objects)/", pathNot: "^src/durable-objects/org-storage-routing" },
    },
    {
      name: "durable-objects-thin",
      comment:
        "A Durable Object is storage in, an engine call, storage out: it imports engines/ and lib/ only. The organization's storage object (docs/scaling.md) also runs db/'s query modules on its own SQLite, and its routing and move read D1's flag.",
      severity: "error",
      from: { path: "^src/durable-objects/", pathNot: "^src/durable-objects/org-storage" },
      to: { path: "^src/", pathNot: "^src/(durable-objects|engines|lib)/" },
    },
    {
      name: "org-storage-below-http",
      comment:
        "The organization's storage object, its routing and its move read through db/'s query modules, never http/ or routes/; the object's alarm runs its organization's jobs (src/jobs/org-nightly.ts).",
      severity: "error",
      from: { path: "^src/durable-objects/org-storage" },
      to: { path: "^src/", pathNot: "^src/(durable-objects|engines|lib|db|jobs)/" },
    },
    {
      name: "routes-independent",
      comment: "One endpoint group never imports another's files; shared logic belongs in engines/, db/ or http/.",
      severity: "error",
      from: { path: "^src/routes/([^/]+)/" },
      to: { path: "^src/routes/", pathNot: "^src/routes/$1/" },
    },
    {
      name: "lib-is-neutral",
      comment: "src/lib holds neutral utilities (logging, caches); they import nothing of the app.",
      severity: "error",
      from: { path: "^src/lib/" },
      to: { path: "^src/(?!lib/)" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.d\\.ts$" },
  },
};
