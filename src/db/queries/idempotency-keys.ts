import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../client";
import { idempotencyKeys } from "../schema";

export interface IdempotencyReservation {
  scope: string;
  key: string;
  fingerprint: string;
  requestId: string;
  createdAt: string;
}

/**
 * Reserves the key for this request in one statement: inserted if new, taken over if the row it
 * finds has expired (`expiredBefore`) or was abandoned unanswered (`abandonedBefore`). True when
 * this request holds the key; false when another request's row stands.
 */
export async function reserveIdempotencyKey(
  db: Database,
  reservation: IdempotencyReservation,
  cutoffs: { expiredBefore: string; abandonedBefore: string },
): Promise<boolean> {
  const rows = await db
    .insert(idempotencyKeys)
    .values(reservation)
    .onConflictDoUpdate({
      target: [idempotencyKeys.scope, idempotencyKeys.key],
      set: {
        fingerprint: reservation.fingerprint,
        requestId: reservation.requestId,
        status: null,
        responseHeaders: null,
        responseBodyCiphertext: null,
        createdAt: reservation.createdAt,
        completedAt: null,
      },
      setWhere: or(
        lt(idempotencyKeys.createdAt, cutoffs.expiredBefore),
        and(isNull(idempotencyKeys.status), lt(idempotencyKeys.createdAt, cutoffs.abandonedBefore)),
      ),
    })
    .returning({ requestId: idempotencyKeys.requestId });
  return rows[0]?.requestId === reservation.requestId;
}

export async function findIdempotencyKey(db: Database, scope: string, key: string) {
  const [row] = await db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      status: idempotencyKeys.status,
      responseHeaders: idempotencyKeys.responseHeaders,
      responseBodyCiphertext: idempotencyKeys.responseBodyCiphertext,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)))
    .limit(1);
  return row ?? null;
}

const heldBy = (scope: string, key: string, requestId: string) =>
  and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), eq(idempotencyKeys.requestId, requestId));

/** Stores the answer of the request that holds the reservation. */
export async function completeIdempotencyKey(
  db: Database,
  scope: string,
  key: string,
  requestId: string,
  answer: { status: number; responseHeaders: string; responseBodyCiphertext: string; completedAt: string },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set(answer)
    .where(and(heldBy(scope, key, requestId), isNull(idempotencyKeys.status)));
}

/** Gives the key up (an answer that is not kept), so the next request with it runs anew. */
export async function releaseIdempotencyKey(db: Database, scope: string, key: string, requestId: string): Promise<void> {
  await db.delete(idempotencyKeys).where(heldBy(scope, key, requestId));
}
