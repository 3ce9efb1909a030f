/**
 * What a key's quota counter has been told about the key: its end (a revocation, or a rotation's
 * overlap running out) and its organization's suspension. Every lease answer carries it, so an
 * isolate that read the key at a lagging D1 replica still refuses a revoked key from the answer of
 * its first lease on (docs/consistency.md). No clock, no storage: times are passed in.
 */

export type KeyEndReason = "revoked" | "rotated";

export interface KeyStanding {
  /** From this instant (ms) the key is refused; the earliest end the counter was told. */
  end: { atMs: number; reason: KeyEndReason } | null;
  /** The organization's suspension time (ISO-8601 UTC), null while in standing. */
  suspendedAt: string | null;
}

export const IN_STANDING: KeyStanding = { end: null, suspendedAt: null };

export type Refusal = KeyEndReason | "suspended";

/** Why a request made at `nowMs` is refused, or null. An end wins over a suspension: a revoked key stays revoked when reinstated. */
export function refusalOf(standing: KeyStanding, nowMs: number): Refusal | null {
  if (standing.end !== null && standing.end.atMs <= nowMs) return standing.end.reason;
  return standing.suspendedAt === null ? null : "suspended";
}

/** A key ends once: the earliest end told stands (a revocation during a rotation's overlap brings the end forward). */
export function withEnd(standing: KeyStanding, end: { atMs: number; reason: KeyEndReason }): KeyStanding {
  if (standing.end !== null && standing.end.atMs <= end.atMs) return standing;
  return { ...standing, end };
}
