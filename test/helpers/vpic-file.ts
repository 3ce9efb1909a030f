import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";

/**
 * The repository's dated copy of the reduced vPIC data (data/vpic/), as its JSON text:
 * vitest.config.ts hands it to the workerd project as a binding. Imports nothing from src/.
 */
export const readVpicDemoText = () => gunzipSync(readFileSync(path.join(import.meta.dirname, "../../data/vpic/vpic-demo.json.gz"))).toString("utf8");
