/**
 * An organization's crossings where its markers are, its object (src/db/org-store.ts
 * `agedAlertStore`, on its alarm): each crossing's marker and its event written in one transaction,
 * a crossing marked already (alerted on an earlier night) skipped, event and all.
 * The stockings it marked.
 */
export interface AgedAlertStore {
  record(
    crossings: readonly {
      stockNumber: string;
      stockedOn: string;
      event: { event: string; orgId: string; storeId: string | null; data: Record<string, unknown> };
    }[],
    at: string,
  ): number;
}
