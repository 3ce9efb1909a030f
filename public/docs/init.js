// Starts the Scalar reference (public/docs/scalar.js) on the Worker's own OpenAPI document.
// What would reach another origin is switched off: web fonts, telemetry, the AI agent (Scalar 1.72
// still emits its font-face rules; the page's CSP blocks those loads). Without a
// proxyUrl, "Test request" calls the API directly, from this same origin.
Scalar.createApiReference("#api-reference", {
  url: "/api/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
});
