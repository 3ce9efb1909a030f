/** A guide as served under /docs/guides/: its docs/ file, its route (no extension), title and HTML body. */
export type GuidePage = { file: string; route: string; title: string; html: string };
export function renderGuides(): GuidePage[];
export function buildDocsPages(): number;
export const GUIDE_SECTIONS: { heading: string; routes: string[] }[];
export const UNLISTED_GUIDES: string[];
