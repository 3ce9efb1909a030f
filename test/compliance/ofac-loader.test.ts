import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { OfacFormatError, parseOfacCsv } from "../../src/engines/screening/ofac-csv";
import { demoListLabel, loadDemoListAsLabelled, loadRealList, realSanctionsList } from "../helpers/compliance";

const LOAD_TIMEOUT_MS = 60_000;

async function count(table: string): Promise<number> {
  return ((await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())?.n ?? -1) as number;
}

describe("OFAC CSV format", () => {
  it("reads quoted fields with commas and doubled quotes, -0- as null, CR LF records and the closing 0x1A", () => {
    const text = '36,"AEROCARIBBEAN AIRLINES",-0- ,"CUBA"\r\n306,"BANCO ""NACIONAL"", CUBA",-0- ,"CUBA"\r\n\u001a';
    expect(parseOfacCsv(text)).toEqual([
      ["36", "AEROCARIBBEAN AIRLINES", null, "CUBA"],
      ["306", 'BANCO "NACIONAL", CUBA', null, "CUBA"],
    ]);
  });

  it("keeps a line break inside quotes, reads CR-only records, and refuses an unterminated quote", () => {
    expect(parseOfacCsv('1,"Line one\r\nline two"\r2,-0- \r')).toEqual([
      ["1", "Line one\r\nline two"],
      ["2", null],
    ]);
    expect(() => parseOfacCsv('1,"never closed\r\n2,"x"\r\n')).toThrow(OfacFormatError);
  });
});

describe("loading the real SDN files", () => {
  it("parses every entry, strong alias and date of birth of the dated copy", () => {
    const list = realSanctionsList();
    expect(list.entries).toHaveLength(8976);
    expect(list.entries.filter((e) => e.sdnType === "individual")).toHaveLength(4620);
    expect(list.aliases).toHaveLength(11910);
    expect(list.dobs).toHaveLength(5124);
    expect(list.entries.find((e) => e.entNum === 36)).toEqual({ entNum: 36, name: "AEROCARIBBEAN AIRLINES", sdnType: "entity", programs: "CUBA" });
    // Remarks longer than 1,000 characters continue in sdn_comments.csv; DOBs there are found too.
    expect(list.dobs.filter((d) => d.precision === "day").length).toBeGreaterThan(4000);
  });

  it(
    "writes them to D1 under the list's version, and a second load of the same files only renews the list's age",
    async () => {
      const first = new Date("2026-11-26T04:30:00Z");
      expect((await loadRealList(first)).outcome).toBe("loaded");
      expect([await count("sanctions_entries"), await count("sanctions_aliases"), await count("sanctions_dobs")]).toEqual([8976, 11910, 5124]);
      const list = await env.DB.prepare("SELECT * FROM sanctions_lists").all();
      expect(list.results).toEqual([
        expect.objectContaining({
          version: "2026-11-26",
          version_basis: "published",
          loaded_at: first.toISOString(),
          entry_count: 8976,
          alias_count: 11910,
          dob_count: 5124,
        }),
      ]);

      // A list loaded before its name parts were stored (migration 0044) gets them at its renewal.
      const partsRows = () => env.DB.prepare("SELECT seq, parts FROM sanctions_name_parts ORDER BY seq").all();
      const parts = (await partsRows()).results;
      expect(parts.length).toBeGreaterThan(0);
      await env.DB.prepare("DELETE FROM sanctions_name_parts").run();

      const second = new Date("2026-11-27T04:30:00Z");
      expect((await loadRealList(second)).outcome).toBe("renewed");
      expect((await partsRows()).results).toEqual(parts);
      expect(await count("sanctions_entries")).toBe(8976);
      // The same files again: the load is renewed, and the list is dated as this load states (never by the load).
      expect(await env.DB.prepare("SELECT version, loaded_at FROM sanctions_lists").first()).toEqual({
        version: "2026-11-27",
        loaded_at: second.toISOString(),
      });
      await loadDemoListAsLabelled(second);
      expect(await env.DB.prepare("SELECT version, version_basis FROM sanctions_lists").first()).toEqual({
        version: demoListLabel().version,
        version_basis: "upper_bound",
      });
    },
    LOAD_TIMEOUT_MS,
  );
});
