import { env } from "cloudflare:workers";

/** Every row a query returns from the test's D1, for assertions on what was stored. */
export async function all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...params)
      .all<T>()
  ).results;
}
