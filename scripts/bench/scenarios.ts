import { BENCH_AREAS } from "./areas";
import { BARE_ANSWER_RATIO, type BenchFixture, bareAnswerOf, type Scenario } from "./scenario";
import { BASELINE_PATH } from "./worker";

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
      // The same answer with its promised headers from a Worker with none of our code (issue 37).
      target: { of: "baseline_answer", ratio: BARE_ANSWER_RATIO },
    },
    { ...bareAnswerOf("metered_v1"), name: "baseline_answer" },
    // The same route without the quota (legacy tokens are not metered): what metering costs.
    { name: "unmetered_v1", path: "/api/v1/inventory", headers: { "X-Api-Token": legacyToken } },
    ...BENCH_AREAS.flatMap((area) => area.scenarios(areas)),
  ];
}
