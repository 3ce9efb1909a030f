import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A business fact is defined once (issue 36): each pattern below is the fact written out as a
 * literal, allowed in its owner only. A second copy fails here, not in a review.
 */
const SRC = path.join(import.meta.dirname, "../../src");
const sources = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((file) => file.endsWith(".ts"))
  .map((file) => ({ file: file.split(path.sep).join("/"), text: readFileSync(path.join(SRC, file), "utf8") }));

const FACTS: { fact: string; pattern: RegExp; owner: string }[] = [
  { fact: "the deal pipeline statuses", pattern: /"pending",\s*"submitted",\s*"approved"/, owner: "engines/deal-math/vocabulary.ts" },
  { fact: "the loan terms a desk quotes", pattern: /24,\s*36,\s*48,\s*60,\s*72,\s*84/, owner: "engines/deal-coach/index.ts" },
  // The used front-gross target is the store setting; its default is the column's (src/db/schema/platform.ts).
  { fact: "the used front-gross target's 8%", pattern: /targetPct:\s*8\b|\* 0\.08\b|USED_TARGET/, owner: "" },
  { fact: "the used front-gross target's $1,200", pattern: /minAmount:\s*1200|\b1_?200\b.*(?:target|TARGET)/, owner: "" },
  { fact: "sendBatch's 100-message limit", pattern: /SEND_BATCH_MAX\s*=/, owner: "events/messages.ts" },
  { fact: "a day in milliseconds", pattern: /24\s*\*\s*60\s*\*\s*60\s*\*\s*1000|86_?400_?000/, owner: "engines/dates/index.ts" },
];

describe("a business fact is defined once", () => {
  it.each(FACTS)("$fact: only in $owner", ({ pattern, owner }) => {
    const holders = sources.filter((s) => pattern.test(s.text)).map((s) => s.file);
    expect(holders).toEqual(owner === "" ? [] : [owner]);
  });
});
