import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { newId } from "../../src/lib/ids";
import type { TradeAppraisalSchema } from "../../src/routes/appraisal/appraisal.routes";
import { call } from "./factories";

export const THIS_YEAR = new Date().getUTCFullYear();

export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

export interface CompUnit {
  year: number;
  make: string;
  model: string;
  trim?: string;
  mileage: number;
  price: number;
  condition?: "new" | "used" | "cpo";
  status?: "in_stock" | "sold";
  vin?: string;
}

/** A used unit of the organization's inventory (a comparable when in stock). */
export async function createCompUnit(orgId: string, storeId: string, unit: CompUnit) {
  const stockNumber = newId("STK");
  const vin = unit.vin ?? newId("V").slice(0, 17);
  await env.DB.prepare(
    `INSERT INTO inventory_units (id, org_id, store_id, stock_number, vin, year, make, model, trim, condition, vehicle_type, mileage, stocked_on, cost, asking_price, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'car', ?, ?, ?, ?, ?)`,
  )
    .bind(
      newId("unit"),
      orgId,
      storeId,
      stockNumber,
      vin,
      unit.year,
      unit.make,
      unit.model,
      unit.trim ?? "Base",
      unit.condition ?? "used",
      unit.mileage,
      daysAgo(20),
      unit.price * 0.85,
      unit.price,
      unit.status ?? "in_stock",
    )
    .run();
  return { vin };
}

/** A sold deal of the organization (a comparable when recent, used and not unwound). */
export async function createCompSale(
  orgId: string,
  storeId: string,
  sale: { year: number; make: string; model: string; price: number; soldOn: string; vin?: string; status?: string; condition?: string },
) {
  const id = newId("deal");
  await env.DB.prepare(
    `INSERT INTO deals (id, org_id, store_id, deal_number, sold_on, status, vin, year, make, model, condition, vehicle_type, selling_price, front_gross, back_gross)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'car', ?, 1500, 1200)`,
  )
    .bind(
      id,
      orgId,
      storeId,
      id,
      sale.soldOn,
      sale.status ?? "funded",
      sale.vin ?? newId("V").slice(0, 17),
      sale.year,
      sale.make,
      sale.model,
      sale.condition ?? "used",
      sale.price,
    )
    .run();
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
