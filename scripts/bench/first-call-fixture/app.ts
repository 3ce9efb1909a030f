import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";

const organizations = sqliteTable("organizations", { id: text("id").primaryKey(), name: text("name").notNull() });

// A deal-sized body: the fields a deal desk request validates, with bounds.
const FloorBody = z
  .object({
    organization_id: z.string().min(1),
    amount_financed: z.number().positive(),
    term_months: z.int().min(12).max(96),
    credit_score: z.int().min(300).max(850),
    vehicle_year: z.int().min(1981),
    notes: z.string().max(500).optional(),
  })
  .openapi("FloorBody");
const FloorAnswer = z.object({ id: z.string(), name: z.string() }).openapi("FloorAnswer");

const route = createRoute({
  method: "post",
  path: "/floor",
  request: { body: { content: { "application/json": { schema: FloorBody } }, required: true } },
  responses: { 200: { description: "The organization the body names.", content: { "application/json": { schema: FloorAnswer } } } },
});

function build() {
  const app = new OpenAPIHono<{ Bindings: { DB: D1Database } }>();
  app.openapi(route, async (c) => {
    const { organization_id } = c.req.valid("json");
    const row = await drizzle(c.env.DB).select().from(organizations).where(eq(organizations.id, organization_id)).get();
    return c.json({ id: row?.id ?? organization_id, name: row?.name ?? "" }, 200);
  });
  return app;
}

let app: ReturnType<typeof build> | undefined;
export const floorApp = () => (app ??= build());
