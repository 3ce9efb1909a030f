/**
 * `npm run lint:openapi`: writes the document `GET /api/openapi.json` serves to .openapi/openapi.json,
 * built from the app's own routes (the same `createApp` as production), for `redocly lint`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createApp } from "../src/app";
import { openApiDocument, PUBLISHED_ORIGIN } from "../src/http/openapi";

const OUT_DIR = path.resolve(import.meta.dirname, "../.openapi");

mkdirSync(OUT_DIR, { recursive: true });
const document = createApp().getOpenAPI31Document(openApiDocument(PUBLISHED_ORIGIN));
writeFileSync(path.join(OUT_DIR, "openapi.json"), `${JSON.stringify(document, null, 2)}\n`);
