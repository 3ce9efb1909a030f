// Copies the Scalar reference bundle from node_modules into public/docs/ (git-ignored), where
// Workers Static Assets serve it at /docs/scalar.js. Runs on every `npm install` (postinstall),
// so a fresh clone has it before `npm run dev`, `npm test` or a deploy.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";

const root = path.join(import.meta.dirname, "..");
const source = path.join(root, "node_modules/@scalar/api-reference/dist/browser/standalone.js");
const target = path.join(root, "public/docs/scalar.js");

if (!existsSync(source)) {
  console.error(`copy-docs-assets: ${source} is missing; run npm install`);
  process.exit(1);
}
mkdirSync(path.dirname(target), { recursive: true });
copyFileSync(source, target);
