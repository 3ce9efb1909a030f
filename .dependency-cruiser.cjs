/**
 * The direction of imports in src/ (DESIGN.md §5): db/ and engines/ never reach up into http/ or
 * routes/; engines import nothing but engines (no runtime, no database, no environment).
 * `npm run lint` checks it in CI.
 */
module.exports = {
  forbidden: [
    {
      name: "engines-are-pure",
      comment: "An engine imports only other engines: no db, http, routes, jobs, cloudflare:* or node:* modules.",
      severity: "error",
      from: { path: "^src/engines/" },
      to: { pathNot: "^src/engines/" },
    },
    {
      name: "db-below-http",
      comment: "src/db/ never imports from the HTTP layer, the routes, the jobs or the events.",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/(http|routes|jobs|events)/" },
    },
    {
      name: "http-below-routes",
      comment: "Cross-cutting HTTP code does not depend on a particular endpoint group.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/routes/" },
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
