import type { BenchArea, Target } from "../scenario";

/** The embeds against the bare Worker (issue 6). */
const EMBED_TARGET: Target = { of: "baseline", ratio: 0.8 };

/**
 * The embeds marketing sites load: no credential, and answered from the shared copy (at most 60 s
 * old) almost every time. The feed gets a full page of entries, as in production.
 */
export const publicArea: BenchArea = {
  name: "public",
  async seed(db) {
    await db.batch(
      Array.from({ length: 20 }, (_, i) =>
        db
          .prepare(
            "INSERT INTO market_feed_entries (id, category, signal, severity, source, date, refreshed_at) VALUES (?, 'lender_environment', ?, 'medium', 'FRED', ?, '2026-11-25T05:00:00.000Z')",
          )
          .bind(`mfe_bench_${i}`, `Bench signal ${i}: captive lenders tightened tier-3 advances`, `2026-11-${String(i + 1).padStart(2, "0")}`),
      ),
    );
  },
  scenarios: () => [
    { name: "public_stats", path: "/api/public/stats", manyClients: true, target: EMBED_TARGET },
    { name: "public_moat", path: "/api/moat/public", manyClients: true, target: EMBED_TARGET },
    // No credential, one trivial D1 query per call: what an uptime monitor pays.
    { name: "health", path: "/health", manyClients: true },
  ],
};
