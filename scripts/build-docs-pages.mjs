// Renders the guides (docs/*.md, docs/domain/*.md) into public/docs/guides/ (git-ignored), where
// Workers Static Assets serve them at /docs/guides/<name>: the reference page links them, and a
// guide's link to another guide (`quota.md`) becomes a link to that page. Runs on every
// `npm install` (postinstall) and before `npm run dev`, so the served pages follow the files.
// micromark: CommonMark + GFM tables, and raw HTML in a guide is escaped, not passed through.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import GithubSlugger from "github-slugger";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

const root = path.join(import.meta.dirname, "..");
const docsDir = path.join(root, "docs");
const outDir = path.join(root, "public/docs/guides");

/** Guides are every Markdown file of docs/ and one folder below it. */
function guideFiles() {
  const files = [];
  for (const entry of readdirSync(docsDir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".md")) files.push(entry.name);
    if (entry.isDirectory()) {
      for (const name of readdirSync(path.join(docsDir, entry.name))) if (name.endsWith(".md")) files.push(`${entry.name}/${name}`);
    }
  }
  return files.sort();
}

const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A link to another guide keeps working as a page link; a link into the rest of the repository
 * (source files, the README, the CHANGELOG) has no page here, so it stays as its text.
 */
function rewriteLinks(html, file) {
  // Link text may wrap a line in the Markdown, so the text matches across newlines.
  return html.replace(/<a href="([^"]*)">([\s\S]*?)<\/a>/g, (whole, href, text) => {
    if (/^(https?:|mailto:|#|\/)/.test(href)) return whole;
    const guide = href.match(/^([^#]*?)\.md(#.*)?$/);
    const inDocs = guide && !path.posix.normalize(path.posix.join(path.posix.dirname(file), guide[1])).startsWith("..");
    return inDocs ? `<a href="${guide[1]}${guide[2] ?? ""}">${text}</a>` : text;
  });
}

/**
 * Each heading gets the id GitHub gives it (github-slugger is GitHub's algorithm, duplicates
 * numbered), so a `guide.md#heading` link lands on the heading here as it does on GitHub.
 */
function addHeadingIds(html) {
  const slugger = new GithubSlugger();
  return html.replace(/<h([1-6])>([\s\S]*?)<\/h\1>/g, (_, level, inner) => {
    const text = inner
      .replace(/<[^>]*>/g, "")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"');
    return `<h${level} id="${escapeHtml(slugger.slug(text))}">${inner}</h${level}>`;
  });
}

/** Every guide as its served page: its path under /docs/guides/ (no extension), title and HTML body. */
export function renderGuides() {
  return guideFiles().map((file) => {
    const markdown = readFileSync(path.join(docsDir, file), "utf8");
    const title = markdown.match(/^#\s+(.+)$/m)?.[1] ?? file;
    const html = addHeadingIds(rewriteLinks(micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] }), file));
    return { file, route: file.replace(/\.md$/, ""), title, html };
  });
}

function page(title, body, depth) {
  const up = "../".repeat(depth);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Dealer Intelligence API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${up}guides.css">
</head>
<body>
<nav><a href="/docs">API reference</a> · <a href="${up}./">Guides</a></nav>
<main>
${body}
</main>
</body>
</html>
`;
}

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:0 auto;padding:1rem 1.25rem;color:#1b1f24}
nav{margin-bottom:1.5rem;font-size:.9rem}a{color:#0b5cad}code,pre{font:.9em ui-monospace,monospace;background:#f3f4f6}
pre{padding:.75rem;overflow:auto}table{border-collapse:collapse;display:block;overflow:auto}th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left;vertical-align:top}
`;

/** The guides index, in the order an integrator reads: each section lists guides by route. */
export const GUIDE_SECTIONS = [
  { heading: "Getting started", routes: ["getting-started", "sandboxes", "errors", "quota"] },
  {
    heading: "Guides by task",
    routes: [
      "feeds",
      "deal-desk",
      "appraisal",
      "compliance",
      "reports",
      "public",
      "webhooks",
      "ingestion",
      "settings",
      "idempotency",
      "versioning",
      "consistency",
    ],
  },
  {
    heading: "The rules behind each engine",
    routes: [
      "domain/README",
      "domain/lender-routing",
      "domain/stips",
      "domain/deal-math",
      "domain/deal-coach",
      "domain/gross",
      "domain/appraisal",
      "domain/screening",
      "domain/reports",
      "domain/invariants",
    ],
  },
  { heading: "Operations", routes: ["retention", "scaling", "reliability"] },
];
/** Notes for the people who build the service: served (other pages link them) but not in the index. */
export const UNLISTED_GUIDES = ["promises", "developer-experience", "benchmarks-archive-2026-11"];

/** A title as plain text: Markdown's code ticks are for the page, not for a list of titles. */
const plainTitle = (title) => title.replace(/`/g, "");

export function buildDocsPages() {
  rmSync(outDir, { recursive: true, force: true });
  const guides = renderGuides();
  const placed = new Set([...GUIDE_SECTIONS.flatMap((section) => section.routes), ...UNLISTED_GUIDES]);
  const unplaced = guides.filter((guide) => !placed.has(guide.route)).map((guide) => guide.file);
  if (unplaced.length > 0) throw new Error(`build-docs-pages: put ${unplaced.join(", ")} in a GUIDE_SECTIONS section or UNLISTED_GUIDES`);
  for (const { file, route, title, html } of guides) {
    const target = path.join(outDir, `${route}.html`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, page(plainTitle(title), html, file.split("/").length - 1));
  }
  const titles = new Map(guides.map((guide) => [guide.route, plainTitle(guide.title)]));
  const sections = GUIDE_SECTIONS.map(
    ({ heading, routes }) =>
      `<h2>${escapeHtml(heading)}</h2>\n<ul>\n${routes.map((route) => `<li><a href="${route}">${escapeHtml(titles.get(route) ?? route)}</a></li>`).join("\n")}\n</ul>`,
  );
  writeFileSync(path.join(outDir, "guides.css"), STYLE);
  writeFileSync(path.join(outDir, "index.html"), page("Guides", `<h1>Guides</h1>\n${sections.join("\n")}`, 0));
  return guides.length;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`build-docs-pages: ${buildDocsPages()} guides in public/docs/guides/`);
}
