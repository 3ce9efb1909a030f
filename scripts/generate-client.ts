/**
 * `npm run client:generate`: writes the app's OpenAPI document to clients/typescript/openapi.json
 * and regenerates the client's types (clients/typescript/src/schema.d.ts) from it with
 * openapi-typescript. Run it after any route, schema or event documentation changes; a test
 * (clients/typescript/test/generated.test.ts) fails while the committed copy is behind.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createDocumentedApp } from "../src/app";
import { openApiDocument, PUBLISHED_ORIGIN } from "../src/http/openapi";
import { idempotentOperations, idempotentOperationsModule } from "./lib/idempotent-operations";
import { REPO_ROOT } from "./lib/repo-root";

const CLIENT_DIR = path.join(REPO_ROOT, "clients/typescript");
const DOCUMENT_FILE = path.join(CLIENT_DIR, "openapi.json");
const TYPES_FILE = path.join(CLIENT_DIR, "src/schema.d.ts");
const IDEMPOTENT_FILE = path.join(CLIENT_DIR, "src/idempotent-operations.ts");

const document = (await createDocumentedApp()).getOpenAPI31Document(openApiDocument(PUBLISHED_ORIGIN));
writeFileSync(DOCUMENT_FILE, `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(IDEMPOTENT_FILE, idempotentOperationsModule(idempotentOperations(document)));

// openapi-typescript needs TypeScript 5's compiler API, so it lives in the client's workspace
// (with typescript@5) rather than beside the root's TypeScript 7.
const cli = path.join(path.dirname(createRequire(path.join(CLIENT_DIR, "package.json")).resolve("openapi-typescript/package.json")), "bin/cli.js");
const result = spawnSync(
  process.execPath,
  [cli, DOCUMENT_FILE, "--output", TYPES_FILE, "--root-types", "--alphabetize", "--default-non-nullable", "false"],
  {
    stdio: "inherit",
    cwd: CLIENT_DIR,
  },
);
if (result.status !== 0) process.exit(result.status ?? 1);
console.log(
  `${Object.keys(document.paths ?? {}).length} paths, ${Object.keys(document.webhooks ?? {}).length} webhooks → ${path.relative(REPO_ROOT, TYPES_FILE)}`,
);
