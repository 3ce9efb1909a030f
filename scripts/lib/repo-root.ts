import path from "node:path";

/** Scripts may be started from any directory; paths they read and write are the repository's. */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
