import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./client";

/** D1 binds at most 100 parameters per statement (a statement over it fails: "too many SQL variables"). */
export const MAX_BOUND_PARAMETERS = 100;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * One atomic D1 batch of any number of statements (none: nothing to do). A lone statement runs on
 * its own, atomic anyway, without a batch's bookkeeping (about a tenth of a compliance check's CPU,
 * BENCHMARKS.md "Profiles"); its result is what awaiting it gives, for a RETURNING the same rows.
 */
export async function runBatch(db: Database, statements: BatchItem<"sqlite">[]): Promise<unknown[]> {
  if (statements.length === 1) return [await statements[0]];
  return statements.length > 0 ? db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) : [];
}

/** A drizzle statement, unexecuted: what it binds is known before it runs. */
interface BuiltStatement {
  toSQL(): { params: unknown[] };
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
  const first = build([items[0]]);
  const one = boundParameters(first);
  // One item (an event's outbox row, a check's mark) needs no part size: it fits or nothing does.
  if (items.length === 1) {
    if (one > MAX_BOUND_PARAMETERS) throw oneItemTooLarge(one);
    return [first];
  }
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
