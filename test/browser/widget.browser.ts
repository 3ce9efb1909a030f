/**
 * `npm run test:browser`: the <dealer-intel-stats> widget and the /docs page in a real browser
 * (Debian's Chromium, driven by playwright-core), against the Worker served by `wrangler dev` with
 * its static assets, embedded in a page of another origin as a marketing site would.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { stopWorker, waitForWorker } from "../../scripts/lib/worker-process";
import { apiKeyDisplayPrefix, generateApiKey, sha256Hex } from "../../src/credentials/tokens";
import { newId } from "../../src/lib/ids";

const ROOT = path.resolve(import.meta.dirname, "../..");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const CHROMIUM = "/usr/bin/chromium";
const API_PORT = 8891;
const SITE_PORT = 8893;
const API = `http://127.0.0.1:${API_PORT}`;
const SITE = `http://127.0.0.1:${SITE_PORT}`;

const persistDir = mkdtempSync(path.join(tmpdir(), "dealer-intel-browser-"));
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", X_LOCAL_OBSERVABILITY: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

function wrangler(args: string[]) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args, "--persist-to", persistDir], {
    cwd: ROOT,
    env: wranglerEnv,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed`);
}

function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  console.log("Installing Debian's chromium (about 2 minutes)…");
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "chromium"]]) {
    const result = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed; install chromium by hand`);
  }
}

/**
 * A dealer's marketing site on another origin, embedding the widget as docs/developer-experience.md
 * shows: `/` with the two lines, `/styled` with the chosen figures, a threshold, the compact format
 * and the page's own CSS for the widget's parts.
 */
function marketingSite(): Promise<Server> {
  const page = (widget: string, style = "") => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Summit Auto</title>
    <style>${style}</style></head><body>
    <h1>Summit Auto</h1>
    ${widget}
    <script src="${API}/embed/stats.js" async></script>
  </body></html>`;
  const pages: Record<string, string> = {
    "/": page(`<dealer-intel-stats refresh="5"></dealer-intel-stats>`),
    "/styled": page(
      `<dealer-intel-stats figures="deals_through_ai, active_rooftops trade_ins organizations_evaluated" hide-below="active_rooftops:10 organizations_evaluated:12345" format="compact"></dealer-intel-stats>`,
      `dealer-intel-stats::part(figure-deals_through_ai) { color: rgb(200, 30, 40); }
       dealer-intel-stats::part(value) { font-size: 40px; }
       dealer-intel-stats::part(label label-organizations_evaluated) { text-transform: uppercase; }`,
    ),
  };
  const server = createServer((req, res) => {
    const html = pages[req.url ?? ""];
    if (html) res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(SITE_PORT, "127.0.0.1", () => resolve(server)));
}

/** Fixed figures large enough to show the compact format, answered as the API would (any origin). */
const FIXED_STATS = {
  demo_sessions: 0,
  organizations_evaluated: 12_345,
  unique_orgs: 12_345,
  deals_through_ai: 1_234_567,
  active_rooftops: 9,
  uptime_pct_90d: 99.95,
  last_updated: "2026-11-26T09:30:00.000Z",
};
const serveFixedStats = (page: Page) =>
  page.route(`${API}/api/public/stats`, (route) => route.fulfill({ json: FIXED_STATS, headers: { "Access-Control-Allow-Origin": "*" } }));

/** The figures as the widget shows them, in display order: `[key, label, value]`. */
const shownFigures = (page: Page) =>
  page
    .locator("dealer-intel-stats")
    .evaluate((widget) =>
      [...(widget.shadowRoot?.querySelectorAll("dd") ?? [])].map((value) => [
        value.dataset.figure,
        value.previousElementSibling?.textContent,
        value.textContent,
      ]),
    );

const figure = (page: Page, key: string) => page.locator(`dealer-intel-stats dd[data-figure="${key}"]`).textContent();

describe("the stats widget and the docs page in Chromium", () => {
  let worker: ChildProcess | undefined;
  let site: Server;
  let browser: Browser;

  before(async () => {
    ensureChromium();
    wrangler(["d1", "migrations", "apply", "DB", "--local"]);
    // One organization that has made calls, so the figures are not all zero. Calls reach the running
    // totals only at the next usage flush, so the test writes its share of them directly.
    const orgId = newId("org");
    const key = generateApiKey();
    wrangler([
      "d1",
      "execute",
      "DB",
      "--local",
      "--command",
      `INSERT INTO organizations (id, name, is_demo) VALUES ('${orgId}', 'Browser Test Motors', 0);
       INSERT INTO stores (id, org_id, name, is_primary, market_zip) VALUES ('${newId("sto")}', '${orgId}', 'North', 1, '78701');
       INSERT INTO api_keys (id, org_id, key_hash, key_prefix, label, permissions, scopes, daily_limit, created_by)
       VALUES ('${newId("key")}', '${orgId}', '${await sha256Hex(key)}', '${apiKeyDisplayPrefix(key)}', 'browser test', '["read"]', NULL, 1000, 'test');
       INSERT INTO org_activity (org_id, last_call_day) VALUES ('${orgId}', date('now'));
       UPDATE platform_rollup SET organizations_evaluated = organizations_evaluated + 1 WHERE id = 1;`,
    ]);
    worker = spawn(
      process.execPath,
      [
        WRANGLER,
        "dev",
        "--port",
        String(API_PORT),
        "--ip",
        "127.0.0.1",
        "--inspector-port",
        "8892",
        "--env-file",
        ".dev.vars.example",
        "--persist-to",
        persistDir,
      ],
      { cwd: ROOT, env: wranglerEnv, stdio: ["ignore", "ignore", "inherit"], detached: true },
    );
    await waitForWorker(worker, `${API}/api/public/stats`);
    // Metered calls of a global endpoint: the organization's storage object is never opened (only its directory rows are written here).
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${API}/api/v1/market-pulse`, { headers: { "X-Service-API-Key": key } })).status, 200);
    site = await marketingSite();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });

  after(async () => {
    await browser?.close();
    site?.close();
    await stopWorker(worker);
    rmSync(persistDir, { recursive: true, force: true });
  });

  it("renders the live figures, accessibly, and refreshes them", async () => {
    const page = await browser.newPage();
    let statsRequests = 0;
    page.on("request", (request) => {
      if (request.url() === `${API}/api/public/stats`) statsRequests++;
    });
    await page.goto(SITE);
    await page.locator("dealer-intel-stats[data-state=live]").waitFor();
    const live = (await (await fetch(`${API}/api/public/stats`)).json()) as Record<string, number>;
    assert.ok(live.organizations_evaluated >= 1);
    assert.equal(await figure(page, "organizations_evaluated"), new Intl.NumberFormat("en-US").format(live.organizations_evaluated));
    assert.equal(await figure(page, "active_rooftops"), String(live.active_rooftops));
    assert.equal(await figure(page, "uptime_pct_90d"), `${live.uptime_pct_90d}%`);
    const region = page.getByRole("region", { name: "Dealer Intelligence platform statistics" });
    assert.equal(await region.getAttribute("aria-busy"), "false");
    assert.match((await page.getByRole("status").textContent()) ?? "", /^Updated /);
    assert.equal(await page.getByRole("definition").count(), 5);
    // refresh="5": a second request within about five seconds.
    const deadline = Date.now() + 12_000;
    while (statsRequests < 2 && Date.now() < deadline) await page.waitForTimeout(250);
    assert.ok(statsRequests >= 2, `expected a refresh, saw ${statsRequests} request(s)`);
    await page.close();
  });

  it("says quietly that the figures are unavailable when the API cannot be reached", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.route(`${API}/api/public/stats`, (route) => route.abort("connectionrefused"));
    await page.goto(SITE);
    await page.locator("dealer-intel-stats[data-state=unavailable]").waitFor();
    assert.equal(await page.getByRole("status").textContent(), "Live platform statistics are unavailable right now.");
    assert.equal(await page.locator("dealer-intel-stats dl").isVisible(), false);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("keeps the last figures, marked not current, when the API goes down after they were shown", async () => {
    const page = await browser.newPage();
    await page.goto(SITE);
    await page.locator("dealer-intel-stats[data-state=live]").waitFor();
    const shown = await figure(page, "organizations_evaluated");
    await page.route(`${API}/api/public/stats`, (route) => route.fulfill({ status: 503, body: "" }));
    await page.locator("dealer-intel-stats[data-state=stale]").waitFor({ timeout: 12_000 });
    assert.equal(await figure(page, "organizations_evaluated"), shown);
    assert.match((await page.getByRole("status").textContent()) ?? "", /\(not current\)$/);
    // An attribute changed now re-renders the figures it still has, and they stay marked not current.
    await page.locator("dealer-intel-stats").evaluate((widget) => widget.setAttribute("figures", "organizations_evaluated"));
    assert.equal(await page.getByRole("definition").count(), 1);
    assert.equal(await figure(page, "organizations_evaluated"), shown);
    assert.equal(await page.locator("dealer-intel-stats").getAttribute("data-state"), "stale");
    assert.match((await page.getByRole("status").textContent()) ?? "", /\(not current\)$/);
    await page.close();
  });

  it("shows the figures a site chooses, in its order, hides one under its minimum, compacts large numbers, and names an unknown figure once", async () => {
    const page = await browser.newPage();
    const warnings: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    await serveFixedStats(page);
    await page.goto(`${SITE}/styled`);
    await page.locator("dealer-intel-stats[data-state=live]").waitFor();
    // figures="deals_through_ai, active_rooftops trade_ins organizations_evaluated"
    // hide-below="active_rooftops:10 organizations_evaluated:12345": 9 rooftops are under 10; 12,345 is not under 12,345.
    assert.deepEqual(await shownFigures(page), [
      ["deals_through_ai", "Deals through AI", "1.2M"],
      ["organizations_evaluated", "Dealer groups evaluating", "12.3K"],
    ]);
    assert.equal(await page.getByRole("definition").count(), 2);
    assert.deepEqual(warnings, [
      '<dealer-intel-stats>: unknown figure "trade_ins" ignored; known: organizations_evaluated, active_rooftops, deals_through_ai, demo_sessions, uptime_pct_90d',
    ]);
    await page.close();
  });

  it("lets the page's CSS style each figure, label and value through ::part", async () => {
    const page = await browser.newPage();
    await serveFixedStats(page);
    await page.goto(`${SITE}/styled`);
    await page.locator("dealer-intel-stats[data-state=live]").waitFor();
    const style = (selector: string, property: string) =>
      page
        .locator(`dealer-intel-stats ${selector}`)
        .evaluate((element, name) => element.ownerDocument.defaultView?.getComputedStyle(element).getPropertyValue(name), property);
    // ::part(figure-deals_through_ai) { color: rgb(200, 30, 40) }, inherited by its label and value.
    assert.equal(await style('[part~="figure-deals_through_ai"]', "color"), "rgb(200, 30, 40)");
    assert.equal(await style('dd[data-figure="deals_through_ai"]', "color"), "rgb(200, 30, 40)");
    assert.notEqual(await style('dd[data-figure="organizations_evaluated"]', "color"), "rgb(200, 30, 40)");
    // ::part(value) { font-size: 40px } reaches every value.
    assert.equal(await style('dd[data-figure="deals_through_ai"]', "font-size"), "40px");
    assert.equal(await style('dd[data-figure="organizations_evaluated"]', "font-size"), "40px");
    // ::part(label label-organizations_evaluated) { text-transform: uppercase } reaches that label only.
    assert.equal(await style('[part~="label-organizations_evaluated"]', "text-transform"), "uppercase");
    assert.equal(await style('[part~="label-deals_through_ai"]', "text-transform"), "none");
    await page.close();
  });

  it("re-renders at once, without another request, when the site changes an attribute", async () => {
    const page = await browser.newPage();
    const warnings: string[] = [];
    const errors: string[] = [];
    let statsRequests = 0;
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("request", (request) => {
      if (request.url() === `${API}/api/public/stats`) statsRequests++;
    });
    await serveFixedStats(page);
    await page.goto(`${SITE}/styled`);
    await page.locator("dealer-intel-stats[data-state=live]").waitFor();
    /** Sets the attributes (null removes one) and reads the figures in the same task: the re-render is synchronous. */
    const change = (attributes: Record<string, string | null>) =>
      page.locator("dealer-intel-stats").evaluate((widget, changes) => {
        for (const [name, value] of Object.entries(changes)) {
          if (name === "page-lang") widget.ownerDocument.documentElement.lang = value ?? "";
          else if (value === null) widget.removeAttribute(name);
          else widget.setAttribute(name, value);
        }
        return [...(widget.shadowRoot?.querySelectorAll("dd") ?? [])].map((value) => [value.dataset.figure, value.textContent]);
      }, attributes);

    // The minimum moved by one either way: 9 rooftops are shown from a minimum of 9, 12,345 organizations hidden at 12,346.
    assert.deepEqual(
      await change({
        figures: "uptime_pct_90d organizations_evaluated active_rooftops",
        "hide-below": "active_rooftops:9, organizations_evaluated: 12346",
      }),
      [
        ["uptime_pct_90d", "99.95%"],
        ["active_rooftops", "9"],
      ],
    );
    assert.deepEqual(await change({ "hide-below": null, format: null }), [
      ["uptime_pct_90d", "99.95%"],
      ["organizations_evaluated", "12,345"],
      ["active_rooftops", "9"],
    ]);
    // All five in the default order; the element's lang, then the page's, sets the number format.
    assert.deepEqual(await change({ figures: null, format: "compact", lang: "de-DE" }), [
      ["organizations_evaluated", "12.345"],
      ["active_rooftops", "9"],
      ["deals_through_ai", "1,2\u00a0Mio."],
      ["demo_sessions", "0"],
      ["uptime_pct_90d", "99,95%"],
    ]);
    assert.deepEqual((await change({ lang: null, "page-lang": "de-DE", format: null }))[2], ["deals_through_ai", "1.234.567"]);
    // A language tag Intl rejects falls back to the browser's language, with one warning.
    assert.equal((await change({ lang: "en_US" })).length, 5);
    assert.equal((await change({ format: "compact" })).length, 5);
    assert.deepEqual(
      warnings.filter((warning) => warning.includes("lang")),
      ['<dealer-intel-stats>: lang "en_US" is not a language tag; using the browser\'s'],
    );
    assert.equal(statsRequests, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("serves /docs with the reference rendered from the Worker's own scripts; nothing reaches another origin", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const reachedElsewhere: string[] = [];
    const consoleProblems: string[] = [];
    page.on("requestfinished", (request) => {
      if (new URL(request.url()).origin !== API) reachedElsewhere.push(request.url());
    });
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") consoleProblems.push(message.text());
    });
    page.on("pageerror", (error) => consoleProblems.push(error.message));
    const response = await page.goto(`${API}/docs`);
    assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
    const title = page.getByRole("heading", { name: "Dealer Intelligence API", level: 1 });
    await title.waitFor({ timeout: 30_000 });
    // What a visitor sees without scrolling: the API's title, how to get a key, and the deal desk's first operations.
    const firstViewport = async (locator: ReturnType<Page["locator"]>) => {
      const box = await locator.boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 800 && box.x >= 0 && box.x + box.width <= 1280;
    };
    assert.ok(await firstViewport(title), "the title is in the first viewport");
    assert.ok(await firstViewport(page.getByRole("heading", { name: "Getting a key" })), "how to get a key is in the first viewport");
    for (const operation of ["Route a deal to the store's best-fitting lenders", "Predict the stips a lender will ask for on a profile"]) {
      assert.ok(await firstViewport(page.getByText(operation).first()), `${operation} is in the first viewport`);
    }
    // One reference: Scalar mounts a second, unconfigured one on an element with id "api-reference".
    assert.equal(await page.locator("[data-v-app]").count(), 1);
    assert.equal(await page.getByText("Loading", { exact: false }).count(), 0);
    await page.waitForTimeout(500);
    assert.deepEqual(consoleProblems, []);
    assert.deepEqual(reachedElsewhere, []);

    // The guides it links are pages this Worker serves.
    const guides = page.locator('a[href^="/docs/guides/"]');
    for (const guide of ["Errors", "Quota and rate-limit headers", "Webhooks", "Versioning"]) {
      const href = await guides
        .filter({ hasText: new RegExp(`^${guide}$`) })
        .first()
        .getAttribute("href");
      assert.ok(href, `the page links the ${guide} guide`);
      const guidePage = await fetch(`${API}${href}`);
      assert.equal(guidePage.status, 200, `${href} is served`);
      assert.match(await guidePage.text(), /<h1[ >]/);
    }
    await guides
      .filter({ hasText: /^Errors$/ })
      .first()
      .click();
    await page.getByRole("heading", { name: "Errors", level: 1 }).waitFor();
    assert.ok(await page.getByRole("link", { name: "the quota guide" }).isVisible());
    await page.close();
  });
});
