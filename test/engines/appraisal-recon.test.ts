import { beforeAll, describe, expect, it } from "vitest";
import { loadAppraisalReference } from "../../src/db/queries/appraisal";
import { estimateRecon } from "../../src/engines/appraisal/recon";
import type { AppraisalReference } from "../../src/engines/appraisal/types";
import { ORG_WITHOUT_OWN_ROWS, referenceDb } from "../helpers/reference-d1";

/** The shipped keyword and cost tables (migrations), as an organization without its own rows sees them. */
let reference: AppraisalReference;
beforeAll(async () => {
  reference = await loadAppraisalReference(referenceDb(), ORG_WITHOUT_OWN_ROWS);
});

const recon = (notes: string) => {
  const { lines, total } = estimateRecon(notes, reference.reconItems, reference.reconKeywords, []);
  return { ...Object.fromEntries(lines.map((line) => [line.itemKey, line.amount])), total };
};

describe("recon from real trade-in descriptions", () => {
  it.each([
    [
      "Clean interior, non-smoker. Small crack in windshield on passenger side. Couple of door dings on driver side. Brakes recently replaced.",
      { windshield_replacement: 400, door_ding_repair: 225, detail: 200, total: 825 },
    ],
    [
      "Check engine light on. Front bumper scuffed. Smells like smoke. Needs tires.",
      { warning_light_diagnostic: 150, paint_panel: 500, odor_removal: 250, tires_set_of_4: 800, detail: 200, total: 1900 },
    ],
    ["Excellent condition, no dents or scratches, new tires, one owner, garage kept.", { detail: 200, total: 200 }],
    ["No accidents. No rips, stains or tears. Smoke-free and pet-free.", { detail: 200, total: 200 }],
    [
      "Rear bumper has scratches and a dent, windshield chip, pet hair throughout, brakes squeak when stopping.",
      // Scratches and a dent on one bumper: broken paint, so one refinish and no PDR (docs/domain/appraisal.md#one-damage-one-line).
      { windshield_replacement: 400, paint_panel: 500, brakes_pads_rotors: 450, odor_removal: 250, detail: 200, total: 1800 },
    ],
    [
      "Hail damage, about 15 dings on roof and hood. Interior stains on the back seat.",
      // Hail is priced by the panels its sentence names (roof, hood: 2 × $450); its dings are the hail (docs/domain/appraisal.md#hail).
      { hail_damage: 900, interior_repair: 300, detail: 200, total: 1400 },
    ],
    [
      "Tires are bald, ABS light on, cigarette burn in headliner, strong odor. Curb rash on two wheels.",
      { tires_set_of_4: 800, interior_repair: 300, odor_removal: 250, warning_light_diagnostic: 150, wheel_repair: 300, detail: 200, total: 2000 },
    ],
    ["Normal wear and tear for the miles. Runs and drives great.", { detail: 200, total: 200 }],
    ["rock chips on the hood paint, otherwise great shape", { paint_panel: 500, detail: 200, total: 700 }],
    ["Scratches on 3 panels and rust on the rocker", { paint_panel: 2000, detail: 200, total: 2200 }],
    ["Oil change due, TPMS light on. Tires in good shape.", { oil_service: 150, warning_light_diagnostic: 150, detail: 200, total: 500 }],
    // Short keywords (rim, rip, pet) match their plurals too.
    [
      "Two bent rims. Rips in the driver seat. Pets rode in back.",
      { wheel_repair: 300, interior_repair: 300, odor_removal: 250, detail: 200, total: 1050 },
    ],
  ])("%s", (notes, expected) => {
    expect(recon(notes)).toEqual(expected);
  });

  it("prices the detail alone when there are no notes", () => {
    expect(recon("")).toEqual({ detail: 200, total: 200 });
  });
});
