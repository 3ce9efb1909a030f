import { z } from "@hono/zod-openapi";
import { documentedError } from "../../http/errors";
import { route } from "../../http/route";

const OpenedDemoDataSchema = z
  .object({
    org_id: z.string(),
    reference_date: z.iso.date().openapi({ description: "The day the demo rows are dated from (today, UTC)." }),
    rows: z.record(z.string(), z.int()).openapi({ description: "Rows written to the organization's storage object, by table." }),
  })
  .openapi("OpenedDemoData", {
    example: {
      org_id: "org_summit",
      reference_date: "2026-11-29",
      rows: {
        stores: 2,
        inventory_units: 327,
        unit_market_values: 300,
        deals: 3120,
        deal_stips: 9012,
        lender_decisions: 7311,
        store_lender_panel: 84,
      },
    },
  });

export const openDemoData = route({
  method: "post",
  path: "/api/operator/organizations/{org_id}/demo-data",
  operationId: "operatorOpenDemoData",
  tags: ["Operator"],
  summary: "Open a demo organization's storage object with its demo data",
  description:
    "For the local demo (`npm run dev` calls it for each demo organization once its server answers): opens the organization's empty storage object (docs/scaling.md) with its stores' settings, inventory, market values, deals, stips, lender decisions and lender panels, dated from today, as the seed's D1 rows (`npm run seed`) name them. Only for the demo organizations the seed creates (D1's `is_demo`, not a sandbox: a sandbox is opened when it is created); refused once the object is open, so a second call changes nothing.",
  caller: "operator",
  request: {
    params: z.object({
      org_id: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: "org_id", in: "path" }, example: "org_summit" }),
    }),
  },
  responses: {
    200: { description: "Opened.", content: { "application/json": { schema: OpenedDemoDataSchema } } },
    404: documentedError("No demo organization with that id: none, a live organization or a sandbox (`not_found`)."),
    409: documentedError("Its storage object is open already, its data in (`conflict`)."),
  },
});
