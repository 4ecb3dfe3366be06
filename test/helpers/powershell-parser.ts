import * as path from "path";
import type { Node as TsNode, Parser as TsParser } from "web-tree-sitter";

let parserPromise: Promise<TsParser> | undefined;

/** The tree-sitter PowerShell grammar (wasm), loaded once per test file. */
export function powershellParser(): Promise<TsParser> {
  parserPromise ??= (async () => {
    // Liftoff (V8's baseline wasm compiler) only: otherwise V8 also compiles the 0.9 MB grammar with TurboFan in the
    // background, 9–20 s of CPU per test file that holds the process open after its last test ("A worker process has
    // failed to exit gracefully") and competes with the other worker on 2 cores. Parsing a script takes milliseconds
    // either way. V8 reads the flag when it compiles a module, so setting it here, before the first load, is enough;
    // it affects only the wasm of this jest worker.
    require("v8").setFlagsFromString("--liftoff-only");
    const { Parser, Language } = require("web-tree-sitter") as typeof import("web-tree-sitter");
    await Parser.init();
    const wasm = path.join(
      path.dirname(require.resolve("tree-sitter-powershell/package.json")),
      "tree-sitter-powershell.wasm",
    );
    // Bytes, not a path: given a path, web-tree-sitter reads it through a dynamic import jest cannot run.
    const lang = await Language.load(new Uint8Array(require("fs").readFileSync(wasm)));
    const parser = new Parser();
    parser.setLanguage(lang);
    return parser;
  })();
  return parserPromise;
}

/**
 * Calls `visit` on every node of a script's syntax tree, parents first; false when the parser returned no tree. A
 * tree lives in the wasm module's memory until deleted (web-tree-sitter's Tree.delete), and wasm memory never
 * shrinks: undeleted, every parse stayed resident for the rest of the test file (200 parses of a 60 kB script:
 * +760 MB), growing the jest worker.
 */
async function visitTree(script: string, visit: (n: TsNode) => void): Promise<boolean> {
  const tree = (await powershellParser()).parse(script);
  if (!tree) return false;
  const walk = (n: TsNode) => {
    visit(n);
    for (const c of n.children) if (c) walk(c);
  };
  try {
    walk(tree.rootNode);
  } finally {
    tree.delete();
  }
  return true;
}

/** Every ERROR or MISSING node in a script, with its line and text, empty when the script parses cleanly. */
export async function powershellErrors(script: string): Promise<string[]> {
  const out: string[] = [];
  const parsed = await visitTree(script, (n) => {
    if (n.type === "ERROR" || n.isMissing)
      out.push(
        `line ${n.startPosition.row + 1}: ${n.isMissing ? `missing ${n.type}` : `cannot parse ${JSON.stringify(n.text.slice(0, 80))}`}`,
      );
  });
  return parsed ? out : ["the parser returned no tree"];
}

/** The keyword of every flow-control statement in a script (`exit`, `return`, `break`, `throw`, …), in order. */
export async function flowControlKeywords(script: string): Promise<string[]> {
  const out: string[] = [];
  await visitTree(script, (n) => {
    if (n.type === "flow_control_statement") out.push(n.text.split(/\s/)[0].toLowerCase());
  });
  return out;
}
