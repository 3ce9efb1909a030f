import { toHex } from "../lib/hex";
import { ApiError } from "./errors";

/**
 * A strong entity tag of a representation: the SHA-256 of its JSON, quoted (RFC 9110 §8.8.3).
 * Equal values give equal tags, so a resource changed and changed back has its old tag again.
 */
export async function entityTag(representation: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(representation)));
  return `"${toHex(digest).slice(0, 32)}"`;
}

/**
 * Whether an `If-Match` header lets a write to a resource whose current tag is `current` go ahead
 * (RFC 9110 §13.1.1): `*`, or a list naming the tag under the strong comparison (a weak `W/` tag
 * never matches).
 */
export function ifMatchAllows(header: string, current: string): boolean {
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  return trimmed.split(",").some((tag) => tag.trim() === current);
}

export const preconditionFailed = (what: string) =>
  new ApiError(
    "precondition_failed",
    `${what} changed since the version your If-Match names; read it again (GET), then send the change with the new ETag.`,
  );
