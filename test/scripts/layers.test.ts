import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { importGraph, layerViolations, moduleFiles, trackedFiles } from "../../scripts/quality/layers";

// The layer checker on tiny trees written to a temporary directory: the rules are those of docs/architecture.md
// ("facts/ ← stacks/ ← components/ → providers/", facts import nothing of ours). Every file of the tree is tracked;
// the modules checked are those `npm run layers` picks from them.
function violations(tree: Record<string, string>): string[] {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
  try {
    for (const [file, text] of Object.entries(tree)) {
      fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    const tracked = Object.keys(tree);
    return layerViolations(importGraph(root, moduleFiles(tracked), tracked)).map(
      (v) => `${v.file} -> ${v.imported} (${v.rule})`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe("scripts/quality/layers.ts", () => {
  it("passes imports that go down the layers, packages and type-only imports included", () => {
    expect(
      violations({
        "lib/json.ts": `export const get = 1;`,
        "facts/wmco.ts": `export type Platform = "AWS";`,
        "stacks/schema.ts": `import type { Platform } from "../facts/wmco";\nimport { z } from "zod";\nexport const s = z;`,
        "providers/kube.ts": `import { get } from "../lib/json";\nexport const k = get;`,
        "components/estate.ts": `import { s } from "../stacks/schema";\nimport { k } from "../providers/kube";\nexport const e = [s, k];`,
        "program.ts": `import { e } from "./components/estate";\nexport default e;`,
        "scripts/synth.ts": `import "../program";`,
      }),
    ).toEqual([]);
  });

  it("fails on a module importing a higher layer, however it imports it", () => {
    expect(
      violations({
        "library/args.ts": `export interface Args { a: string }`,
        "stacks/load.ts": `export const load = 1;`,
        "components/estate.ts": `import type { Args } from "../library/args";\nexport const x: Args | undefined = undefined;`,
        "providers/thin.ts": `export const y = require("../stacks/load");`,
      }),
    ).toEqual([
      "components/estate.ts -> library/args.ts (components may import only lib, facts, stacks, providers, not library)",
      "providers/thin.ts -> stacks/load.ts (providers may import only lib, facts, not stacks)",
    ]);
  });

  it("fails on facts importing anything of ours, lib included", () => {
    expect(
      violations({
        "lib/json.ts": `export const get = 1;`,
        "facts/wmco.ts": `export { get } from "../lib/json";`,
      }),
    ).toEqual(["facts/wmco.ts -> lib/json.ts (facts imports nothing of ours)"]);
  });

  it("fails on an import cycle within one layer, through an index module and a dynamic import", () => {
    expect(
      violations({
        "scripts/docs/a.ts": `import { b } from "./b";\nexport const a = b;`,
        "scripts/docs/b/index.ts": `import { c } from "../c";\nexport const b = c;`,
        "scripts/docs/c.ts": `export const c = () => import("./a");`,
        "scripts/docs/d.ts": `import { a } from "./a";\nexport const d = a;`,
      }),
    ).toEqual([
      "scripts/docs/c.ts -> scripts/docs/a.ts (import cycle: scripts/docs/a.ts -> scripts/docs/b/index.ts -> scripts/docs/c.ts -> scripts/docs/a.ts)",
    ]);
  });

  it("fails on a module in no layer, so a new folder is placed deliberately", () => {
    expect(violations({ "misc/x.ts": `export const x = 1;` })).toEqual([
      "misc/x.ts -> - (in no layer: place its folder in scripts/quality/layers.ts LAYERS)",
    ]);
  });

  it("checks imports of test helpers and tracked .js files, from .js modules too: the program may not import test/", () => {
    expect(
      violations({
        "test/helpers/fixture-keys.ts": `export const key = "fixture";`,
        "test/lab/fake.js": `module.exports = require("../../lib/json");`,
        "test/scripts/x.test.ts": `import { key } from "../helpers/fixture-keys";\nimport "../../providers/x";`,
        "lib/json.ts": `export const get = 1;`,
        "providers/x.ts": `import { key } from "../test/helpers/fixture-keys";\nexport const x = key;`,
        "components/node-access/relay-proxy.js": `module.exports = 1;`,
        "providers/relay.ts": `export const r = require("../components/node-access/relay-proxy.js");`,
        "library/index.js": `module.exports = require("../test/lab/fake.js");`,
        "bench/run.ts": `import "../test/lab/fake.js";`,
      }),
    ).toEqual([
      "providers/x.ts -> test/helpers/fixture-keys.ts (providers may import only lib, facts, not test)",
      "providers/relay.ts -> components/node-access/relay-proxy.js (providers may import only lib, facts, not components)",
      "library/index.js -> test/lab/fake.js (library may import only lib, facts, stacks, providers, components, not test)",
    ]);
  });

  it("reads template literals and require.resolve, and fails on a computed name with no layers-allow comment", () => {
    expect(
      violations({
        "stacks/load.ts": `export const load = 1;`,
        "providers/a.ts": "export const a = require(`../stacks/load`);",
        "providers/b.ts": `export const b = require.resolve("../stacks/load");`,
        "providers/c.ts": `const name = "../stacks/load";\nexport const c = require(name);\nexport const d = () => import(name);`,
        "providers/d.ts": [
          `const name = "./a";`,
          `export const d = require(name); // layers-allow: a provider of this layer, chosen at run time`,
          `// layers-allow: the same`,
          `export const e = () => import(name);`,
        ].join("\n"),
      }),
    ).toEqual([
      "providers/a.ts -> stacks/load.ts (providers may import only lib, facts, not stacks)",
      "providers/b.ts -> stacks/load.ts (providers may import only lib, facts, not stacks)",
      "providers/c.ts -> <computed at line 2> (a module name the checker cannot read: name it literally, or add layers-allow: why)",
      "providers/c.ts -> <computed at line 3> (a module name the checker cannot read: name it literally, or add layers-allow: why)",
    ]);
  });

  // What test/stacks/layers.test.ts checked before this checker: the project's own tree, from git or (in a copy
  // without a repository) its folders; and that the graph it is checked on is the real one.
  it("finds no violation in the project itself, on a graph that has its real imports", () => {
    const root = path.resolve(__dirname, "..", "..");
    const tracked = trackedFiles(root);
    const graph = importGraph(root, moduleFiles(tracked), tracked);
    expect(graph.get("components/estate.ts")).toEqual(expect.arrayContaining(["stacks/load.ts"]));
    expect(layerViolations(graph)).toEqual([]);
  });
});
