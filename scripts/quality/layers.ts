/**
 * Checks that the layers go one way (docs/architecture.md, CONTRIBUTING.md): `facts/` imports nothing of ours,
 * `stacks/` (config) and `providers/` import only `lib/` and `facts/`, `components/` use both, `library/`, `program.ts`
 * and `index.ts` sit on top, and the tools (`scripts/`, `lab/`, `bench/`, `policy/`, `examples/`) beside them; and that
 * no two non-test modules import each other, directly or round a longer cycle. Imports are read with the TypeScript
 * compiler's parser and resolved as `tsc` resolves them: `import`, `export … from`, `import x = require()`, `import()`
 * and `require()`, type-only ones included (a type is a dependency on the layer that defines it).
 * `npm run layers` prints each violation as `file -> imported file (rule)`; `.ci/run` runs it with `--check`.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { execFileSync } from "child_process";
import { checkOptions } from "./cli";

/** Each layer and the layers it may import (its own always). A module outside every layer is itself a violation. */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  lib: [],
  facts: [],
  stacks: ["lib", "facts"],
  providers: ["lib", "facts"],
  components: ["lib", "facts", "stacks", "providers"],
  library: ["lib", "facts", "stacks", "providers", "components"],
  program: ["lib", "facts", "stacks", "providers", "components", "library"],
  index: ["lib", "program"],
  // Beside the program, on top: what runs the program, the lab, the benchmarks and the policy pack. `test` is here
  // because bench/ reuses the test lab's helpers.
  tools: ["lib", "facts", "stacks", "providers", "components", "library", "program", "tools"],
};

const TOOLS = new Set(["scripts", "lab", "bench", "policy", "examples", "test"]);

/** The layer of a repository-relative path: its top folder, or `program`/`index` for the two files at the root. */
export function layerOf(file: string): string | undefined {
  const top = file.split("/")[0];
  if (file === "program.ts") return "program";
  if (file === "index.ts") return "index";
  if (TOOLS.has(top)) return "tools";
  return file.includes("/") && top in LAYERS ? top : undefined;
}

export interface Violation {
  file: string;
  imported: string;
  rule: string;
}

/** The module specifiers one file names: static and dynamic imports, re-exports, `require()`. */
export function specifiersOf(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      if (ts.isStringLiteral(n.moduleSpecifier)) out.push(n.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(n) &&
      ts.isExternalModuleReference(n.moduleReference) &&
      ts.isStringLiteral(n.moduleReference.expression)
    ) {
      out.push(n.moduleReference.expression.text);
    } else if (ts.isCallExpression(n) && n.arguments.length === 1 && ts.isStringLiteral(n.arguments[0])) {
      const callee = n.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require"))
        out.push(n.arguments[0].text);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      out.push(n.argument.literal.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The import graph of `files` (repository-relative, under `root`): each file and the files of ours it imports.
 * Packages and files outside `files` (JSON, node_modules) are left out.
 */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const ours = new Set(files);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    allowJs: true,
    resolveJsonModule: true,
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const abs = path.join(root, file);
    const targets = new Set<string>();
    for (const spec of specifiersOf(file, fs.readFileSync(abs, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const resolved = ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule?.resolvedFileName;
      const rel = resolved && path.relative(root, resolved).split(path.sep).join("/");
      if (rel && ours.has(rel) && rel !== file) targets.add(rel);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every import against the layers, and every cycle (each reported once, at its edge back to where it began). */
export function layerViolations(graph: ReadonlyMap<string, readonly string[]>): Violation[] {
  const out: Violation[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (from === undefined) {
      out.push({ file, imported: "-", rule: `in no layer: place its folder in scripts/quality/layers.ts LAYERS` });
      continue;
    }
    for (const imported of targets) {
      const to = layerOf(imported);
      if (to === undefined || to === from) continue;
      if (!LAYERS[from].includes(to))
        out.push({
          file,
          imported,
          rule:
            from === "facts"
              ? "facts imports nothing of ours"
              : `${from} may import only ${LAYERS[from].join(", ") || "nothing of ours"}, not ${to}`,
        });
    }
  }
  return [...out, ...cycles(graph)];
}

/** Import cycles by Tarjan's strongly connected components; one violation per cycle found, naming its members. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): Violation[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const strong = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
        onStack.delete(w);
        c.push(w);
      }
      if (c.length > 1) components.push(c);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
  return components.map((c) => {
    const members = new Set(c);
    const path = cyclePath(graph, members, [...c].sort()[0]);
    return {
      file: path[path.length - 1],
      imported: path[0],
      rule: `import cycle: ${[...path, path[0]].join(" -> ")}${c.length > path.length ? ` (and ${c.length - path.length} more modules in it)` : ""}`,
    };
  });
}

/** A shortest path round one cycle through `start`, within one strongly connected component (breadth first). */
function cyclePath(graph: ReadonlyMap<string, readonly string[]>, members: Set<string>, start: string): string[] {
  const back = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() ?? start;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const p = [v];
        while (p[0] !== start) p.unshift(back.get(p[0]) ?? start);
        return p;
      }
      if (!back.has(w)) {
        back.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** The non-test TypeScript modules git knows of: test/ and declaration files left out. */
export function moduleFiles(root: string): string[] {
  return execFileSync("git", ["ls-files", "*.ts"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && !f.startsWith("test/") && !f.endsWith(".test.ts") && !f.endsWith(".d.ts"));
}

const HELP = `npm run layers -- [--check]

Reads the imports of the project's non-test TypeScript (git ls-files) with the TypeScript compiler and prints each
import against the layers (lib, facts <- stacks <- components -> providers; library, program.ts, index.ts on top;
scripts, lab, bench, policy, examples beside them) and each import cycle, as \`file -> imported file (rule)\`.

Options:
  --check      fail when there is any (what .ci/run runs)
  -h, --help   this text

Exit codes: 0 none (or printed without --check), 1 --check found some, 2 a wrong command line.
`;

function main(): void {
  const values = checkOptions("layers", HELP);
  if (!values) return;
  const root = path.resolve(__dirname, "..", "..");
  const files = moduleFiles(root);
  const found = layerViolations(importGraph(root, files));
  for (const v of found) console.log(`${v.file} -> ${v.imported} (${v.rule})`);
  console.log(`layers: ${found.length} violation${found.length === 1 ? "" : "s"} in ${files.length} modules`);
  if (values.check && found.length > 0) process.exit(1);
}

if (require.main === module) main();
