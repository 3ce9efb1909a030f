/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { GUIDE_SECTIONS, renderGuides, UNLISTED_GUIDES } from "../../scripts/build-docs-pages.mjs";

const guides = renderGuides();
const idsByPath = new Map(guides.map((g) => [`/docs/guides/${g.route}`, new Set([...g.html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id))]));

/** Why a link to a guide page does not land, or null when it does. */
function brokenReason(target: URL): string | null {
  const ids = idsByPath.get(target.pathname.replace(/\/$/, ""));
  if (!ids) return "no such page";
  const anchor = decodeURIComponent(target.hash.slice(1));
  return anchor && !ids.has(anchor) ? `no heading #${anchor}` : null;
}

describe("every link on the served guides lands", () => {
  it("renders every guide", () => {
    expect(guides.length).toBeGreaterThan(20);
  });

  it("every link between guides reaches a page and, with an anchor, its heading", () => {
    const broken = guides.flatMap(({ route, html }) =>
      [...html.matchAll(/<a href="([^"]*)">/g)].flatMap(([, href]) => {
        if (/^(https?:|mailto:)/.test(href)) return [];
        const target = new URL(href, `http://docs.test/docs/guides/${route}`);
        if (!target.pathname.startsWith("/docs/guides/")) return [];
        const reason = brokenReason(target);
        return reason ? [`${route}: ${href} (${reason})`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("no rendered link still points at a .md file", () => {
    const markdownLinks = guides.flatMap(({ route, html }) =>
      [...html.matchAll(/<a href="([^"]*\.md(?:#[^"]*)?)">/g)].map(([, href]) => `${route}: ${href}`),
    );
    expect(markdownLinks).toEqual([]);
  });
});

describe("the guides index", () => {
  it("places every guide in one section, or among the builders' notes it leaves out, and names no page that does not exist", () => {
    const listed = [...GUIDE_SECTIONS.flatMap((section) => section.routes), ...UNLISTED_GUIDES];
    expect([...listed].sort()).toEqual(guides.map((g) => g.route).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("starts with getting started, whose first call runs against the demo or a sandbox key", () => {
    expect(GUIDE_SECTIONS[0]).toMatchObject({ heading: "Getting started" });
    expect(GUIDE_SECTIONS[0].routes[0]).toBe("getting-started");
  });
});

describe("every guide link in the reference lands", () => {
  // The OpenAPI document's descriptions and the Worker's answers are written in src/.
  const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
  const links = Object.entries(sources).flatMap(([file, text]) =>
    [...text.matchAll(/\/docs\/guides\/[a-z0-9/-]*(?:#[a-z0-9-]+)?/g)].map(([href]) => ({ file, href })),
  );

  it("finds the reference's guide links", () => {
    expect(links.length).toBeGreaterThan(5);
  });

  it("each reaches a page and its heading", () => {
    const broken = links.flatMap(({ file, href }) => {
      if (href === "/docs/guides/") return [];
      const reason = brokenReason(new URL(href, "http://docs.test"));
      return reason ? [`${file}: ${href} (${reason})`] : [];
    });
    expect(broken).toEqual([]);
  });
});
