// Starts the Scalar reference (public/docs/scalar.js) on the Worker's own OpenAPI document.
// What would reach another origin is switched off: web fonts, telemetry, the AI agent, MCP (Scalar
// 1.72 still declares its font faces; with withDefaultFonts off nothing uses them, so none is
// fetched). Without a proxyUrl, "Test request" calls the API directly, from this same origin.
// The element is not "#api-reference": Scalar mounts a second, unconfigured reference on that id by
// itself, which showed a loading skeleton above this one.
Scalar.createApiReference("#reference", {
  url: "/api/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  // Scalar shows "Generate MCP" on local origins; it leads to Scalar's hosted service.
  mcp: { disabled: true },
});
