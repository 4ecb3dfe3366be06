import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as ts from "typescript";

// docs/library.md, "Render and test your program offline": its `offline.ts` and `index.test.ts` blocks, as they are
// written there, beside the TypeScript sample (examples/typescript/index.ts, as it is), run by jest as a library user's
// project runs them: the blocks' tests become this file's tests. What installing the package gives that project is
// supplied by module resolution only: `windows-estate` is this repository's library (its sources; the packed tarball
// itself is test/e2e/library.e2e.ts's) and `@pulumi/pulumi` the one beside it, one instance for both, as npm installs
// one. A doc edit that breaks the recipe, or a library change that breaks the recipe, fails here.

jest.mock("windows-estate", () => jest.requireActual("../../library/index.ts"), { virtual: true });
jest.mock("@pulumi/pulumi", () => jest.requireActual("@pulumi/pulumi"), { virtual: true });

const ROOT = path.resolve(__dirname, "..", "..");
const SECTION = "### Render and test your program offline";

/** The section's ```ts blocks whose first line is `// <file name>`, by file name, as written. */
function recipeBlocks(markdown: string): Map<string, string> {
  const start = markdown.indexOf(SECTION);
  if (start < 0) throw new Error(`docs/library.md has no "${SECTION}" section`);
  const end = markdown.indexOf("\n## ", start);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const files = new Map<string, string>();
  for (const m of section.matchAll(/^```ts\n(\/\/ ([\w.-]+\.ts)\n[\s\S]*?)^```$/gm)) files.set(m[2], m[1]);
  return files;
}

const blocks = recipeBlocks(fs.readFileSync(path.join(ROOT, "docs", "library.md"), "utf8"));
const project = fs.mkdtempSync(path.join(os.tmpdir(), "offline-recipe-"));
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));
fs.copyFileSync(path.join(ROOT, "examples", "typescript", "index.ts"), path.join(project, "index.ts"));
for (const [file, code] of blocks) fs.writeFileSync(path.join(project, file), code);

// Offline means offline: were the component to ask a cluster after all, it would find none rather than whatever
// cluster the machine's kubeconfig names.
process.env.KUBECONFIG = path.join(project, "no-kubeconfig");

test("the section has the helper and the test, and nothing else to run", () => {
  expect([...blocks.keys()].sort()).toEqual(["index.test.ts", "offline.ts"]);
});

// This suite transpiles only (jest.config.js: diagnostics off); a user's ts-jest type-checks (its default), so a block
// that does not compile fails there. Checked here with the sample's own tsconfig, each module resolved as the user's
// node_modules would resolve it.
test("the blocks and the sample type-check with the sample's tsconfig, as ts-jest checks them for a user", () => {
  const sample = path.join(ROOT, "examples", "typescript");
  const json = ts.readConfigFile(path.join(sample, "tsconfig.json"), (f) => ts.sys.readFile(f)).config;
  const { options } = ts.parseJsonConfigFileContent(json, ts.sys, project);
  const installed = (pkg: string) => [path.join(ROOT, "node_modules", pkg)];
  const files = ["index.ts", ...blocks.keys()].map((f) => path.join(project, f));
  const program = ts.createProgram(files, {
    ...options,
    noEmit: true,
    baseUrl: project,
    typeRoots: [path.join(ROOT, "node_modules", "@types")],
    paths: {
      "windows-estate": [path.join(ROOT, "library", "index.ts")],
      "@pulumi/pulumi": installed("@pulumi/pulumi"),
      "@jest/globals": installed("@jest/globals"),
    },
  });
  const problems = files.flatMap((f) =>
    [
      ...program.getSyntacticDiagnostics(program.getSourceFile(f)),
      ...program.getSemanticDiagnostics(program.getSourceFile(f)),
    ].map((d) => `${path.basename(f)}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`),
  );
  expect(problems).toEqual([]);
}, 120_000);

// The doc's test file, registering its beforeAll and tests here.
require(path.join(project, "index.test.ts"));
