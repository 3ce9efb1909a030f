/**
 * `npm run lint:openapi`: writes the document `GET /api/openapi.json` serves to .openapi/openapi.json,
 * built from the app's own routes (the same `createApp` as production), for `redocly lint`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createApp, openApiDocument } from "../src/app";

const OUT_DIR = path.resolve(import.meta.dirname, "../.openapi");
// The served document names the origin that served it; this file needs one of its own, and the
// linter refuses example.com and localhost.
const ORIGIN = "https://dealer-intelligence-api.workers.dev";

mkdirSync(OUT_DIR, { recursive: true });
const document = createApp().getOpenAPI31Document(openApiDocument(ORIGIN));
writeFileSync(path.join(OUT_DIR, "openapi.json"), `${JSON.stringify(document, null, 2)}\n`);
