/**
 * `npm run test:client-pack`: proves clients/typescript installs like any package. It packs the
 * client (`npm pack`, whose `prepack` builds dist/), installs the tarball into an empty project
 * outside the repository (openapi-fetch must come with it), type-checks an integrator's program
 * there (clients/typescript/pack-check/consumer.ts) under `module`/`moduleResolution: nodenext`
 * with `strict`, with the client's TypeScript 5.9 and the root's TypeScript 7, and runs the
 * compiled program in the repository's Node 24: a call to a local HTTP server, a 401, and
 * webhook signatures checked with `verifyWebhook`.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./lib/repo-root";

const CLIENT_DIR = path.join(REPO_ROOT, "clients/typescript");
const NODE_24 = path.join(REPO_ROOT, "node_modules/.bin/node");
/** The client builds with its own TypeScript (5.9); integrators may be on either major. */
const COMPILERS = {
  "TypeScript 5.9": path.join(path.dirname(createRequire(path.join(CLIENT_DIR, "package.json")).resolve("typescript/package.json")), "bin/tsc"),
  "TypeScript 7": path.join(REPO_ROOT, "node_modules/.bin/tsc"),
};
const EXPECTED_FILES = ["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "dist/webhooks.js"];

// Without npm's own variables (set when this runs under `npm run`), the nested npm sees only the empty project.
const env = { ...process.env };
for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

function step<T>(what: string, action: () => T): T {
  const started = performance.now();
  const result = action();
  console.log(`✓ ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}

const work = mkdtempSync(path.join(tmpdir(), "dealer-intel-client-pack-"));
try {
  const packed = step("npm pack (prepack builds dist/)", () => {
    const [result] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work], CLIENT_DIR)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = result.files.map((file) => file.path);
    const missing = EXPECTED_FILES.filter((file) => !files.includes(file));
    const unexpected = files.filter((file) => !file.startsWith("dist/") && !["package.json", "README.md"].includes(file));
    if (missing.length > 0 || unexpected.length > 0)
      throw new Error(`the tarball lacks ${missing.join(", ") || "nothing"} and has ${unexpected.join(", ") || "nothing else"}`);
    return path.join(work, result.filename);
  });

  const project = path.join(work, "consumer");
  mkdirSync(path.join(project, "src"), { recursive: true });
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: { "@dealer-intel/client": `file:${packed}` } }),
  );
  step("npm install of the tarball into an empty project", () => {
    // The npm cache first (the root install filled it); the registry only for what is not there.
    run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], project);
    const dependency = path.join(project, "node_modules/openapi-fetch/package.json");
    if (!existsSync(dependency)) throw new Error("installing the client did not bring openapi-fetch");
  });

  copyFileSync(path.join(CLIENT_DIR, "pack-check/consumer.ts"), path.join(project, "src/consumer.ts"));
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        lib: ["es2023"],
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        // The client's own declarations are checked too, as a strict integrator's build would.
        skipLibCheck: false,
        // Node's types from the repository, so the empty project needs nothing but the client.
        typeRoots: [path.join(REPO_ROOT, "node_modules/@types")],
        types: ["node"],
        rootDir: "src",
        outDir: "dist",
      },
      include: ["src"],
    }),
  );
  // A type error fails tsc (exit status 2), even though it still emits.
  step("TypeScript 7: the program type-checks under nodenext, strict", () =>
    run(NODE_24, [COMPILERS["TypeScript 7"], "-p", "tsconfig.json", "--noEmit"], project),
  );
  step("TypeScript 5.9: the program type-checks under nodenext, strict, and compiles", () =>
    run(NODE_24, [COMPILERS["TypeScript 5.9"], "-p", "tsconfig.json"], project),
  );
  const output = step("run in plain Node", () => run(NODE_24, ["dist/consumer.js"], project));
  process.stdout.write(output);
  const installed = JSON.parse(readFileSync(path.join(project, "node_modules/@dealer-intel/client/package.json"), "utf8"));
  if (!output.includes(`${installed.name}@${installed.version} on Node v24.`)) throw new Error("the program did not run under Node 24");
} catch (error) {
  const failed = error as Error & { stdout?: string; stderr?: string };
  process.stderr.write(`${failed.stdout ?? ""}${failed.stderr ?? ""}✗ ${failed.message.split("\n")[0]}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
