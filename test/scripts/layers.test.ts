import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { importGraph, layerViolations } from "../../scripts/quality/layers";

// The layer checker on tiny trees written to a temporary directory: the rules are those of docs/architecture.md
// ("facts/ ← stacks/ ← components/ → providers/", facts import nothing of ours).
function violations(tree: Record<string, string>): string[] {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "layers-"));
  try {
    for (const [file, text] of Object.entries(tree)) {
      fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    return layerViolations(importGraph(root, Object.keys(tree))).map((v) => `${v.file} -> ${v.imported} (${v.rule})`);
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
});
