import { applyD1Migrations, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { AREA_PREFIXES } from "../../src/area-prefixes";
import { loadQueueConsumers } from "../../src/worker";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// Every route area of the Worker is built here, one request each, rather than by a file's first
// requests: in the test pool an area's modules load with I/O, and workerd holds a request that awaits
// a module another request is loading until that request ends, so two concurrent first calls of an
// area would run one after the other. Deployed, an area loads synchronously, with no I/O (src/app.ts).
const onePathPerArea = new Map(AREA_PREFIXES.map(([prefix, area]) => [area, prefix.replace(/:\w+/g, "x")]));
for (const path of onePathPerArea.values()) await (await SELF.fetch(`https://api.test${path}`, { method: "OPTIONS" })).arrayBuffer();
// The queue handler's modules too: a batch that arrives after its file's last test (a hold's event,
// a retry) would load them from the pool as it tears the runtime down, which fails the file
// ("Cannot load … after the environment was torn down") or kills the run ("Message received from
// Worker before initialisation", @cloudflare/vitest-plugin's pool asserting its closed socket).
// Loaded here, tests and the Worker share them (one module graph per runtime), so no batch loads any.
await loadQueueConsumers();
