import { describe, expect, it } from "vitest";
import { BENCH_COVERAGE } from "../../scripts/bench/coverage";
import { latencyEndpoints } from "../../scripts/bench/latency/limits";
import { benchScenarios } from "../../scripts/bench/scenarios";
import { createDocumentedApp } from "../../src/app";
import { openApiDocument, PUBLISHED_ORIGIN } from "../../src/http/openapi";

const METHODS = ["get", "post", "put", "patch", "delete"];
const fixture = { key: "lak_x", legacyToken: "svc_live_x", orgId: "org_x", storeId: "sto_x" };

describe("the benchmarks cover every documented operation (issue 37)", async () => {
  const document = (await createDocumentedApp()).getOpenAPI31Document(openApiDocument(PUBLISHED_ORIGIN));
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const scenarioNames = new Set(benchScenarios(fixture, fixture).map((s) => s.name));

  it("lists every operation of the document, and nothing else", () => {
    expect(Object.keys(BENCH_COVERAGE).sort()).toEqual([...operations].sort());
  });

  it("names only scenarios the bench defines, and every one of them is in the latency table", () => {
    const named = Object.values(BENCH_COVERAGE).flatMap((c) => ("scenarios" in c ? c.scenarios : []));
    for (const name of named) expect(scenarioNames, name).toContain(name);
    const latency = new Set(latencyEndpoints.map((e) => e.scenario));
    // One scenario per endpoint is enough for its round trips; the same endpoint's others add nothing there.
    const endpointsWithScenarios = Object.values(BENCH_COVERAGE).flatMap((c) => ("scenarios" in c ? [c.scenarios] : []));
    for (const scenarios of endpointsWithScenarios)
      expect(
        scenarios.some((s) => latency.has(s)),
        scenarios.join(", "),
      ).toBe(true);
  });
});
