import { BARE_ANSWER_RATIO, type BenchArea, bareAnswerOf } from "../scenario";

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
    // Each against its own answer (body and promised headers) served by a bare Worker (issue 37).
    { name: "public_stats", path: "/api/public/stats", manyClients: true, target: { of: "public_stats_bare_answer", ratio: BARE_ANSWER_RATIO } },
    bareAnswerOf("public_stats"),
    { name: "public_moat", path: "/api/moat/public", manyClients: true, target: { of: "public_moat_bare_answer", ratio: BARE_ANSWER_RATIO } },
    bareAnswerOf("public_moat"),
    // No credential, one trivial D1 query per call: what an uptime monitor pays.
    { name: "health", path: "/health", manyClients: true },
  ],
};
