import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";

/**
 * Before each test file. Most files share a workerd runtime (vitest.config.ts), not its state:
 * every Durable Object is deleted (in Miniflare that is also D1, the Cache API, the rate limiters
 * and the queues), the Worker's modules are evaluated afresh (no per-isolate cache survives) and
 * the migrations are applied to the empty database (~0.1 s; starting a runtime costs ~3 s).
 */
const userTables = async () =>
  (await env.DB.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").first<number>(
    "n",
  )) ?? 0;
// reset() now and then returns with D1 untouched (right after a file whose requests were still
// settling); a second call empties it.
for (let attempt = 1; ; attempt++) {
  await reset();
  if ((await userTables()) === 0) break;
  if (attempt === 5) throw new Error("reset() left the previous test file's D1 tables in place five times");
}
vi.resetModules();
vi.useRealTimers();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
