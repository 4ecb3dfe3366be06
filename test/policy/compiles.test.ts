import * as path from "path";
import * as ts from "typescript";

// The policy pack has no tsconfig of its own: the Pulumi Node host compiles it with ts-node and its defaults
// (@pulumi/pulumi cmd/run/run.js: target ES2020, module and moduleResolution nodenext, no `lib`, so ES2020's), not
// with the project's tsconfig.json (ES2022). Code the pack imports must compile under those, or every
// `--policy-pack` run fails before a policy is read (Object.hasOwn did, in stacks/schema/index.ts).
test("the policy pack and all it imports compile under the Node host's default compiler options", () => {
  const entry = path.join(__dirname, "..", "..", "policy", "index.ts");
  const program = ts.createProgram([entry], {
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.relative(process.cwd(), d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
  expect(errors).toEqual([]);
});
