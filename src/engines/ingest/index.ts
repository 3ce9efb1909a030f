/**
 * The rules a DMS push is held to before anything is written (docs/ingestion.md), pure: rows in,
 * the problems found out. The service turns a problem into a refusal and writes nothing.
 */

/** A field's problem, as the refusal names it (the path counts rows from 0, as in the JSON array). */
export interface RowProblem {
  path: string;
  code: string;
  message: string;
}

/** A refusal sends at most this many problems: enough to fix a file, not the whole file back. */
const MAX_PROBLEMS = 100;

/** Rows whose key an earlier row has already, with that earlier row's index. */
function repeatedRows<T>(rows: readonly T[], key: (row: T) => string) {
  const seen = new Map<string, number>();
  const repeated: { index: number; key: string; first: number }[] = [];
  rows.forEach((row, index) => {
    const first = seen.get(key(row));
    if (first !== undefined) repeated.push({ index, key: key(row), first });
    else seen.set(key(row), index);
  });
  return repeated;
}

/** Each row's key once per request: a second row with it names the first. */
export function duplicateRows<T>(rows: readonly T[], key: (row: T) => string, listName: string, field: string): RowProblem[] {
  return repeatedRows(rows, key)
    .slice(0, MAX_PROBLEMS)
    .map((r) => ({ path: `${listName}.${r.index}.${field}`, code: "duplicate", message: `Also in row ${r.first}.` }));
}

/**
 * Stips are matched by name, so a name listed twice in one deal has no single state: both rows
 * would be stored and every replay would flip them (and raise an alert every other time).
 */
export function repeatedStips(deals: readonly { stips?: readonly { stip: string }[] }[]): { names: string[]; problems: RowProblem[] } {
  const repeated = deals.flatMap((deal, dealIndex) => repeatedRows(deal.stips ?? [], (s) => s.stip).map((r) => ({ ...r, dealIndex })));
  return {
    names: [...new Set(repeated.map((r) => r.key))],
    problems: repeated.slice(0, MAX_PROBLEMS).map((r) => ({
      path: `deals.${r.dealIndex}.stips.${r.index}.stip`,
      code: "duplicate",
      message: `${r.key} is also stip ${r.first} of this deal.`,
    })),
  };
}

export interface SnapshotSafety {
  /** The caller says an empty snapshot is meant. */
  allowEmpty: boolean;
  /** The number of units the caller expects the snapshot to take out of inventory. */
  confirmRemovals: number | undefined;
}

/**
 * An empty snapshot, or one that takes most of a store out of inventory, is more often a wrong or
 * missing file than a real sale-out: it is applied only when the caller says so (docs/ingestion.md).
 * The problem that refuses it, or null when it may be applied.
 */
export function snapshotRefusal(
  storeId: string,
  listed: number,
  counts: { inStock: number; absent: number },
  safety: SnapshotSafety,
): RowProblem | null {
  const { inStock, absent } = counts;
  const emptyAllowed = listed === 0 && safety.allowEmpty;
  if (listed === 0 && !emptyAllowed) {
    return {
      path: "units",
      code: "empty_snapshot",
      message: `The snapshot lists no units: applied, it would take all ${inStock} units in stock at ${storeId} out of inventory. If the store really has none left, send it again with allow_empty=true; otherwise check the body you sent.`,
    };
  }
  if (safety.confirmRemovals !== undefined && safety.confirmRemovals !== absent) {
    return {
      path: "confirm_removals",
      code: "removals_mismatch",
      message: `confirm_removals=${safety.confirmRemovals}, but this snapshot would take ${absent} of the ${inStock} units in stock at ${storeId} out of inventory. Check the snapshot; if ${absent} is right, send it with confirm_removals=${absent}.`,
    };
  }
  if (absent * 2 > inStock && safety.confirmRemovals === undefined && !emptyAllowed) {
    return {
      path: "confirm_removals",
      code: "removals_unconfirmed",
      message: `This snapshot would take ${absent} of the ${inStock} units in stock at ${storeId} out of inventory, more than half. If that is right, send it again with confirm_removals=${absent}.`,
    };
  }
  return null;
}
