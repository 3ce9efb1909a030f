/**
 * What may be logged about an error: its kind and its cause. drizzle wraps driver failures in an
 * error whose message lists the query's bound values (emails, key and session hashes), so for
 * those only the underlying driver error is kept.
 */
export function describeError(error: unknown): { error: string; message?: string } {
  if (!(error instanceof Error)) return { error: "unknown" };
  if (error.message.startsWith("Failed query")) {
    const cause = error.cause instanceof Error ? error.cause : undefined;
    return { error: cause?.name ?? error.name, message: cause?.message };
  }
  return { error: error.name, message: error.message };
}

/** One structured line per event, so logs can be searched by field. */
export function logEvent(level: "info" | "warn" | "error", fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
