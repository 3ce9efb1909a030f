/**
 * How amounts and counts read in every answer: US English through the platform's Intl.NumberFormat,
 * one formatter each, built once per isolate (building one per call is what makes Intl look slow).
 * Rounding is half away from zero, so -$0.50 mirrors $0.50.
 */

const USD = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", trailingZeroDisplay: "stripIfInteger", signDisplay: "negative" });
const USD_CENTS = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", signDisplay: "negative" });
const WHOLE_USD = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0, signDisplay: "negative" });
const COUNT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "$1,234" or "$1,234.50"; "-$80" below zero; "$0" for an amount that rounds to zero cents. */
export const formatUsd = (amount: number) => USD.format(amount);

/** A price per unit, always with cents: "$3.50" a gallon. */
export const formatUsdCents = (amount: number) => USD_CENTS.format(amount);

/** To the dollar: "$1,235" for 1234.5, "-$570" below zero. */
export const formatWholeUsd = (amount: number) => WHOLE_USD.format(amount);

/** A whole count with thousands separators: "12,345" miles. */
export const formatCount = (n: number) => COUNT.format(n);
