/** The module each line of the unminified bundle belongs to, from esbuild's `// path` comments. */
export function moduleOfLine(bundle: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  for (const [i, text] of bundle.split("\n").entries()) {
    // A worktree whose node_modules links elsewhere names them `../../main/node_modules/…`.
    const match = /^\/\/ (?:\.\.\/[^ ]*?)?((?:node_modules|src|scripts)\/\S+)$/.exec(text);
    if (match) starts.push({ line: i, module: match[1].replace(/^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*/, "$1") });
  }
  return (line) => {
    let found = "(bundle preamble)";
    for (const start of starts) {
      if (start.line > line) break;
      found = start.module;
    }
    return found;
  };
}
