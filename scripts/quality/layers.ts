/**
 * Checks that the layers go one way (docs/architecture.md, CONTRIBUTING.md): `facts/` imports nothing of ours,
 * `stacks/` (config) and `providers/` import only `lib/` and `facts/`, `components/` use both, `library/`, `program.ts`
 * and `index.ts` sit on top, and the tools (`scripts/`, `lab/`, `bench/`, `policy/`, `examples/`) beside them; and that
 * no two non-test modules import each other, directly or round a longer cycle. Imports are read with the TypeScript
 * compiler's parser and resolved as `tsc` resolves them: `import`, `export … from`, `import x = require()`, `import()`
 * and `require()` (a string literal or a template without substitutions, `require.resolve()` too), type-only ones
 * included (a type is a dependency on the layer that defines it). Every tracked file is a target, so an import of a
 * `.js` file or of a test helper is checked like any other; a `require()`/`import()` of a computed name cannot be, and
 * is a violation unless a `layers-allow: <reason>` comment on its line or the line above says why it is safe.
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
  tools: ["lib", "facts", "stacks", "providers", "components", "library", "program", "tools", "test"],
  // The tests and their helpers (fixture keys, fakes, the stand-in Windows): above everything, and nothing the
  // program or the library ships may import them (they are not in the package, and a fixture key is no key).
  test: ["lib", "facts", "stacks", "providers", "components", "library", "program", "index", "tools"],
};

const TOOLS = new Set(["scripts", "lab", "bench", "policy", "examples"]);

/** The layer of a repository-relative path: its top folder, or `program`/`index` for the two files at the root. */
export function layerOf(file: string): string | undefined {
  const top = file.split("/")[0];
  if (file === "program.ts") return "program";
  if (file === "index.ts") return "index";
  if (TOOLS.has(top)) return "tools";
  if (top === "test" || file.endsWith(".test.ts")) return "test";
  return file.includes("/") && top in LAYERS ? top : undefined;
}

export interface Violation {
  file: string;
  imported: string;
  rule: string;
}

/** The comment that lets one computed `require()`/`import()` through, on its line or the line above, with a reason. */
export const ALLOW = "layers-allow:";

/** A name known without running the file: a string literal or a template without substitutions. */
function literal(n: ts.Node | undefined): string | undefined {
  return n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined;
}

/** `import(…)`, `require(…)` or `require.resolve(…)`: a call that names a module. */
function loadsModule(callee: ts.Expression): boolean {
  if (callee.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isIdentifier(callee)) return callee.text === "require";
  return (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === "require" &&
    callee.name.text === "resolve"
  );
}

/**
 * The module specifiers one file names (static and dynamic imports, re-exports, `require()`, `require.resolve()`), and
 * the lines (1-based) of each `require()`/`import()` whose name is computed and carries no `layers-allow:` comment.
 */
export function importsOf(file: string, text: string): { specifiers: string[]; computed: number[] } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split("\n");
  const specifiers: string[] = [];
  const computed: number[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      const s = literal(n.moduleSpecifier);
      if (s !== undefined) specifiers.push(s);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const s = literal(n.moduleReference.expression);
      if (s !== undefined) specifiers.push(s);
    } else if (ts.isCallExpression(n) && loadsModule(n.expression)) {
      const s = literal(n.arguments[0]);
      if (s !== undefined) specifiers.push(s);
      else {
        const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
        if (!lines[line].includes(ALLOW) && !(line > 0 && lines[line - 1].includes(ALLOW))) computed.push(line + 1);
      }
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
      const s = literal(n.argument.literal);
      if (s !== undefined) specifiers.push(s);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { specifiers, computed };
}

/**
 * The import graph of `files` (repository-relative, under `root`): each file and the files of ours it imports, any of
 * `tracked` (every file git knows of, test helpers and `.js` included; `files` when not given). Packages and files
 * outside `tracked` (node_modules, bin/) are left out. A `require()`/`import()` of a computed name that no
 * `layers-allow:` comment explains is an edge to `<computed at line N>`, which no layer may import.
 */
export function importGraph(
  root: string,
  files: readonly string[],
  tracked: readonly string[] = files,
): Map<string, string[]> {
  const ours = new Set(tracked);
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
    const { specifiers, computed } = importsOf(file, fs.readFileSync(abs, "utf8"));
    for (const spec of specifiers) {
      if (!spec.startsWith(".")) continue;
      // A name tsc cannot resolve (a file it does not load, `require.resolve` of a data file) is taken as written.
      const resolved =
        ts.resolveModuleName(spec, abs, options, ts.sys).resolvedModule?.resolvedFileName ??
        path.resolve(path.dirname(abs), spec);
      const rel = path.relative(root, resolved).split(path.sep).join("/");
      if (ours.has(rel) && rel !== file) targets.add(rel);
    }
    graph.set(file, [...[...targets].sort(), ...computed.map((line) => `${COMPUTED}${line}>`)]);
  }
  return graph;
}

const COMPUTED = "<computed at line ";

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
      if (imported.startsWith(COMPUTED)) {
        out.push({
          file,
          imported,
          rule: `a module name the checker cannot read: name it literally, or add ${ALLOW} why`,
        });
        continue;
      }
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

/** Every file git knows of; from a copy without a repository, every file under `root` but node_modules, bin and .git. */
export function trackedFiles(root: string): string[] {
  try {
    return execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n")
      .filter(Boolean);
  } catch {
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((e) => !["node_modules", "bin", ".git"].includes(e.name))
        .flatMap((e) => (e.isDirectory() ? walk(path.posix.join(dir, e.name)) : [path.posix.join(dir, e.name)]));
    return walk("").map((f) => f.replace(/^\//, ""));
  }
}

/**
 * The non-test modules among `tracked`: TypeScript and JavaScript in a folder (library/index.js, a relay script) and
 * the two root modules; tests, test/, declaration files and the root's configuration files left out.
 */
export function moduleFiles(tracked: readonly string[]): string[] {
  return tracked.filter(
    (f) =>
      /\.(ts|js)$/.test(f) &&
      !f.endsWith(".d.ts") &&
      layerOf(f) !== "test" &&
      (f.includes("/") || f === "program.ts" || f === "index.ts"),
  );
}

const HELP = `npm run layers -- [--check]

Reads the imports of the project's non-test TypeScript and JavaScript (git ls-files) with the TypeScript compiler and
prints each import against the layers (lib, facts <- stacks <- components -> providers; library, program.ts, index.ts
on top; scripts, lab, bench, policy, examples beside them; test/ above all, imported by none of the program) and each
import cycle, as \`file -> imported file (rule)\`. Any tracked file counts as a target; a require()/import() of a
computed name is a violation unless a \`${ALLOW} <reason>\` comment on its line or the line above explains it.

Options:
  --check      fail when there is any (what .ci/run runs)
  -h, --help   this text

Exit codes: 0 none (or printed without --check), 1 --check found some, 2 a wrong command line.
`;

function main(): void {
  const values = checkOptions("layers", HELP);
  if (!values) return;
  const root = path.resolve(__dirname, "..", "..");
  const tracked = trackedFiles(root);
  const files = moduleFiles(tracked);
  const found = layerViolations(importGraph(root, files, tracked));
  for (const v of found) console.log(`${v.file} -> ${v.imported} (${v.rule})`);
  console.log(`layers: ${found.length} violation${found.length === 1 ? "" : "s"} in ${files.length} modules`);
  if (values.check && found.length > 0) process.exit(1);
}

if (require.main === module) main();
