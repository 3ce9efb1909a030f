import type { BatchItem } from "drizzle-orm/batch";
import type { Database, TemplateCall } from "./client";

/** D1 binds at most 100 parameters per statement (a statement over it fails: "too many SQL variables"). */
export const MAX_BOUND_PARAMETERS = 100;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A statement a batch takes: drizzle's, or a built template with its values (src/db/client.ts). */
export type Statement = BatchItem<"sqlite"> | TemplateCall<unknown>;

const isTemplateCall = (statement: Statement): statement is TemplateCall<unknown> => "read" in statement && "params" in statement;

/**
 * One atomic D1 batch of any number of statements (none: nothing to do): one round trip to the
 * primary, whatever it writes. With a built template among them the batch goes through the binding
 * itself: the template's result is what its `read` makes of its rows, a drizzle statement's its
 * rows as D1 gives them.
 */
export async function runBatch(db: Database, statements: Statement[]): Promise<unknown[]> {
  if (!statements.some(isTemplateCall)) {
    const items = statements as BatchItem<"sqlite">[];
    return items.length > 0 ? db.batch(items as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) : [];
  }
  const d1 = db.$client;
  const prepared = statements.map((statement) => {
    const { sql, params } = isTemplateCall(statement) ? statement : (statement as unknown as BuiltStatement).toSQL();
    return d1.prepare(sql).bind(...params);
  });
  const results = await d1.batch(prepared);
  return results.map(({ results: rows }, i) => {
    const statement = statements[i];
    return isTemplateCall(statement) ? statement.read(rows as Record<string, unknown>[]) : rows;
  });
}

/** A drizzle statement, unexecuted: what it runs and binds is known before it runs. */
interface BuiltStatement {
  toSQL(): { sql: string; params: unknown[] };
}

const boundParameters = (statement: BuiltStatement) => statement.toSQL().params.length;
const oneItemTooLarge = (bound: number) => new Error(`One item binds ${bound} parameters; D1 allows ${MAX_BOUND_PARAMETERS} per statement.`);

/**
 * `build` over consecutive parts of `items` (the rows of a multi-row insert, the values of an IN
 * list), each part as large as D1's parameter limit allows. What an item binds, and what the
 * statement binds besides, are measured on the statements drizzle builds for one and two items,
 * so a new column changes the part size with it. Items that bind more than the first (a row with
 * an optional value the first lacks) split their part until it fits.
 */
export function inChunks<Item, Statement extends BuiltStatement>(items: readonly Item[], build: (part: Item[]) => Statement): Statement[] {
  if (items.length === 0) return [];
  const one = boundParameters(build([items[0]]));
  const perItem = boundParameters(build([items[0], items[0]])) - one;
  const fixed = one - perItem;
  const size = perItem === 0 ? items.length : Math.floor((MAX_BOUND_PARAMETERS - fixed) / perItem);
  const fitted = (part: Item[]): Statement[] => {
    const statement = build(part);
    const bound = boundParameters(statement);
    if (bound <= MAX_BOUND_PARAMETERS) return [statement];
    if (part.length === 1) throw oneItemTooLarge(bound);
    const half = Math.ceil(part.length / 2);
    return [...fitted(part.slice(0, half)), ...fitted(part.slice(half))];
  };
  return chunk(items, Math.max(1, size)).flatMap(fitted);
}
