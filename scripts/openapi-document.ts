/**
 * `npm run lint:openapi`: writes the document `GET /api/openapi.json` serves to .openapi/openapi.json,
 * built from the app's own routes (the same app as the one serving it), for `redocly lint`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createDocumentedApp } from "../src/app";
import { openApiDocument, PUBLISHED_ORIGIN } from "../src/http/openapi";

const OUT_DIR = path.resolve(import.meta.dirname, "../.openapi");

mkdirSync(OUT_DIR, { recursive: true });
const document = (await createDocumentedApp()).getOpenAPI31Document(openApiDocument(PUBLISHED_ORIGIN));
writeFileSync(path.join(OUT_DIR, "openapi.json"), `${JSON.stringify(document, null, 2)}\n`);
