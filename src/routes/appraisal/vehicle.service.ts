import type { Database } from "../../db/client";
import { loadVinRows } from "../../db/queries/vehicle";
import { decodeVin, type VehicleDecode } from "../../engines/vehicle/decode";
import { checkVin, modelYearOf, wmiOf } from "../../engines/vehicle/vin";
import { DomainError } from "../../lib/domain-error";
import { TtlCache } from "../../lib/ttl-cache";

/** A VIN decodes the same until the data is reloaded (rarely): each isolate keeps a decode for ten minutes. */
const decodes = new TtlCache<VehicleDecode & { data: { source: string; version: string } }>({ ttlMs: 600_000, maxEntries: 2048 });

/** A checked VIN or a 422 naming what is wrong with it (path `path`). */
function requireVin(input: string, path: string): string {
  const check = checkVin(input);
  if (!check.ok) {
    throw new DomainError("invalid", "The VIN is invalid.", { problems: [{ path, code: check.code, message: check.message }] });
  }
  return check.vin;
}

/** The decode of a valid VIN from the vPIC data in D1 (docs/appraisal.md#vin-decoding). */
export function decodeVehicle(db: Database, vinInput: string, path: string, now: Date) {
  const vin = requireVin(vinInput, path);
  const latestYear = now.getUTCFullYear() + 1;
  return decodes.get(vin, now.getTime(), async () => {
    const rows = await loadVinRows(db, wmiOf(vin), modelYearOf(vin, latestYear));
    if (!rows.version) throw new DomainError("vehicle_data_missing", "No VIN data is loaded in this deployment; VINs cannot be decoded.");
    return { ...decodeVin(vin, latestYear, rows.wmi, rows.patterns), data: { source: rows.version.source, version: rows.version.version } };
  });
}

/** The decode as the API writes it. */
export function toVehicleDecodeBody(decode: Awaited<ReturnType<typeof decodeVehicle>>) {
  return {
    vin: decode.vin,
    model_year: decode.modelYear,
    make: decode.make,
    manufacturer: decode.manufacturer,
    model: decode.model,
    trim: decode.trim,
    series: decode.series,
    body_class: decode.bodyClass,
    body_class_name: decode.bodyClassName,
    drive_type: decode.driveType,
    fuel_type: decode.fuelType,
    weight_class: decode.weightClass,
    vehicle_type: decode.vehicleType,
    missing: decode.missing.map((field) => field.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)),
    data: decode.data,
  };
}
