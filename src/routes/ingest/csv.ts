import { z } from "@hono/zod-openapi";
import Papa from "papaparse";
import { ApiError } from "../../http/errors";
import { validationError } from "../../http/router";
import { IngestDealSchema, IngestInventoryUnitSchema } from "./ingest.routes";

/** The body's format, read: JSON was validated by the route; a CSV body is parsed here and validated the same way. */

const unwrapped = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional || schema instanceof z.ZodDefault ? unwrapped(schema.def.innerType as z.ZodType) : schema;

/** The columns whose cells are numbers: the numeric fields of the route's schemas. */
const NUMERIC_FIELDS = new Set(
  Object.entries({ ...IngestInventoryUnitSchema.shape, ...IngestDealSchema.shape }).flatMap(([field, schema]) =>
    unwrapped(schema) instanceof z.ZodNumber ? [field] : [],
  ),
);

/**
 * CSV cells are text: numeric columns become numbers (a cell that is not a number stays text, so
 * validation names its row and field), empty cells are left out, and a deal's `stips` cell
 * (`name=state;name=state`) becomes the list JSON carries.
 */
function csvRecord(record: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(record)) {
    if (cell === "") continue;
    if (NUMERIC_FIELDS.has(column)) {
      const n = Number(cell);
      out[column] = Number.isFinite(n) ? n : cell;
    } else if (column === "stips") {
      out.stips = cell
        .split(";")
        .filter((pair) => pair.trim() !== "")
        .map((pair) => {
          const [stip, state] = pair.split("=").map((part) => part.trim());
          return { stip, state };
        });
    } else {
      out[column] = cell;
    }
  }
  return out;
}

function parseCsv(body: string): Record<string, unknown>[] {
  // An empty body is a missing body, as for JSON; curl sends one when `--data-binary @file` names no file.
  if (body.replace(/^\ufeff/, "").trim() === "")
    throw new ApiError(
      "invalid_request",
      "The CSV body is empty: send the header row and one row per record (is the file you meant to send there?).",
    );
  // The delimiter is given so Papa Parse never guesses it; any quoting or field-count problem it
  // reports refuses the whole body (it would otherwise recover and keep going).
  const { data, errors, meta } = Papa.parse<Record<string, string>>(body, {
    header: true,
    delimiter: ",",
    skipEmptyLines: true,
    transformHeader: (header) => header.trim(),
    transform: (cell) => cell.trim(),
  });
  const [error] = errors;
  if (error) {
    // Quoting errors carry the offending character's offset; field-count errors the data row (from 0, as in 422 paths).
    const where =
      error.index !== undefined
        ? ` (near line ${body.slice(0, error.index).split("\n").length})`
        : error.row !== undefined
          ? ` (data row ${error.row})`
          : "";
    throw new ApiError("invalid_request", `The CSV body could not be parsed${where}: ${error.message.slice(0, 200)}`);
  }
  // Papa Parse renames a repeated column (`price`, `price_1`) and the schema would drop the copy.
  const repeated = Object.values(meta.renamedHeaders ?? {});
  if (repeated.length > 0)
    throw new ApiError("invalid_request", `The CSV header names a column more than once: ${[...new Set(repeated)].join(", ").slice(0, 200)}.`);
  return data.map(csvRecord);
}

/** The body as the route's schema sees it: JSON was validated by the route; CSV is parsed and validated here, the same way. */
export function readBody<T extends z.ZodType>(schema: T, body: { json: unknown; csv: string | null }, listName: string): z.infer<T> {
  if (body.csv === null) return body.json as z.infer<T>;
  const parsed = schema.safeParse({ [listName]: parseCsv(body.csv) });
  if (!parsed.success) throw validationError(parsed.error, "body");
  return parsed.data;
}
