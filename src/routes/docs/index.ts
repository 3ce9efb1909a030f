import { CACHE_CONTROL } from "../../http/cache-control";
import { createRouter } from "../../http/router";

/**
 * The interactive reference (Scalar) is a static page: its scripts are Workers Static Assets
 * (public/docs/, copied from node_modules by scripts/copy-docs-assets.ts), so they stay out of the
 * Worker bundle and the page loads nothing from another origin. The policy below makes that a rule.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar (Vue) writes its theme into <style> elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Dealer Intelligence API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <noscript>The interactive reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
    <div id="reference"></div>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

export const docsRouter = createRouter();

docsRouter.get("/docs", (c) =>
  c.html(DOCS_PAGE, 200, { "Content-Security-Policy": DOCS_CONTENT_SECURITY_POLICY, "Cache-Control": CACHE_CONTROL.reference }),
);
