import { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";

/**
 * A cursor is opaque to clients (docs/feeds.md#paging; the inventory-alerts report pages the same
 * way, docs/reports.md#paging): base64url JSON naming the list (`feed`), the
 * organization and filters it was made for, and the sort key of the last row served. The query
 * is always scoped by the caller's organization, so a cursor can never reach another
 * organization's rows; one made for another organization or other filters is refused rather
 * than read as a position in a different list.
 */
const CursorSchema = z.object({
  feed: z.enum(["inventory", "sales-summary", "inventory-alerts"]),
  org: z.string(),
  store: z.string().nullable(),
  since: z.string().nullable(),
  after: z.array(z.string()).min(2).max(3),
});

export type FeedCursor = z.infer<typeof CursorSchema>;
type CursorScope = Omit<FeedCursor, "after">;

/** A cursor's text: base64url JSON of what it records (a feed's, or another list's such as the settings audit log). */
export const cursorText = (payload: object): string => Buffer.from(JSON.stringify(payload)).toString("base64url");

export const encodeCursor = (cursor: FeedCursor): string => cursorText(cursor);

/** A 422 naming the `cursor` parameter, as every paged list answers a cursor it cannot continue from. */
export const invalidCursor = (code: string, message: string) =>
  new ApiError("validation_error", "The request query is invalid.", { details: [{ path: "cursor", code, message }] });

/** What a cursor made by `cursorText` records, read by `schema`; any other text is a 422. */
export function readCursor<T>(text: string, schema: z.ZodType<T>): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const parsed = schema.safeParse(decoded);
  if (!parsed.success) {
    throw invalidCursor("invalid_cursor", "Not a cursor this API made: pass `next_cursor` from the previous page unchanged.");
  }
  return parsed.data;
}

/** The position `text` continues from, when it was made by this feed for this organization and filters. */
export function decodeCursor(text: string, scope: CursorScope): string[] {
  const cursor = readCursor(text, CursorSchema);
  if (cursor.feed !== scope.feed || cursor.org !== scope.org || cursor.store !== scope.store || cursor.since !== scope.since) {
    throw invalidCursor(
      "cursor_mismatch",
      "This cursor belongs to another list: use it with the same key's organization, feed, `store_id` and `updated_since` as the page that returned it.",
    );
  }
  return cursor.after;
}
