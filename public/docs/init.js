// Starts the Scalar reference (public/docs/scalar.js) on the Worker's own OpenAPI document.
// Everything that would reach another origin is off: web fonts, telemetry, the AI agent. Without a
// proxyUrl, "Test request" calls the API directly, from this same origin.
Scalar.createApiReference("#api-reference", {
  url: "/api/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
});
