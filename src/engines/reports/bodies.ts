/**
 * The reports' JSON bodies (snake_case, as documented in the OpenAPI schemas). A briefing is
 * stored in this form, so the nightly job and the on-request build store the same thing.
 */

import { staleWarnings } from "../freshness";
import type { AlertReport, InventoryAlert } from "./alerts";
import type { Briefing } from "./briefings";
import type { MarketPulse, PulseFigure } from "./pulse";

function alertBody(a: InventoryAlert) {
  return {
    stock_no: a.stockNumber,
    store_id: a.storeId,
    year: a.year,
    make: a.make,
    model: a.model,
    condition: a.condition,
    days_on_lot: a.daysOnLot,
    owner: a.owner,
    aged_threshold_days: a.agedThresholdDays,
    list_price: a.listPrice,
    market_value: a.marketValue,
    market_value_source: a.marketValueSource,
    alert_type: a.alertType,
    conditions: a.conditions,
    recommendation: a.recommendation,
    action: a.action,
    recommended_price: a.recommendedPrice,
    wholesale_est: a.wholesaleEst,
    exposure_usd: a.exposureUsd,
  };
}

export function alertReportBody(report: AlertReport) {
  return {
    alerts: report.alerts.map(alertBody),
    total_aged_units: report.totalAgedUnits,
    total_aged_exposure_usd: report.totalAgedExposureUsd,
  };
}

export function briefingBody(b: Briefing) {
  return {
    role: b.role,
    store_id: b.storeId,
    generated_at: b.generatedAt,
    alerts: b.alerts.map(alertBody),
    total_aged_units: b.totalAgedUnits,
    total_aged_exposure_usd: b.totalAgedExposureUsd,
    sections: b.sections,
    data_as_of: b.dataAsOf,
    data_warnings: staleWarnings(b.dataAsOf),
  };
}

export type BriefingBody = ReturnType<typeof briefingBody>;

function figureBody(f: PulseFigure) {
  return {
    series_id: f.seriesId,
    name: f.name,
    unit: f.unit,
    value: f.value,
    change: f.change,
    prior_as_of: f.priorAsOf,
    as_of: f.asOf,
    source: f.source,
    demo: f.demo,
  };
}

export function pulseBody(p: MarketPulse) {
  const env = p.lenderEnvironment;
  return {
    as_of: p.asOf,
    consumer_sentiment: p.consumerSentiment && { ...figureBody(p.consumerSentiment), reading: p.consumerSentiment.reading },
    gas_price: p.gasPrice && { ...figureBody(p.gasPrice), favour_fuel_efficient: p.gasPrice.favourFuelEfficient },
    lender_environment: { trend: env.trend, change_pts: env.changePts, threshold_pts: env.thresholdPts, rates: env.rates.map(figureBody) },
    wholesale_index: p.wholesaleIndex && figureBody(p.wholesaleIndex),
    market_alerts: p.marketAlerts,
  };
}
