import type { z } from "@hono/zod-openapi";
import { newId } from "../../src/lib/ids";
import type { TradeAppraisalSchema } from "../../src/routes/appraisal/appraisal.routes";
import { call, createDeal, createUnit, type NewDeal, type NewUnit } from "./factories";

export const THIS_YEAR = new Date().getUTCFullYear();

export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

export interface CompUnit {
  year: number;
  make: string;
  model: string;
  trim?: string;
  mileage: number;
  price: number;
  condition?: NewUnit["condition"];
  status?: NewUnit["status"];
  vin?: string;
}

/** A used unit of the organization's inventory (a comparable when in stock). */
export async function createCompUnit(orgId: string, storeId: string, unit: CompUnit) {
  const vin = unit.vin ?? newId("V").slice(0, 17);
  await createUnit(orgId, storeId, {
    vin,
    year: unit.year,
    make: unit.make,
    model: unit.model,
    trim: unit.trim ?? "Base",
    condition: unit.condition ?? "used",
    mileage: unit.mileage,
    stockedOn: daysAgo(20),
    cost: unit.price * 0.85,
    askingPrice: unit.price,
    status: unit.status ?? "in_stock",
  });
  return { vin };
}

/** A sold deal of the organization (a comparable when recent, used and not unwound). */
export async function createCompSale(
  orgId: string,
  storeId: string,
  sale: {
    year: number;
    make: string;
    model: string;
    price: number;
    soldOn: string;
    vin?: string;
    status?: NewDeal["status"];
    condition?: NewDeal["condition"];
  },
) {
  await createDeal(orgId, storeId, {
    soldOn: sale.soldOn,
    status: sale.status ?? "funded",
    vin: sale.vin ?? newId("V").slice(0, 17),
    year: sale.year,
    make: sale.make,
    model: sale.model,
    condition: sale.condition ?? "used",
    sellingPrice: sale.price,
    frontGross: 1500,
    backGross: 1200,
  });
}

/** A data URI whose first bytes are `head`, padded with zero bytes to exactly `totalBytes` (at least the head, rounded up to 3). */
export function photo(mediaType: string, head: number[], totalBytes = 1024): string {
  const headBytes = [...head];
  while (headBytes.length % 3 !== 0) headBytes.push(0);
  const rest = Math.max(0, totalBytes - headBytes.length);
  const tail = ["", "AA==", "AAA="][rest % 3];
  return `data:${mediaType};base64,${btoa(String.fromCharCode(...headBytes))}${"AAAA".repeat(Math.floor(rest / 3))}${tail}`;
}

const ascii = (text: string) => [...text].map((ch) => ch.charCodeAt(0));
export const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, ...ascii("JFIF")];
export const PNG_HEAD = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const WEBP_HEAD = [...ascii("RIFF"), 0x24, 0x00, 0x00, 0x00, ...ascii("WEBPVP8 ")];

export const jpeg = (bytes?: number) => photo("image/jpeg", JPEG_HEAD, bytes);

export function appraise(key: string, body: unknown) {
  return call("/api/v1/trade-appraisal", { method: "POST", key, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** The answer of POST /api/v1/trade-appraisal, as its route declares it. */
export type AppraisalBody = z.infer<typeof TradeAppraisalSchema>;
