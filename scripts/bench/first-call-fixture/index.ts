// The framework's floor of a first call (scripts/bench/latency): hono, @hono/zod-openapi, zod and
// drizzle with none of our code. It loads them on its first request, as our route areas are loaded
// (src/app.ts), then builds one route that validates a body and reads one D1 row.
export default {
  async fetch(request: Request, env: { DB: D1Database }, ctx: ExecutionContext) {
    const { floorApp } = await import("./app");
    return floorApp().fetch(request, env, ctx);
  },
};
