import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { PROJECT_DIR, stopLab } from "./lab";
import { exampleConfig, labProject, Stack } from "./project";

// The policy pack (issue 24 c) through `pulumi preview --policy-pack policy`: the real CLI starts the pack through
// the language host's RunPlugin, as it does for users and in the preview workflow.

const LAB = "e2e-policy";
let lab: LabInfo;
let dir: string;
let pem: string;

beforeAll(async () => {
  ({ lab, dir, pem } = await labProject("azure", LAB));
}, 900_000);
afterAll(() => stopLab(LAB));

test("the dev stack passes every policy of the pack", () => {
  const stack = new Stack(dir, "compliant", lab).init(exampleConfig(dir, "Pulumi.dev.yaml"));
  const r = stack.pulumi(["preview", "--policy-pack", path.join(dir, "policy")]);
  expect(r.stdout + r.stderr).not.toMatch(/mandatory|error:/);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/Policies:\s+✅ windows-estate@v0\.1\.0/);
});

test("a stack that puts a private key in a ConfigMap fails, naming the rule and the resource", () => {
  // Another team's program in the same cluster: plain @pulumi/kubernetes, no windows-estate code.
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-leaky-"));
  fs.symlinkSync(path.join(PROJECT_DIR, "node_modules"), path.join(other, "node_modules"));
  fs.writeFileSync(path.join(other, "Pulumi.yaml"), "name: leaky\nruntime: nodejs\n");
  fs.writeFileSync(path.join(other, "package.json"), JSON.stringify({ name: "leaky", main: "index.js" }));
  fs.writeFileSync(
    path.join(other, "index.js"),
    'const k8s = require("@pulumi/kubernetes");\n' +
      'new k8s.core.v1.ConfigMap("leaked-key", { metadata: { name: "leaked-key" }, data: { "key.pem": process.env.LEAKED_PEM } });\n',
  );
  const stack = new Stack(other, "leaky", { ...lab, env: { ...lab.env, LEAKED_PEM: pem } });
  stack.init({});
  const r = stack.pulumi(["preview", "--policy-pack", path.join(dir, "policy")]);
  expect(r.status).not.toBe(0);
  expect(r.stdout).toMatch(/\[mandatory\]\s+private-key-only-in-secret/);
  expect(r.stdout).toContain("kubernetes:core/v1:ConfigMap leaked-key holds a private key in its inputs");
  expect(r.stdout + r.stderr).not.toContain(pem.split("\n")[1]);
});
