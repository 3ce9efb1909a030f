import type { z } from "@hono/zod-openapi";
import type { StipRow } from "../../db/queries/ingest";
import { PIPELINE_STATUSES } from "../../engines/deal-math/vocabulary";
import type { DomainEvent } from "../../events/emit";
import { newId } from "../../lib/ids";
import type { IngestDealSchema } from "./ingest.routes";

type Deal = z.infer<typeof IngestDealSchema>;
/** A deal's stips as stored. */
type StoredStip = { id: string; stip: string; state: string; requestedOn: string; clearedOn: string | null };

/** The stip writes and `deal.stip_alert` events of one deal: new stips, and stips newly cleared. */
export function stipChanges(orgId: string, deal: Deal, stored: readonly StoredStip[], today: string) {
  const rows: StipRow[] = [];
  const events: DomainEvent[] = [];
  const inPipeline = (PIPELINE_STATUSES as readonly string[]).includes(deal.status);
  for (const stip of deal.stips ?? []) {
    const previous = stored.find((s) => s.stip === stip.stip);
    const clearedOn = stip.state === "cleared" ? (stip.cleared_on ?? previous?.clearedOn ?? today) : null;
    const row = {
      id: previous?.id ?? newId("stp"),
      deal_number: deal.deal_number,
      stip: stip.stip,
      state: stip.state,
      requested_on: stip.requested_on ?? previous?.requestedOn ?? today,
      cleared_on: clearedOn,
    };
    if (previous && previous.state === row.state && previous.requestedOn === row.requested_on && previous.clearedOn === row.cleared_on) continue;
    rows.push(row);
    const change = !previous ? "added" : stip.state === "cleared" && previous.state !== "cleared" ? "cleared" : null;
    if (inPipeline && change) {
      events.push({
        event: "deal.stip_alert",
        orgId,
        storeId: deal.store_id,
        data: { deal_number: deal.deal_number, deal_status: deal.status, lender: deal.lender ?? null, stip: stip.stip, change, state: stip.state },
      });
    }
  }
  return { rows, events };
}
