import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";

const OFAC_DIR = path.join(import.meta.dirname, "../../data/ofac");
const gunzipped = (file: string) => gunzipSync(readFileSync(path.join(OFAC_DIR, file))).toString("utf8");

/**
 * The repository's copy of OFAC's files (data/ofac/: years old, labelled so in VERSION), read from disk: vitest.config.ts hands them to the
 * workerd project as bindings, and the Node project's engine tests parse them directly. It imports
 * nothing from src/: vite loads vitest.config.ts with it, before any test.
 */
export function readOfacFiles() {
  return {
    sdn: gunzipped("sdn.csv.gz"),
    alt: gunzipped("alt.csv.gz"),
    comments: gunzipped("sdn_comments.csv.gz"),
    version: readFileSync(path.join(OFAC_DIR, "VERSION"), "utf8").trim(),
  };
}

/** The published nickname list vendored in data/nicknames/ (the migration writes the same file into D1). */
export const readNicknameCsv = () => readFileSync(path.join(import.meta.dirname, "../../data/nicknames/names.csv"), "utf8");
