/**
 * The VIN check and the offline decode (docs/appraisal.md#vin-decoding), on rows written here: what
 * each vPIC element becomes, without D1.
 */
import { describe, expect, it } from "vitest";
import { decodeVin, type PatternRow } from "../../src/engines/vehicle/decode";
import { checkDigitOf, checkVin, wmiOf } from "../../src/engines/vehicle/vin";

/** A VIN from 16 characters with its check digit put in position 9. */
const withCheck = (draft: string) => `${draft.slice(0, 8)}${checkDigitOf(draft)}${draft.slice(9)}`;

describe("49 CFR 565.15", () => {
  it("writes a remainder of 10 as X, and a VIN carrying it checks", () => {
    // Found by trying position 17 until the weighted sum leaves 10 (mod 11).
    const vin = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
      .map((last) => `1FTFW1E50NFA1234${last}`)
      .find((draft) => checkDigitOf(draft) === "X");
    if (!vin) throw new Error("no draft leaves a remainder of 10");
    const checked = `${vin.slice(0, 8)}X${vin.slice(9)}`;
    expect(checkVin(checked)).toEqual({ ok: true, vin: checked });
  });

  it("takes a small manufacturer's code (a 9 in character 3) as characters 1–3 and 12–14", () => {
    expect(wmiOf(withCheck("1Z9BA1B20KAABC456"))).toBe("1Z9ABC");
    expect(wmiOf(withCheck("SALGS2SE0KA123456"))).toBe("SAL");
  });
});

describe("decode", () => {
  const vin = withCheck("1FT8W3BT0KEC12345");
  const rows = (fuel: string, secondary?: string): PatternRow[] => [
    { keys: "8W3B", element: "model", value: "F-350" },
    { keys: "8W3B", element: "body_class", value: "Pickup" },
    { keys: "8W3B", element: "fuel_primary", value: fuel },
    ...(secondary ? [{ keys: "8W3B", element: "fuel_secondary", value: secondary }] : []),
  ];

  it.each([
    ["Diesel", undefined, "diesel"],
    ["Gasoline", undefined, "gas"],
    ["Gasoline", "Electric", "hybrid"],
    ["Electric", undefined, "electric"],
    ["Gasoline", "Ethanol (E85)", "flex"],
  ])("reads primary fuel %s (secondary %s) as %s", (primary, secondary, fuel) => {
    const decoded = decodeVin(vin, 2027, null, rows(primary, secondary));
    expect(decoded).toMatchObject({ model: "F-350", bodyClass: "pickup", fuelType: fuel });
  });

  it("a WMI the data lacks leaves the make and maker null, listed as missing", () => {
    const decoded = decodeVin(vin, 2027, null, []);
    expect(decoded).toMatchObject({ make: null, manufacturer: null, model: null });
    expect(decoded.missing).toContain("make");
  });
});
