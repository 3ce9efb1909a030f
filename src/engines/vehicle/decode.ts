/**
 * Offline VIN decoding from NHTSA's vPIC patterns (docs/appraisal.md#vin-decoding): the WMI names
 * the make and maker, position 10 the model year, and each VIN schema the WMI uses that year
 * matches its patterns against positions 4–8 and 10–17; per element the most specific matching
 * pattern wins. Pure: the rows are read by the caller (src/db/queries/vehicle.ts).
 */
import { checkVin, modelYearOf } from "./vin";

export interface WmiRow {
  wmi: string;
  make: string;
  manufacturer: string;
  vehicleType: string;
  country: string;
}

export interface PatternRow {
  keys: string;
  element: string;
  value: string;
}

type BodyClass = "sedan" | "coupe" | "convertible" | "hatchback" | "wagon" | "suv" | "pickup" | "minivan" | "van";
type FuelType = "gas" | "diesel" | "hybrid" | "plug-in" | "electric" | "flex";

export interface VehicleDecode {
  vin: string;
  modelYear: number | null;
  make: string | null;
  manufacturer: string | null;
  model: string | null;
  trim: string | null;
  series: string | null;
  /** vPIC's body class as published ("Sport Utility Vehicle (SUV)/Multi-Purpose Vehicle (MPV)"). */
  bodyClassName: string | null;
  /** Reduced to the appraisal's words: sedan, coupe, convertible, hatchback, wagon, suv, pickup, minivan, van. */
  bodyClass: BodyClass | null;
  driveType: string | null;
  /** gas, diesel, hybrid, plug-in, electric, flex (gasoline/ethanol); null when vPIC has no fuel for the VIN. */
  fuelType: FuelType | null;
  /** The GVWR class vPIC gives ("Class 2E: 6,001 - 7,000 lb (2,722 - 3,175 kg)"). */
  weightClass: string | null;
  vehicleType: string | null;
  /** What vPIC could not say for this VIN, by field name. */
  missing: string[];
}

const BODY_CLASSES: [RegExp, BodyClass][] = [
  [/pickup/i, "pickup"],
  [/minivan/i, "minivan"],
  [/sport utility|crossover|multi-purpose/i, "suv"],
  [/convertible|cabriolet|roadster/i, "convertible"],
  [/coupe/i, "coupe"],
  [/hatchback|liftback/i, "hatchback"],
  [/wagon/i, "wagon"],
  [/sedan|saloon/i, "sedan"],
  [/van/i, "van"],
];

/** vPIC's fuel words → the appraisal's: an electric secondary fuel on a gasoline primary is a hybrid; PHEV a plug-in. */
function fuelOf(primary: string | undefined, secondary: string | undefined, electrification: string | undefined): FuelType | null {
  if (/phev|plug-in/i.test(electrification ?? "")) return "plug-in";
  if (/bev|battery electric/i.test(electrification ?? "") || /^electric/i.test(primary ?? "")) return "electric";
  if (/hev|hybrid/i.test(electrification ?? "") || /electric/i.test(secondary ?? "")) return "hybrid";
  if (/diesel/i.test(primary ?? "")) return "diesel";
  if (/ethanol|flexible/i.test(`${primary ?? ""} ${secondary ?? ""}`)) return "flex";
  if (/gasoline/i.test(primary ?? "")) return "gas";
  return null;
}

/** A vPIC key as a pattern over VIN positions 4–17 (position 9, the check digit, is the `|`). */
function keyPattern(keys: string): RegExp {
  return new RegExp(`^${keys.replaceAll("*", ".").replace("|", ".")}`);
}

/** Literal characters count more than a class, a class more than `*`: the narrowest pattern wins. */
function specificity(keys: string): number {
  const withoutClasses = keys.replace(/\[[^\]]*\]/g, "");
  const classes = keys.match(/\[[^\]]*\]/g)?.length ?? 0;
  return [...withoutClasses].filter((ch) => ch !== "*" && ch !== "|").length * 2 + classes;
}

/** The decode of a VIN already checked (checkVin), from its WMI row and its schemas' patterns for the year. */
export function decodeVin(vin: string, latestYear: number, wmi: WmiRow | null, patterns: readonly PatternRow[]): VehicleDecode {
  const check = checkVin(vin);
  if (!check.ok) throw new Error(`decodeVin takes a checked VIN: ${check.message}`);
  const tail = check.vin.slice(3);
  const best = new Map<string, { value: string; score: number }>();
  for (const pattern of patterns) {
    if (!keyPattern(pattern.keys).test(tail)) continue;
    const score = specificity(pattern.keys);
    const current = best.get(pattern.element);
    if (!current || score > current.score) best.set(pattern.element, { value: pattern.value, score });
  }
  const get = (element: string) => best.get(element)?.value;
  const bodyClassName = get("body_class") ?? null;
  const decode: VehicleDecode = {
    vin: check.vin,
    modelYear: modelYearOf(check.vin, latestYear),
    // A WMI may carry several makes (1C4: Chrysler, Dodge, Jeep): the model's own make first.
    make: get("make") ?? (wmi?.make || null),
    manufacturer: wmi?.manufacturer ?? null,
    model: get("model") ?? null,
    trim: get("trim") ?? null,
    series: get("series") ?? null,
    bodyClassName,
    bodyClass: bodyClassName ? (BODY_CLASSES.find(([words]) => words.test(bodyClassName))?.[1] ?? null) : null,
    driveType: get("drive_type") ?? null,
    fuelType: fuelOf(get("fuel_primary"), get("fuel_secondary"), get("electrification")),
    weightClass: get("gvwr") ?? null,
    vehicleType: wmi?.vehicleType ?? null,
    missing: [],
  };
  const fields = ["modelYear", "make", "model", "trim", "bodyClass", "driveType", "fuelType", "weightClass"] as const;
  decode.missing = fields.filter((field) => decode[field] === null);
  return decode;
}
