import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { stopLab } from "./lab";
import { labStack, Stack } from "./project";

// GitOps (issue 24 g): what .github/workflows/preview.yml and up.yml run, `npm run gitops -- preview|up`, run here
// as the workflows run it (from the project folder, the CLI on PATH, KUBECONFIG set) against the lab. What is checked
// is the Markdown the workflows post (the pull-request comment, the job summary) and the exit status they act on.

const LAB = "e2e-gitops";
let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
let pem: string;

function gitops(command: "preview" | "up"): { status: number | null; report: string; out: string } {
  const file = path.join(stack.dir, `${command}-${Date.now()}.md`);
  const r = spawnSync("npm", ["run", "--silent", "gitops", "--", command, "--stack", stack.name, "--out", file], {
    cwd: stack.dir,
    encoding: "utf8",
    env: { ...process.env, ...lab.env },
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return {
    status: r.status,
    report: fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "",
    out: r.stdout + r.stderr,
  };
}

beforeAll(async () => {
  ({ lab, pem, stack, config } = await labStack("azure", LAB, {
    file: "stacks/examples/Pulumi.lab.yaml",
    name: "lab",
  }));
}, 900_000);
afterAll(() => stopLab(LAB));

test("the pull-request preview reports what the stack would create, with the diff, and no secret", () => {
  const r = gitops("preview");
  expect(r.status).toBe(0);
  // The first line is the marker the comment job finds the stack's comment by, to edit it on the next run.
  expect(r.report).toMatch(
    /^<!-- windows-estate-preview:lab -->\n### `pulumi preview` of stack `lab`: \d+ to create\n/,
  );
  expect(r.report).toContain("<details><summary>Output</summary>");
  expect(r.report).toMatch(/\+ kubernetes:machine\.openshift\.io\/v1beta1:MachineSet: \(create\)/);
  // The pack ran (pulumi preview --diff lists the packs it ran; a violation would fail the run, see below).
  expect(r.report).toMatch(/Policy Packs run:\n\s+Name\s+Version\n\s+windows-estate\|local\|/);
  expect(r.report).not.toContain(pem.split("\n")[1]);
});

test("the merge's up reports what it created; the next preview reports no changes", () => {
  const up = gitops("up");
  expect(up.status).toBe(0);
  expect(up.report).toMatch(/^### `pulumi up` of stack `lab`: \d+ created\n/);
  expect(up.report).not.toContain(pem.split("\n")[1]);
  const again = gitops("preview");
  expect(again.status).toBe(0);
  expect(again.report).toMatch(
    /^<!-- windows-estate-preview:lab -->\n### `pulumi preview` of stack `lab`: \d+ unchanged\n/,
  );
});

test("a pull request with a bad config gets a failed report naming the key and the fix, and a failing status", () => {
  (config["windows-estate:machineSets"] as Record<string, unknown>[])[0].name = "winworker-too-long";
  stack.writeConfig(config);
  const r = gitops("preview");
  expect(r.status).not.toBe(0);
  expect(r.report).toMatch(
    /^<!-- windows-estate-preview:lab -->\n### `pulumi preview` of stack `lab`: failed \(exit \d+\)\n/,
  );
  expect(r.report).toContain("windows-estate:machineSets[0].name");
});
