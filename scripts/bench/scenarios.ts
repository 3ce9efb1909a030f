import { BENCH_AREAS } from "./areas";
import type { BenchFixture, Scenario } from "./scenario";
import { BASELINE_ANSWER_PATH, BASELINE_PATH } from "./worker";

/** Every scenario of the bench (and of `npm run profile`): the platform's three, then each area's. */
export function benchScenarios(platform: BenchFixture, areas: BenchFixture): Scenario[] {
  const { key, legacyToken } = platform;
  return [
    { name: "baseline", path: BASELINE_PATH },
    {
      name: "metered_v1",
      path: "/api/v1/inventory",
      headers: { "X-Service-API-Key": key },
      metered: true,
      target: { of: "baseline", ratio: 0.75 },
      alsoOf: "baseline_answer",
    },
    { name: "baseline_answer", path: BASELINE_ANSWER_PATH, copiesAnswerOf: "metered_v1" },
    // The same route without the quota (legacy tokens are not metered): what metering costs.
    { name: "unmetered_v1", path: "/api/v1/inventory", headers: { "X-Api-Token": legacyToken } },
    ...BENCH_AREAS.flatMap((area) => area.scenarios(areas)),
  ];
}
