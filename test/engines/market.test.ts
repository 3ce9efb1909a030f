import { describe, expect, it } from "vitest";
import {
  lenderEnvironmentChange,
  MalformedUpstreamError,
  parseEiaData,
  parseFredObservations,
  type SeriesInfo,
} from "../../src/engines/reports/market";
import { buildMarketPulse } from "../../src/engines/reports/pulse";

const rate = (values: number[]) => values.map((value, i) => ({ date: `2026-0${i + 1}-01`, value }));

describe("lender.environment_change", () => {
  it("is raised once, for a new reading that moved past the threshold over three readings", () => {
    const history = rate([7.59, 7.62, 7.75, 7.9]);
    expect(lenderEnvironmentChange(history, ["2026-04-01"], 0.25)).toMatchObject({ trend: "tightening", change_pts: 0.31, as_of: "2026-04-01" });
    // The same reading on the next night is not new: no second event.
    expect(lenderEnvironmentChange(history, [], 0.25)).toBeNull();
    // The threshold is configurable.
    expect(lenderEnvironmentChange(history, ["2026-04-01"], 0.5)).toBeNull();
    expect(lenderEnvironmentChange(rate([7.9, 7.8, 7.7, 7.6]), ["2026-04-01"], 0.25)).toMatchObject({ trend: "easing", change_pts: -0.3 });
    expect(lenderEnvironmentChange(rate([7.6, 7.65]), ["2026-02-01"], 0.25)).toBeNull();
  });
});

describe("upstream parsers", () => {
  it("reads FRED's string values and skips '.'", () => {
    expect(
      parseFredObservations({
        observations: [
          { date: "2026-10-01", value: "53.6" },
          { date: "2026-09-01", value: "." },
        ],
      }),
    ).toEqual([{ date: "2026-10-01", value: 53.6 }]);
  });

  it("reads EIA values given as numbers or numeric strings", () => {
    const body = {
      response: {
        data: [
          { period: "2026-11-23", series: "EMM_EPMR_PTE_NUS_DPG", value: 3.12 },
          { period: "2026-11-16", value: "3.16" },
        ],
      },
    };
    expect(parseEiaData(body, "EMM_EPMR_PTE_NUS_DPG")).toEqual([
      { date: "2026-11-23", value: 3.12 },
      { date: "2026-11-16", value: 3.16 },
    ]);
  });

  it("refuses bodies without the expected shape or with non-numeric values", () => {
    expect(() => parseFredObservations({ error_code: 400, error_message: "Bad Request." })).toThrow(MalformedUpstreamError);
    expect(() => parseFredObservations({ observations: [{ date: "2026-10-01", value: "n/a" }] })).toThrow(MalformedUpstreamError);
    expect(() => parseEiaData({ error: { code: "API_KEY_INVALID", message: "x" } }, "X")).toThrow(MalformedUpstreamError);
  });
});

describe("market pulse", () => {
  const gas = (id: string, fallbackFor: string | null): SeriesInfo & { fallbackFor: string | null } => ({
    id,
    provider: id === "GASREGW" ? "fred" : "eia",
    name: "U.S. regular gasoline",
    category: "macro",
    unit: "usd_per_gallon",
    frequency: "weekly",
    source: id,
    fallbackFor,
  });

  it("reads gasoline from EIA, and from FRED's mirror when EIA has fallen behind", () => {
    const eia = {
      series: gas("EMM_EPMR_PTE_NUS_DPG", null),
      observations: [
        { date: "2026-11-16", value: 3.16 },
        { date: "2026-11-23", value: 3.12 },
      ],
    };
    const mirror = (observations: { date: string; value: number }[]) => ({ series: gas("GASREGW", "EMM_EPMR_PTE_NUS_DPG"), observations });
    const current = buildMarketPulse([eia, mirror(eia.observations)], [], 0.25);
    expect(current.gasPrice).toMatchObject({ seriesId: "EMM_EPMR_PTE_NUS_DPG", value: 3.12, change: -0.04, favourFuelEfficient: false });
    const behind = buildMarketPulse([eia, mirror([...eia.observations, { date: "2026-11-30", value: 3.55 }])], [], 0.25);
    expect(behind.gasPrice).toMatchObject({ seriesId: "GASREGW", value: 3.55, asOf: "2026-11-30", favourFuelEfficient: true });
  });

  it("has no figures, and no trend, before any reading exists", () => {
    const empty = buildMarketPulse([], [], 0.25);
    expect(empty).toMatchObject({ asOf: null, consumerSentiment: null, gasPrice: null, wholesaleIndex: null, marketAlerts: [] });
    expect(empty.lenderEnvironment).toEqual({ trend: null, changePts: null, thresholdPts: 0.25, rates: [] });
  });
});
