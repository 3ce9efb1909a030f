/** What loading a parsed list should do, given the list in force; the refresh job and the operator command share it. */

/** A new list with fewer than this share of the entries in force is taken for a truncated file. */
const MIN_ENTRY_SHARE = 0.5;

class TruncatedListError extends Error {
  constructor(newEntries: number, entriesInForce: number) {
    super(`the new list has ${newEntries} entries against ${entriesInForce} in force; refusing what looks like a truncated file`);
    this.name = "TruncatedListError";
  }
}

/** `renew`: the same files are in force (their age restarts); `load`: put the new list in force. Throws on a truncated list. */
export function planSanctionsLoad(
  inForce: { contentHash: string; entryCount: number } | null,
  incoming: { contentHash: string; entryCount: number },
): "renew" | "load" {
  if (inForce?.contentHash === incoming.contentHash) return "renew";
  if (inForce && incoming.entryCount < inForce.entryCount * MIN_ENTRY_SHARE) throw new TruncatedListError(incoming.entryCount, inForce.entryCount);
  return "load";
}

/** The id a list's rows carry: derived from its content, so the same files always get the same id. */
export const sanctionsListId = (contentHash: string) => `sdn_${contentHash.slice(0, 16)}`;
