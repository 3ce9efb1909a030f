/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

// Vite reads these at build time: the test sees the files as they are in the repository.
const sources = import.meta.glob("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const pages = import.meta.glob("../../docs/**/*.md", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

const anchorsOf = (markdown: string) => new Set([...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map(([, heading]) => slug(heading)));

describe("src/ cites the rules pages, and only pages that exist", () => {
  const citations = Object.entries(sources).flatMap(([file, text]) =>
    [...text.matchAll(/docs\/((?:domain\/)?[a-z0-9-]+\.md)(?:#([a-z0-9-]+))?/g)].map(([, page, anchor]) => ({ file, page, anchor })),
  );

  it("has citations of docs/domain pages", () => {
    expect(citations.filter((c) => c.page.startsWith("domain/")).length).toBeGreaterThan(50);
  });

  it("every cited page and anchor exists", () => {
    const broken = citations.filter(({ page, anchor }) => {
      const text = pages[`../../docs/${page}`];
      return text === undefined || (anchor !== undefined && !anchorsOf(text).has(anchor));
    });
    expect(broken.map((c) => `${c.file}: docs/${c.page}${c.anchor ? `#${c.anchor}` : ""}`)).toEqual([]);
  });

  it("no source file, guide, README or client file points at the internal notes a cloner does not have", () => {
    const readers = import.meta.glob(["../../README.md", "../../clients/typescript/src/**/*.ts", "../../clients/typescript/README.md"], {
      query: "?raw",
      import: "default",
      eager: true,
    }) as Record<string, string>;
    const internal = Object.entries({ ...sources, ...pages, ...readers }).filter(([, text]) =>
      /\b(DOMAIN|SPEC|DESIGN|PLATFORM|PRODUCT|ROADMAP)(\.md)?\s*§|\b(DOMAIN|SPEC|DESIGN|PLATFORM|PRODUCT|ROADMAP)\.md\b|\/work\/shared/.test(text),
    );
    expect(internal.map(([file]) => file)).toEqual([]);
  });
});
