/**
 * `npm run check:patches`: every patch in patches/ applies to a clean copy of the exact version it
 * was made for, and that version is the one package.json and the lockfile pin. The packages are
 * unpacked from npm (its cache after `npm install`) into a temporary project and patched there, so
 * the check sees the published files, never node_modules, which `npm install` has already patched.
 * Our patches only drop re-exports and locales (BENCHMARKS.md, "Patched dependencies"); an upgrade
 * that breaks one fails here, and the pin keeps a fresh install from meeting a version it was not made for.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./lib/repo-root";

const PATCH_DIR = path.join(REPO_ROOT, "patches");
const PATCH_PACKAGE = path.join(path.dirname(createRequire(import.meta.url).resolve("patch-package/package.json")), "index.js");

// Without npm's own variables (set when this runs under `npm run`), the nested npm sees only the temporary project.
const env = { ...process.env };
for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

interface Patched {
  file: string;
  name: string;
  version: string;
}

/** patch-package names a patch `<name>+<version>.patch`, with `+` for the `/` of a scoped name. */
function patchedPackages(): Patched[] {
  return readdirSync(PATCH_DIR)
    .filter((file) => file.endsWith(".patch"))
    .map((file) => {
      const match = /^(.+)\+([^+]+)\.patch$/.exec(file);
      if (!match) throw new Error(`patches/${file} is not named <package>+<version>.patch`);
      return { file, name: match[1].replaceAll("+", "/"), version: match[2] };
    });
}

/** An upgrade must be a deliberate edit of package.json, the lockfile and the patch together. */
function pinProblems({ name, version }: Patched): string[] {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8"));
  const problems: string[] = [];
  const spec = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
  if (spec !== version) problems.push(`package.json asks for ${name} "${spec}": pin it to exactly "${version}"`);
  const root = lock.packages[""];
  const lockSpec = root.dependencies?.[name] ?? root.devDependencies?.[name];
  if (lockSpec !== version) problems.push(`package-lock.json's root asks for ${name} "${lockSpec}", not "${version}"`);
  const locked = lock.packages[`node_modules/${name}`]?.version;
  if (locked !== version) problems.push(`package-lock.json installs ${name} ${locked}, not ${version}`);
  return problems;
}

function main(): void {
  const patched = patchedPackages();
  const problems = patched.flatMap(pinProblems);
  const project = mkdtempSync(path.join(tmpdir(), "patch-check-"));
  try {
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "patch-check", private: true, dependencies: Object.fromEntries(patched.map((p) => [p.name, p.version])) }),
    );
    mkdirSync(path.join(project, "patches"));
    for (const { file, name, version } of patched) {
      const tarball = run("npm", ["pack", `${name}@${version}`, "--prefer-offline", "--silent"], project).trim();
      const target = path.join(project, "node_modules", name);
      mkdirSync(target, { recursive: true });
      run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], project);
      copyFileSync(path.join(PATCH_DIR, file), path.join(project, "patches", file));
    }
    try {
      console.log(run(process.execPath, [PATCH_PACKAGE, "--error-on-fail", "--error-on-warn"], project).trim());
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      problems.push(`a patch does not apply to the clean package:\n${stdout ?? ""}${stderr ?? ""}`);
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    console.error(problems.map((p) => `✘ ${p}`).join("\n"));
    process.exit(1);
  }
  console.log(`✔ ${patched.map((p) => `${p.name}@${p.version}`).join(", ")}: pinned exactly, and each patch applies to the published package`);
}

main();
