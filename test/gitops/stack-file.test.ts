import * as fs from "fs";
import * as path from "path";
import { StackFileError, stackFacts } from "../../scripts/gitops/stack-file";

// What the workflows read of a stack file: whether it runs there (windows-estate:pipeline) and which clouds its
// program calls, so that only those jobs ask for cloud credentials (docs/gitops.md). The example stacks are the cases.

const ROOT = path.resolve(__dirname, "..", "..");
const example = (name: string) =>
  stackFacts(
    `Pulumi.${name}.yaml`,
    name,
    fs.readFileSync(path.join(ROOT, "stacks", "examples", `Pulumi.${name}.yaml`), "utf8"),
  );
const file = (config: Record<string, unknown>) => stackFacts("Pulumi.s.yaml", "s", JSON.stringify({ config }));

test("the dev stack is not for the pipeline: a fresh clone has nothing to deploy", () => {
  const dev = stackFacts("Pulumi.dev.yaml", "dev", fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8"));
  expect(dev.pipeline).toBe(false);
  expect(dev.warnings).toEqual([]);
});

test.each([
  // BYOH VMs created on EC2: the AWS provider resolves credentials even at preview.
  ["byoh-aws", { aws: true, azure: false }],
  ["byoh-azure", { aws: false, azure: true }],
  // One MachineSet without aws.ami: the AMI is looked up at up.
  ["aws", { aws: true, azure: false }],
  // MachineSets only, or hosts given by address: the program calls no cloud.
  ["lab", { aws: false, azure: false }],
  ["gcp", { aws: false, azure: false }],
  ["byoh", { aws: false, azure: false }],
  ["kubeadm", { aws: false, azure: false }],
])("stacks/examples/Pulumi.%s.yaml asks for %j", (name, clouds) => {
  const f = example(name);
  expect({ aws: f.aws, azure: f.azure }).toEqual(clouds);
  expect(f.pipeline).toBe(true);
});

test("an AWS MachineSet with its AMI pinned needs no AWS credentials; vanilla nodes created on AWS do", () => {
  const cluster = { platform: "AWS", infrastructureId: "x", region: "us-east-1" };
  expect(
    file({ "windows-estate:cluster": cluster, "windows-estate:machineSets": [{ aws: { ami: "ami-0abc1234" } }] }).aws,
  ).toBe(false);
  expect(file({ "windows-estate:nodes": [{ name: "w", aws: { subnetId: "subnet-1" } }] }).aws).toBe(true);
});

test("values as `pulumi config set` without --path stores them, as JSON text, read as the program reads them", () => {
  expect(file({ "windows-estate:pipeline": "false" }).pipeline).toBe(false);
  expect(file({ "windows-estate:byoh": JSON.stringify([{ name: "w", azure: {} }]) }).azure).toBe(true);
  expect(file({}).pipeline).toBe(true);
});

test("a pipeline value other than true or false stops the matrix, naming the file, the key and the command", () => {
  expect(() => file({ "windows-estate:pipeline": "no" })).toThrow(StackFileError);
  expect(() => file({ "windows-estate:pipeline": "no" })).toThrow(
    /^Pulumi\.s\.yaml: windows-estate:pipeline must be true or false, got "no": `pulumi config set --stack s --type bool windows-estate:pipeline false`/,
  );
  expect(() => stackFacts("Pulumi.s.yaml", "s", "config: [")).toThrow(/^Pulumi\.s\.yaml is not valid YAML/);
});

test("a key file under ~ is warned about (no runner has it), with the command that stores the key as a secret", () => {
  const f = file({ "windows-estate:privateKeyPath": "~/.ssh/wmco" });
  expect(f.warnings).toEqual([
    expect.stringContaining("`pulumi config set --stack s --secret windows-estate:privateKey < ~/.ssh/wmco`"),
  ]);
  expect(file({ "windows-estate:privateKeyPath": "~/.ssh/wmco", "windows-estate:pipeline": false }).warnings).toEqual(
    [],
  );
});
