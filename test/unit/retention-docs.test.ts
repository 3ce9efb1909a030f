import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RETENTION_RULES } from "../../src/db/queries/retention";

const doc = readFileSync(path.join(import.meta.dirname, "../../docs/retention.md"), "utf8");
/** The row of docs/retention.md's table whose first cell names the table. */
const row = (table: string) => doc.split("\n").find((line) => line.startsWith("| ") && line.split("|")[1].includes(`\`${table}\``));

describe("docs/retention.md states what the purge does", () => {
  it.each(RETENTION_RULES.map((rule) => [rule.table, rule.keptDays] as const))(
    "%s: kept %i days, enforced by purge-expired-records",
    (table, days) => {
      const line = row(table);
      expect(line, table).toBeDefined();
      expect(line).toContain(`${days.toLocaleString("en-US")} days`);
      expect(line).toContain("`purge-expired-records`");
    },
  );
});
