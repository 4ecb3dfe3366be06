import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

// One-way layers: config (stacks/) → components/ → providers/. The config layer knows no domain rules (they are
// passed in as validators), and providers know nothing of components, so each layer can be read and tested alone.
const ROOT = path.resolve(__dirname, "..", "..");
// Walks the source folders (not git: the tests must also run from a copy without a repository).
function tsFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
    );
}
const tracked = ["stacks", "components", "providers", "facts", "lib", "policy", "scripts"].flatMap(tsFiles);

function importsOf(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (
      (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    )
      out.push(n.moduleSpecifier.text);
    if (
      ts.isCallExpression(n) &&
      n.expression.getText(sf) === "require" &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      out.push(n.arguments[0].text);
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      out.push(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out
    .filter((s) => s.startsWith("."))
    .map((s) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), s)));
}

const crossings = (layer: string, forbidden: string[]) =>
  tracked
    .filter((f) => f.startsWith(`${layer}/`))
    .flatMap((f) =>
      importsOf(f)
        .filter((i) => forbidden.some((x) => i.startsWith(`${x}/`) || i === x))
        .map((i) => `${f} -> ${i}`),
    );

test("stacks/ (config) imports nothing from components/ or providers/", () => {
  expect(crossings("stacks", ["components", "providers", "policy", "scripts"])).toEqual([]);
});

test("providers/ import nothing from components/ (domain facts they need live in facts/)", () => {
  expect(crossings("providers", ["components", "policy", "scripts"])).toEqual([]);
});

test("facts/ import only types of the config layer", () => {
  expect(crossings("facts", ["components", "providers", "policy", "scripts"])).toEqual([]);
});

test("lib/ (neutral helpers) imports nothing of the project", () => {
  expect(crossings("lib", ["stacks", "components", "providers", "policy", "scripts", "facts"])).toEqual([]);
});

test("the check can fail: it sees a component import where there is one", () => {
  expect(crossings("components", ["stacks"]).length).toBeGreaterThan(0);
});
