import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SCHEDULE } from "../../src/jobs";
import { refreshSanctionsList } from "../../src/jobs/refresh-sanctions-list";
import { realOfacFiles } from "../helpers/compliance";

/** The first `n` records of a real file (records end with CR LF). */
const head = (text: string, n: number) => `${text.split("\r\n").slice(0, n).join("\r\n")}\r\n`;

function serve(files: { sdn: string; alt: string; comments: string }, options: { status?: number; lastModified?: string } = {}) {
  const urls = { [env.OFAC_SDN_URL]: files.sdn, [env.OFAC_ALT_URL]: files.alt, [env.OFAC_COMMENTS_URL]: files.comments };
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!(url in urls)) return new Response("not found", { status: 404 });
    const headers = options.lastModified ? { "Last-Modified": options.lastModified } : undefined;
    return new Response(options.status && options.status !== 200 ? "unavailable" : urls[url], { status: options.status ?? 200, headers });
  });
}

const listInForce = () => env.DB.prepare("SELECT id, version, loaded_at, entry_count FROM sanctions_lists").all();

afterEach(() => vi.restoreAllMocks());

describe("the daily sanctions-list refresh", () => {
  const real = realOfacFiles();
  const sample = { sdn: head(real.sdn, 600), alt: head(real.alt, 600), comments: real.comments };

  it('runs on its own cron, "30 4 * * *"', () => {
    expect(SCHEDULE["30 4 * * *"].map((job) => job.run)).toContain(refreshSanctionsList);
  });

  it("downloads OFAC's three files from the configured addresses and puts the list in force, dated by Last-Modified", async () => {
    const fetchMock = serve(sample, { lastModified: "Tue, 25 Nov 2026 15:02:11 GMT" });
    await refreshSanctionsList(env, new Date("2026-11-26T04:30:00Z"));
    expect(fetchMock.mock.calls.map(([input]) => String(input)).sort()).toEqual([env.OFAC_ALT_URL, env.OFAC_COMMENTS_URL, env.OFAC_SDN_URL].sort());
    expect((await listInForce()).results).toEqual([
      expect.objectContaining({ version: "2026-11-25", loaded_at: "2026-11-26T04:30:00.000Z", entry_count: 600 }),
    ]);
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
    serve(bigger, { lastModified: "Mon, 01 Dec 2026 15:00:00 GMT" });
    await refreshSanctionsList(env, new Date("2026-12-02T04:30:00Z"));
    const { results } = await listInForce();
    expect(results).toEqual([expect.objectContaining({ version: "2026-12-01", entry_count: 900 })]);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM sanctions_entries").first())?.n).toBe(900);
    expect((await env.DB.prepare("SELECT count(DISTINCT list_id) AS n FROM sanctions_aliases").first())?.n).toBe(1);
  });
});
