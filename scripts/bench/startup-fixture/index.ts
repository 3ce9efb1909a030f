// The reference for the start-up budget (scripts/bench/startup.ts): a bare Hono app that validates
// one body with zod, so the budget counts what our Worker adds beyond its framework and validator.
import { Hono } from "hono";
import { z } from "zod";

const Greeting = z.object({ name: z.string().min(1) });

const app = new Hono();
app.post("/", async (c) => c.json({ hello: Greeting.parse(await c.req.json()).name }));

export default app;
