/**
 * Which area serves a path, derived from the areas' own routes instead of written by hand
 * (`npm run routes:areas` writes src/area-prefixes.ts; test/platform/area-prefixes.test.ts fails
 * when that file no longer matches the routes). A prefix claims the path itself and everything
 * under it, as hono matches `${prefix}/*`; a `:name` segment is any one segment.
 */

/** `[prefix, area]`, most specific first: the first whose prefix claims a path serves it. */
export type AreaTable = readonly (readonly [prefix: string, area: string])[];

const segments = (path: string) => path.split("/").filter(Boolean);

/** Whether two segments can be the same path segment (a `:name` is any). */
const segmentsMeet = (a: string, b: string) => a === b || a.startsWith(":") || b.startsWith(":");

/** Whether a route path can lie at or under `prefix` (both hono paths). */
function reaches(prefix: string[], route: string[]): boolean {
  return prefix.length <= route.length && prefix.every((segment, i) => segmentsMeet(segment, route[i]));
}

/**
 * The table for `routesByArea` (each area's route paths, hono syntax): for each route, the
 * shortest prefix of its path that reaches no other area's route, or its whole path when none does
 * (a longer prefix of the other area then comes first); an area's prefixes under another of its own
 * are dropped. Ordered by length, longest first, so no order is written by hand.
 */
export function deriveAreaTable(routesByArea: Readonly<Record<string, readonly string[]>>): AreaTable {
  const routes = Object.entries(routesByArea).flatMap(([area, paths]) => paths.map((path) => ({ area, path: segments(path) })));
  const prefixes = new Map<string, string>();
  for (const route of routes) {
    const others = routes.filter((other) => other.area !== route.area).map((other) => other.path);
    let length = 1;
    while (length < route.path.length && others.some((other) => reaches(route.path.slice(0, length), other))) length++;
    prefixes.set(`/${route.path.slice(0, length).join("/")}`, route.area);
  }
  const own = [...prefixes].filter(
    ([prefix, area]) => ![...prefixes].some(([wider, itsArea]) => itsArea === area && wider !== prefix && reaches(segments(wider), segments(prefix))),
  );
  return own.sort(([a], [b]) => segments(b).length - segments(a).length || (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether a request path is `prefix` or under it (a `:name` is any one segment). */
export function claims(prefix: string): (path: string) => boolean {
  if (!prefix.includes(":")) {
    return (path) => path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) /* "/" */;
  }
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+")}(?:/|$)`);
  return (path) => pattern.test(path);
}

/** The routes (`area: path`) that `table` sends to another area than their own, or to none. */
export function misroutedRoutes(table: AreaTable, routesByArea: Readonly<Record<string, readonly string[]>>): string[] {
  const matchers = table.map(([prefix, area]) => ({ claims: claims(prefix), area }));
  return Object.entries(routesByArea).flatMap(([area, paths]) =>
    paths.filter((path) => matchers.find((m) => m.claims(path.replace(/:\w+/g, "x")))?.area !== area).map((path) => `${area}: ${path}`),
  );
}
