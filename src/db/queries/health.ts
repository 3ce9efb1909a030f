/** True when the database answers a trivial query; the health check's only question to it. */
export async function databaseAnswers(d1: D1Database): Promise<boolean> {
  try {
    return (await d1.prepare("SELECT 1 AS ok").first<{ ok: number }>())?.ok === 1;
  } catch {
    return false;
  }
}
