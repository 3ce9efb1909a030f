import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

const READ = /^\s*(select|with)\b/i;

/**
 * A D1 binding with one read replica that lags: the replica (`LAGGING_REPLICA`, vitest.config.ts)
 * holds the primary as it was at the last `catchUp()`. As D1's Sessions API routes them, sessions
 * started `first-unconstrained` read from the replica until their first write (after which D1
 * serves the session's reads at least as new as that write, so here from the primary);
 * `first-primary` sessions and the binding itself use the primary. A batch goes where the
 * session's next statement would. Bookmarks are counted, to show whether the code carries any.
 */
export async function laggingReplica(primary: D1Database = env.DB) {
  const replica = env.LAGGING_REPLICA;
  await applyD1Migrations(replica, env.TEST_MIGRATIONS);
  let bookmarksRead = 0;

  const session = (constraint: D1SessionConstraint) => {
    let wrote = constraint === "first-primary";
    const target = () => (wrote ? primary : replica);
    return {
      prepare(sql: string) {
        if (!READ.test(sql)) wrote = true;
        return target().prepare(sql);
      },
      batch: <T>(statements: D1PreparedStatement[]) => target().batch<T>(statements),
      getBookmark() {
        bookmarksRead++;
        return null;
      },
    };
  };

  const DB = {
    prepare: (sql: string) => primary.prepare(sql),
    batch: <T>(statements: D1PreparedStatement[]) => primary.batch<T>(statements),
    exec: (sql: string) => primary.exec(sql),
    withSession: (constraint: D1SessionConstraint = "first-unconstrained") => session(constraint),
  } as unknown as D1Database;

  /** Copies every table of the primary to the replica: replication has caught up. */
  async function catchUp() {
    const { results: tables } = await primary
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
      )
      .all<{ name: string }>();
    const statements = [replica.prepare("PRAGMA defer_foreign_keys = ON")];
    for (const { name } of tables) {
      statements.push(replica.prepare(`DELETE FROM "${name}"`));
      const { results: rows } = await primary.prepare(`SELECT * FROM "${name}"`).all<Record<string, unknown>>();
      for (const row of rows) {
        const columns = Object.keys(row);
        statements.push(
          replica
            .prepare(`INSERT INTO "${name}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
            .bind(...columns.map((c) => row[c])),
        );
      }
    }
    await replica.batch(statements);
  }

  await catchUp();
  return { DB, catchUp, bookmarksRead: () => bookmarksRead };
}
