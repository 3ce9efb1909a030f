/**
 * The Worker `npm run bench:latency` serves: the production app (src/app.ts, src/worker.ts) with
 * its bindings wrapped, bench-only (never in the deployed bundle). Each binding call waits its
 * round trip of the model (./model.ts) before it runs, and is recorded; the answer carries the
 * request's calls in `X-Latency-Calls`, so the bench can count its sequential round trips.
 *
 * Where D1 sends a query follows the Sessions API: on the binding itself, every query goes to the
 * primary; in a session, reads go to a replica until the session has been to the primary (a write,
 * or a `first-primary` start), and from then on to the primary. (A replica at least as fresh as the
 * session's bookmark could serve them; counting them at the primary is the conservative reading.)
 * The bench calls one request at a time, so the calls being recorded are the current request's.
 */
import { createApp } from "../../../src/app";
import { createWorker } from "../../../src/worker";
import { type Call, type Hop, isWrite, ROUND_TRIP_MS } from "./model";

export { OrganizationStore } from "../../../src/durable-objects/org-storage";
export { QuotaCounter } from "../../../src/durable-objects/quota-counter";

/** The current request's calls; every call of the isolate since the last reset for `/__latency/count`. */
let calls: Call[] = [];
const totals: Record<string, number> = {};
/** `LATENCY_MODEL=off`: every round trip 0 ms, the calls still counted (the first call's CPU and local I/O alone). */
let modelOn = true;

async function roundTrip<T>(hop: Hop, what: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  totals[hop] = (totals[hop] ?? 0) + 1;
  if (modelOn) await new Promise((resolve) => setTimeout(resolve, ROUND_TRIP_MS[hop]));
  try {
    return await run();
  } finally {
    calls.push({ hop, what, start, end: performance.now() });
  }
}

/** Where a session's next statement goes. */
interface Route {
  onPrimary: boolean;
}

const firstWords = (sql: string) => sql.trim().split(/\s+/).slice(0, 4).join(" ");

class Statement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly sql: string,
    private readonly route: Route | null,
  ) {}
  bind(...values: unknown[]) {
    return new Statement(this.inner.bind(...values), this.sql, this.route);
  }
  private send<T>(run: () => Promise<T>) {
    return roundTrip(hopOf(this.route, [this.sql]), firstWords(this.sql), run);
  }
  first(column?: string) {
    return this.send(() => (column === undefined ? this.inner.first() : this.inner.first(column)));
  }
  all() {
    return this.send(() => this.inner.all());
  }
  run() {
    return this.send(() => this.inner.run());
  }
  raw(options?: { columnNames?: boolean }) {
    return this.send(() => this.inner.raw(options as { columnNames: true }));
  }
}

/** The binding (route null: the primary) or a session. */
function hopOf(route: Route | null, sqls: string[]): Hop {
  if (route === null) return "primary";
  if (sqls.some(isWrite)) route.onPrimary = true;
  return route.onPrimary ? "primary" : "replica";
}

function database(inner: D1Database | D1DatabaseSession, route: Route | null) {
  return {
    prepare: (sql: string) => new Statement(inner.prepare(sql), sql, route),
    batch: (statements: Statement[]) =>
      roundTrip(
        hopOf(
          route,
          statements.map((s) => (s as unknown as { sql: string }).sql),
        ),
        `batch of ${statements.length}`,
        () => inner.batch(statements.map((s) => s.inner)),
      ),
    exec: (sql: string) => roundTrip("primary", "exec", () => (inner as D1Database).exec(sql)),
    withSession: (constraint?: string) => database((inner as D1Database).withSession(constraint), { onPrimary: constraint === "first-primary" }),
    getBookmark: () => (inner as D1DatabaseSession).getBookmark(),
    dump: () => (inner as D1Database).dump(),
  };
}

/** A Durable Object namespace whose stubs' every method call is a round trip of `hop`. */
function namespace(inner: DurableObjectNamespace, hop: Hop) {
  return new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "get" && property !== "getByName") return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const stub = (value as (...a: unknown[]) => DurableObjectStub).apply(target, args);
        return new Proxy(stub, {
          get(s, method) {
            const member = Reflect.get(s, method, s);
            if (typeof member !== "function") return member;
            return (...a: unknown[]) => roundTrip(hop, String(method), () => Reflect.apply(member, s, a) as Promise<unknown>);
          },
        });
      };
    },
  });
}

function queue(inner: Queue) {
  return {
    send: (body: unknown, options?: QueueSendOptions) => roundTrip("queue", "send", () => inner.send(body, options)),
    sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) =>
      roundTrip("queue", "sendBatch", () => inner.sendBatch(messages, options)),
  };
}

function cache(inner: Cache) {
  return {
    match: (request: RequestInfo, options?: CacheQueryOptions) => roundTrip("cache", "match", () => inner.match(request, options)),
    put: (request: RequestInfo, response: Response) => roundTrip("cache", "put", () => inner.put(request, response)),
    delete: (request: RequestInfo, options?: CacheQueryOptions) => roundTrip("cache", "delete", () => inner.delete(request, options)),
  };
}

const realCaches = (globalThis as unknown as { caches: CacheStorage & { default: Cache } }).caches;
Object.defineProperty(globalThis, "caches", {
  configurable: true,
  value: { default: cache(realCaches.default), open: async (name: string) => cache(await realCaches.open(name)) },
});

const modelled = new WeakMap<Env, Env>();
function withModel(env: Env): Env {
  let wrapped = modelled.get(env);
  if (!wrapped) {
    wrapped = {
      ...env,
      DB: database(env.DB, null) as unknown as D1Database,
      QUOTA: namespace(env.QUOTA as unknown as DurableObjectNamespace, "durable_object") as unknown as Env["QUOTA"],
      ORG_STORE: namespace(env.ORG_STORE as unknown as DurableObjectNamespace, "org_object") as unknown as Env["ORG_STORE"],
      WEBHOOKS: queue(env.WEBHOOKS as Queue) as unknown as Env["WEBHOOKS"],
      JOBS: queue(env.JOBS as Queue) as unknown as Env["JOBS"],
    };
    modelled.set(env, wrapped);
  }
  return wrapped;
}

const worker = createWorker(createApp());

/** `/__latency/count`: every call of the isolate by hop since the last `?reset=1`. */
const COUNT_PATH = "/__latency/count";

export default {
  ...worker,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === COUNT_PATH) {
      const answer = Response.json({ ...totals });
      if (url.searchParams.has("reset")) for (const hop of Object.keys(totals)) delete totals[hop];
      return answer;
    }
    calls = [];
    modelOn = (env as { LATENCY_MODEL?: string }).LATENCY_MODEL !== "off";
    const started = performance.now();
    const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], withModel(env), ctx);
    const answeredAt = performance.now();
    const answer = new Response(response.body, response);
    answer.headers.set(
      "X-Latency-Calls",
      JSON.stringify({ calls: calls.map((c) => ({ ...c, start: c.start - started, end: c.end - started })), answeredAt: answeredAt - started }),
    );
    return answer;
  },
};
