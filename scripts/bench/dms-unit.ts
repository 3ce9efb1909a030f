/**
 * A used Accord as a DMS snapshot lists it (PUT /api/v1/ingest/inventory): the unit the bench,
 * the soak and the scale bench send by the thousand. `n` makes the VIN unique; the price is the
 * list price plus `priceShift`, so a snapshot can change some units' prices.
 */
export function dmsUnit(stockNumber: string, n: number, priceShift = 0) {
  return {
    stock_number: stockNumber,
    vin: `1HGCM82633A${String(n).padStart(6, "0")}`,
    year: 2020 + (n % 5),
    make: "Honda",
    model: "Accord",
    trim: "EX",
    condition: "used",
    vehicle_type: "car",
    mileage: 20_000 + n,
    stocked_on: "2026-10-01",
    cost: 18_000 + n,
    asking_price: 21_000 + n + priceShift,
  };
}
