import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { getSessionDb } from "../../src/db/client";

/** The binding, with each session it opens recorded by its constraint. */
function recordingSessions() {
  const opened: string[] = [];
  const d1 = {
    withSession: (constraint: D1SessionConstraint) => {
      opened.push(constraint);
      return env.DB.withSession(constraint);
    },
  } as unknown as D1Database;
  return { d1, opened };
}

it("opens a request's D1 session on its first use, once, where the route's reads start", async () => {
  const primary = recordingSessions();
  const db = getSessionDb(primary.d1, "primary");
  // A request answered from a cache never reaches D1, and opens nothing.
  expect(primary.opened).toEqual([]);
  expect(await db.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  expect(await db.all(sql`SELECT 2 AS two`)).toEqual([{ two: 2 }]);
  expect(primary.opened).toEqual(["first-primary"]);

  const replica = recordingSessions();
  await getSessionDb(replica.d1, "nearest-replica").all(sql`SELECT 1`);
  expect(replica.opened).toEqual(["first-unconstrained"]);
});
