import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runScheduledJobs, SCHEDULE } from "../../src/jobs";
import { refreshSanctionsList } from "../../src/jobs/refresh-sanctions-list";
import { complianceCheck, realOfacFiles } from "../helpers/compliance";
import { call, createApiKey, createOrg } from "../helpers/factories";

/** The first `n` records of a real file (records end with CR LF). */
const head = (text: string, n: number) => `${text.split("\r\n").slice(0, n).join("\r\n")}\r\n`;

/** The head of OFAC's SDN.XML: the publication's date (MM/DD/YYYY) and entry count, then its first entry. */
const sdnXml = (publishDate: string, recordCount: number) =>
  `<?xml version="1.0" standalone="yes"?>\r\n<sdnList xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">\r\n  <publshInformation>\r\n    <Publish_Date>${publishDate}</Publish_Date>\r\n    <Record_Count>${recordCount}</Record_Count>\r\n  </publshInformation>\r\n  <sdnEntry>\r\n    <uid>36</uid>\r\n${"    <lastName>AEROCARIBBEAN AIRLINES</lastName>\r\n".repeat(2_000)}`;

/** Records in a CSV file (each ends with CR LF). */
const records = (csv: string) => csv.split("\r\n").filter((line) => line !== "").length;

/** OFAC's server: the three CSV files and SDN.XML of the same publication (its date, and sdn.csv's count unless told otherwise). */
function publicationFiles(files: { sdn: string; alt: string; comments: string }, publishDate: string, recordCount = records(files.sdn)) {
  return {
    [env.OFAC_SDN_URL]: files.sdn,
    [env.OFAC_ALT_URL]: files.alt,
    [env.OFAC_COMMENTS_URL]: files.comments,
    [env.OFAC_PUBLICATION_URL]: sdnXml(publishDate, recordCount),
  };
}

function serve(files: { sdn: string; alt: string; comments: string }, options: { status?: number; publishDate?: string; recordCount?: number } = {}) {
  const urls = publicationFiles(files, options.publishDate ?? "11/25/2026", options.recordCount);
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!(url in urls)) return new Response("not found", { status: 404 });
    return new Response(options.status && options.status !== 200 ? "unavailable" : urls[url], { status: options.status ?? 200 });
  });
}

const listInForce = () => env.DB.prepare("SELECT id, version, version_basis, loaded_at, entry_count FROM sanctions_lists").all();

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the daily sanctions-list refresh", () => {
  const real = realOfacFiles();
  const sample = { sdn: head(real.sdn, 600), alt: head(real.alt, 600), comments: real.comments };

  it('runs on its own cron, "30 4 * * *"', () => {
    expect(SCHEDULE["30 4 * * *"].map((job) => job.run)).toContain(refreshSanctionsList);
  });

  it("downloads OFAC's three files and SDN.XML's header, and puts the list in force dated by OFAC's Publish_Date, not the day of the download", async () => {
    const fetchMock = serve(sample, { publishDate: "11/25/2026" });
    await refreshSanctionsList(env, new Date("2026-11-26T04:30:00Z"));
    expect(fetchMock.mock.calls.map(([input]) => String(input)).sort()).toEqual(
      [env.OFAC_ALT_URL, env.OFAC_COMMENTS_URL, env.OFAC_SDN_URL, env.OFAC_PUBLICATION_URL].sort(),
    );
    expect((await listInForce()).results).toEqual([
      expect.objectContaining({ version: "2026-11-25", version_basis: "published", loaded_at: "2026-11-26T04:30:00.000Z", entry_count: 600 }),
    ]);
  });

  it("keeps the last good list when OFAC states no date, or the CSV and XML files are not one publication", async () => {
    const before = (await listInForce()).results;
    serve(sample, { publishDate: "25 Nov 2026" });
    await expect(refreshSanctionsList(env, new Date("2026-11-27T04:30:00Z"))).rejects.toThrow(/no Publish_Date/);
    vi.restoreAllMocks();
    serve(sample, { publishDate: "11/26/2026", recordCount: 601 });
    await expect(refreshSanctionsList(env, new Date("2026-11-27T04:31:00Z"))).rejects.toThrow(/601 entries, sdn.csv holds 600/);
    expect((await listInForce()).results).toEqual(before);
  });

  it("keeps the last good list when a download answers 500", async () => {
    const before = (await listInForce()).results;
    serve(sample, { status: 500 });
    await expect(refreshSanctionsList(env, new Date("2026-11-27T04:30:00Z"))).rejects.toThrow(/500/);
    expect((await listInForce()).results).toEqual(before);
  });

  it("keeps the last good list when a file does not parse", async () => {
    const before = (await listInForce()).results;
    serve({ ...sample, sdn: '<!DOCTYPE html><html><body>"Service unavailable' });
    await expect(refreshSanctionsList(env, new Date("2026-11-28T04:30:00Z"))).rejects.toThrow();
    serve({ ...sample, alt: "12,34\r\n" });
    await expect(refreshSanctionsList(env, new Date("2026-11-28T04:31:00Z"))).rejects.toThrow(/alt\.csv/);
    expect((await listInForce()).results).toEqual(before);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM sanctions_entries").first())?.n).toBe(600);
  });

  it("keeps the last good list when the new one looks truncated", async () => {
    const before = (await listInForce()).results;
    serve({ ...sample, sdn: head(real.sdn, 100) });
    await expect(refreshSanctionsList(env, new Date("2026-11-29T04:30:00Z"))).rejects.toThrow(/truncated/);
    expect((await listInForce()).results).toEqual(before);
  });

  it("replaces the list with a newer one and removes the old rows", async () => {
    const bigger = { ...sample, sdn: head(real.sdn, 900), alt: head(real.alt, 900) };
    serve(bigger, { publishDate: "12/01/2026" });
    await refreshSanctionsList(env, new Date("2026-12-02T04:30:00Z"));
    const { results } = await listInForce();
    expect(results).toEqual([expect.objectContaining({ version: "2026-12-01", entry_count: 900 })]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM sanctions_entries").first())?.n).toBe(900);
    expect((await env.DB.prepare("SELECT count(DISTINCT list_id) AS n FROM sanctions_aliases").first())?.n).toBe(1);
  });
});

describe("the sanctions download failing at each step", () => {
  const real = realOfacFiles();
  const files = { sdn: head(real.sdn, 900), alt: head(real.alt, 900), comments: real.comments };
  const CRON = "30 4 * * *";

  /**
   * OFAC's server as the refresh meets it: each file by URL, `hang` on one never answering (until
   * the job's timeout aborts it) and `reset` on one sending half the file, then breaking the connection.
   */
  function upstream(fault: { url: string; kind: "hang" | "reset" | "status"; status?: number }) {
    const urls = publicationFiles(files, "12/01/2026");
    return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url !== fault.url) return new Response(urls[url]);
      if (fault.kind === "status") return new Response("unavailable", { status: fault.status });
      if (fault.kind === "hang") {
        const signal = init?.signal;
        return new Promise<Response>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
      }
      const half = urls[url].slice(0, urls[url].length / 2);
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(half));
            controller.error(new Error("connection reset"));
          },
        }),
      );
    });
  }

  /** Runs the cron as the scheduler does and returns the job failure it logged. */
  async function runCron(at: string) {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await expect(runScheduledJobs(CRON, env, new Date(at))).rejects.toThrow(AggregateError);
    const logged = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    errors.mockRestore();
    return logged.filter((line) => line.event === "scheduled_job_failed");
  }

  it("a file that never arrives is given up on at the 60 s timeout: logged, and the list in force kept", async () => {
    const before = (await listInForce()).results;
    const realTimeout = AbortSignal.timeout.bind(AbortSignal);
    const timeouts = vi.spyOn(AbortSignal, "timeout").mockImplementation(() => realTimeout(20));
    upstream({ url: env.OFAC_ALT_URL, kind: "hang" });
    expect(await runCron("2026-12-03T04:30:00Z")).toEqual([
      expect.objectContaining({ level: "error", cron: CRON, job: "refresh-sanctions-list", error: "TimeoutError" }),
    ]);
    expect(timeouts).toHaveBeenCalledWith(60_000);
    expect((await listInForce()).results).toEqual(before);
  });

  it.each([
    ["the connection breaking half-way through a file", { kind: "reset" as const }, "Error"],
    ["one file of three answering 503", { kind: "status" as const, status: 503 }, "Error"],
  ])("%s: logged, and the list in force kept", async (_label, fault, error) => {
    const before = (await listInForce()).results;
    upstream({ url: env.OFAC_COMMENTS_URL, ...fault });
    expect(await runCron("2026-12-04T04:30:00Z")).toEqual([expect.objectContaining({ job: "refresh-sanctions-list", error })]);
    expect((await listInForce()).results).toEqual(before);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM sanctions_entries").first())?.n).toBe(900);
  });

  it("a half file is refused as truncated, not loaded: logged, and the list in force kept", async () => {
    const before = (await listInForce()).results;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = input instanceof Request ? input.url : String(input);
      const whole = publicationFiles(files, "12/01/2026")[url];
      // A proxy that stops at a record boundary: the file parses, with a third of its entries.
      return new Response(url === env.OFAC_SDN_URL ? head(real.sdn, 300) : whole);
    });
    expect(await runCron("2026-12-05T04:30:00Z")).toEqual([
      expect.objectContaining({ job: "refresh-sanctions-list", message: expect.stringMatching(/truncated/) }),
    ]);
    expect((await listInForce()).results).toEqual(before);
  });

  it("dealers see the list in force in every check, its age from OFAC's date; past 45 days production refuses to screen", async () => {
    const [inForce] = (await listInForce()).results as { version: string; loaded_at: string }[];
    const { key } = await createApiKey((await createOrg()).id);
    const person = { first_name: "Emily", last_name: "Carter", dob: "1988-04-12", ssn_last4: "4821", address_zip: "78704" };
    const screen = () => call("/api/v1/compliance-check", complianceCheck(key, person));

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse(inForce.version) + 45 * 86_400_000 + 3_600_000);
    expect(await (await screen()).json()).toMatchObject({
      result: "pass",
      screening: {
        list: { version: inForce.version, version_basis: "published", loaded_at: inForce.loaded_at, age_days: 45, max_age_days: 45, stale: false },
      },
    });
    vi.setSystemTime(Date.parse(inForce.version) + 46 * 86_400_000 + 3_600_000);
    const refused = await screen();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      error: "sanctions_list_stale",
      message: expect.stringContaining(`46 days old, published by OFAC on ${inForce.version}`),
    });
  });
});
