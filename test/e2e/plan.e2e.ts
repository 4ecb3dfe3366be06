import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import type { LabInfo } from "../../lab/record";
import { stopLab } from "./lab";
import { EXAMPLE_ADMIN_PASSWORD, playedCloudStack } from "./played-cloud/plugins";
import { diagnosticMessages, exampleConfig, labProject, PlanStep, Stack } from "./project";

// What the engine is asked to do, read from the real CLI's own plan (`pulumi preview --json`: every step's
// `newState` with its type, parent, provider, dependencies and inputs, secrets shown as "[secret]";
// pulumi pkg/backend/display/json.go). The dev stack previews against the Azure lab (discovery on); the stacks
// that render YAML for GitOps (`cluster.render`) preview with no cluster at all.

const LAB = "e2e-plan";
let lab: LabInfo;
let dir: string;
let dev: PlanStep[];
let rendered: PlanStep[];
let bootstrapKey: string;

const WMCO = "pulumi-nodejs:dynamic/windows-estate";
const ofType = (steps: PlanStep[], t: string) => steps.filter((s) => s.newState?.type === t);
function one(steps: PlanStep[], t: string): PlanStep {
  const found = ofType(steps, t);
  expect(found.map((s) => s.urn)).toHaveLength(1);
  return found[0];
}
const deps = (s: PlanStep) => s.newState?.dependencies ?? [];

/** A fresh stack of the project copy, `pulumi preview --json` of `config`; fails with the CLI's words. */
function preview(name: string, config: Record<string, unknown>, extra: string[] = []): PlanStep[] {
  const stack = new Stack(dir, name, lab);
  stack.init(config);
  const p = stack.previewJson(extra);
  if (p.status !== 0) throw new Error(`preview of ${name} failed: ${p.stdout.slice(-3000)}${p.stderr.slice(-1500)}`);
  return p.steps;
}

/**
 * A fresh stack `name` of `config` (its file then rewritten by `rewrite`, when given), whose preview the program
 * refuses: the diagnostics' messages, and what was declared besides the stack.
 */
function refusedPreview(
  name: string,
  config: Record<string, unknown>,
  rewrite?: (file: string) => void,
): { messages: string; declared: PlanStep[] } {
  const stack = new Stack(dir, name, lab);
  stack.init(config);
  rewrite?.(path.join(dir, `Pulumi.${name}.yaml`));
  const p = stack.previewJson();
  expect(p.status).not.toBe(0);
  return {
    messages: diagnosticMessages(p),
    declared: p.steps.filter((s) => s.newState?.type !== "pulumi:pulumi:Stack"),
  };
}

beforeAll(async () => {
  ({ lab, dir } = await labProject("azure", LAB));
  bootstrapKey = path.join(dir, ".dev", "bootstrap.pem");
  // Not a key: the program passes the file through as the bootstrap credential, which is what is checked here.
  fs.writeFileSync(bootstrapKey, "bootstrap-credential-for-tests-Ym9vdHN0cmFwLWtleS1ib2R5LWZvci10ZXN0cw==\n", {
    mode: 0o600,
  });
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["windows-estate:operator"] = { channel: "stable", installPlanApproval: "Manual" };
  config["windows-estate:byoh"] = [
    { address: "10.0.0.5", username: "Administrator", trustOnFirstUse: true },
    {
      address: "10.0.0.6",
      username: "Administrator",
      trustOnFirstUse: true,
      bootstrap: { passwordSecret: "byohPassword" },
    },
    {
      address: "10.0.0.7",
      username: "Administrator",
      trustOnFirstUse: true,
      bootstrap: { privateKeyPath: ".dev/bootstrap.pem" },
    },
  ];
  const devStack = new Stack(dir, "plan", lab);
  devStack.init(config);
  const set = devStack.pulumi(["config", "set", "--secret", "windows-estate:byohPassword", "hunter2-bootstrap"]);
  if (set.status !== 0) throw new Error(`pulumi config set failed: ${set.stderr}`);
  const p = devStack.previewJson();
  if (p.status !== 0) throw new Error(`preview of dev failed: ${p.stdout.slice(-3000)}`);
  dev = p.steps;
  const renderConfig = exampleConfig(dir, "Pulumi.dev.yaml");
  renderConfig["windows-estate:cluster"] = {
    ...(renderConfig["windows-estate:cluster"] as object),
    render: "rendered/plan",
  };
  rendered = preview("rendered", renderConfig);
}, 900_000);
afterAll(() => stopLab(LAB));

test("everything hangs under the WindowsEstate component, beside one explicit Kubernetes provider", () => {
  const stack = one(dev, "pulumi:pulumi:Stack");
  const roots = dev.filter((s) => s.newState?.parent === stack.urn).map((s) => s.newState?.type);
  expect(roots.sort()).toEqual(["pulumi:providers:kubernetes", "windows-estate:index:WindowsEstate"]);
});

test("Kubernetes objects use the explicit provider; only dynamic resources use the default pulumi-nodejs one", () => {
  for (const s of dev.filter((x) => x.newState?.custom && !x.newState.type.startsWith("pulumi:providers:"))) {
    const provider = (s.newState?.provider ?? "").split("::").slice(0, -1).join("::");
    if (s.newState?.type.startsWith("pulumi-nodejs:"))
      expect(`${s.urn} ${provider}`).toMatch(/::pulumi:providers:pulumi-nodejs::default$/);
    else expect(`${s.urn} ${provider}`).toMatch(/::pulumi:providers:kubernetes::cluster$/);
  }
});

test("the key Secret waits for the operator to really run; the wait follows Subscription, OperatorGroup, Namespace", () => {
  const ready = one(dev, `${WMCO}:OperatorReady`);
  expect(deps(one(dev, "kubernetes:core/v1:Secret"))).toContain(ready.urn);
  const sub = one(dev, "kubernetes:operators.coreos.com/v1alpha1:Subscription");
  expect(deps(ready)).toContain(sub.urn);
  expect(deps(sub)).toContain(one(dev, "kubernetes:operators.coreos.com/v1:OperatorGroup").urn);
  expect(deps(one(dev, "kubernetes:operators.coreos.com/v1:OperatorGroup"))).toContain(
    one(dev, "kubernetes:core/v1:Namespace").urn,
  );
});

test("MachineSets wait for windows-user-data, which waits for the key Secret", () => {
  const userData = one(dev, `${WMCO}:ObjectExists`);
  expect(deps(one(dev, "kubernetes:machine.openshift.io/v1beta1:MachineSet"))).toContain(userData.urn);
  expect(deps(userData)).toContain(one(dev, "kubernetes:core/v1:Secret").urn);
  expect(userData.newState?.inputs).toMatchObject({
    namespace: "openshift-machine-api",
    name: "windows-user-data",
    dataKey: "userData",
  });
});

test("windows-instances lists BYOH hosts only after every one is prepared, and after the destroy gate", () => {
  const hosts = ofType(dev, `${WMCO}:WindowsHost`);
  expect(hosts).toHaveLength(3);
  const cm = one(dev, "kubernetes:core/v1:ConfigMap");
  for (const h of hosts) expect(deps(cm)).toContain(h.urn);
  const gate = one(dev, `${WMCO}:ByohDeconfigured`);
  expect(deps(cm)).toContain(gate.urn);
  expect(deps(gate)).toEqual(
    expect.arrayContaining([one(dev, "kubernetes:core/v1:Secret").urn, one(dev, `${WMCO}:OperatorReady`).urn]),
  );
});

test("each BYOH host's connection and the WMCO key are secret inputs; serialized providers carry no credential", () => {
  const pem = fs.readFileSync(path.join(dir, ".dev", "wmco-dev-key.pem"), "utf8").split("\n")[1];
  for (const h of ofType(dev, `${WMCO}:WindowsHost`)) {
    expect(h.newState?.inputs?.connection).toBe("[secret]");
    expect(h.newState?.inputs?.wmcoPrivateKey).toBe("[secret]");
  }
  const all = JSON.stringify(dev);
  for (const leak of ["hunter2-bootstrap", pem, "Ym9vdHN0cmFwLWtleS1ib2R5LWZvci10ZXN0cw=="])
    expect(all.includes(leak)).toBe(false);
  expect(String(one(dev, `${WMCO}:OperatorReady`).newState?.inputs?.__provider)).not.toMatch(
    /PRIVATE KEY|client-key-data/,
  );
});

test("render mode (GitOps): no waits, no cluster; the MachineSet still comes after the operator objects", () => {
  expect(ofType(rendered, `${WMCO}:ObjectExists`)).toEqual([]);
  expect(ofType(rendered, `${WMCO}:OperatorReady`)).toEqual([]);
  const ms = one(rendered, "kubernetes:machine.openshift.io/v1beta1:MachineSet");
  expect(deps(ms)).toEqual(
    expect.arrayContaining([
      one(rendered, "kubernetes:operators.coreos.com/v1alpha1:Subscription").urn,
      one(rendered, "kubernetes:core/v1:Namespace").urn,
    ]),
  );
  expect(one(rendered, "pulumi:providers:kubernetes").newState?.inputs?.renderYamlToDirectory).toBe("rendered/plan");
});

test("logical names do not contain the stack name: a second stack plans the same names", () => {
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  const other = preview("prod-east", config);
  const first = preview("dev-copy", config);
  const names = (steps: PlanStep[]) =>
    steps
      .filter((s) => s.newState?.type !== "pulumi:pulumi:Stack")
      .map((s) => `${s.newState?.type}::${s.urn.split("::").pop()}`)
      .sort();
  expect(names(other)).toEqual(names(first));
  expect(names(other).join("\n")).not.toContain("prod-east");
});

test('disable-default-providers ["*"] is refused by the program, naming the key and the fix, before anything is declared', () => {
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["pulumi:disable-default-providers"] = ["*"];
  const { messages, declared } = refusedPreview("star", config);
  expect(messages).toContain('pulumi:disable-default-providers: "*" also disables the pulumi-nodejs provider');
  expect(messages).not.toMatch(/\n\s+at /); // a message, not a stack trace
  expect(declared).toEqual([]);
});

test("a key in a namespace a typo away from ours is refused under the real CLI (it used to drop the BYOH host silently)", () => {
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["windows_estate:byoh"] = [{ address: "10.0.0.42", username: "Administrator", trustOnFirstUse: true }];
  const { messages, declared } = refusedPreview("underscore", config);
  expect(messages).toContain("windows_estate:byoh: is in namespace 'windows_estate', which this program never reads");
  expect(messages).toContain("rename the key to windows-estate:byoh");
  expect(declared).toEqual([]);
});

test("a mistyped config: in the stack file is said to leave the stack with no config (the CLI drops the unknown key)", () => {
  const config = exampleConfig(dir, "Pulumi.dev.yaml");
  const { messages } = refusedPreview("confg", config, (file) => fs.writeFileSync(file, stringify({ confg: config })));
  // The CLI saves the stack file (adding the passphrase salt) before the program runs and drops the unknown key as
  // it does (sdk/go/common/workspace/project.go ProjectStack has no place for it), so what reaches the program is a
  // file with no config: said as such, instead of "cluster is required".
  expect(messages).toContain("Pulumi.confg.yaml: has no 'config:' section");
  expect(messages).not.toContain("windows-estate:cluster: is required");
});

test("the kubeadm example (render mode) previews with no cluster through the real CLI", () => {
  const steps = preview("kubeadm", exampleConfig(dir, "stacks/examples/Pulumi.kubeadm.yaml", true));
  expect(ofType(steps, "pulumi:providers:kubernetes")).toHaveLength(1);
  expect(steps.length).toBeGreaterThan(5);
});

test("render mode leaves cloud-private-key out and says how to create it; renderKeySecret opts in", () => {
  const isKeySecret = (s: PlanStep) =>
    s.newState?.type === "kubernetes:core/v1:Secret" && s.newState.inputs?.metadata?.name === "cloud-private-key";
  const config = exampleConfig(dir, "stacks/examples/Pulumi.byoh.yaml", true);
  const stack = new Stack(dir, "byoh", lab);
  stack.init(config);
  const p = stack.previewJson();
  expect(p.status).toBe(0);
  expect(p.steps.filter(isKeySecret)).toEqual([]);
  expect(JSON.stringify(p.diagnostics)).toContain("cloud-private-key is not rendered");
  (config["windows-estate:cluster"] as Record<string, unknown>).renderKeySecret = true;
  expect(preview("byoh-key", config).filter(isKeySecret)).toHaveLength(1);
});

describe("the stacks that create their BYOH VMs (AWS, Azure), against played cloud plugins", () => {
  // pulumi-resource-aws and -azure-native are not built here: test/e2e/played-cloud serves previews in their place.
  const PASSWORD = EXAMPLE_ADMIN_PASSWORD;
  const runs = new Map<string, PlanStep[]>();
  beforeAll(() => {
    for (const name of ["byoh-aws", "byoh-azure"] as const) {
      const p = playedCloudStack(dir, name, lab).previewJson();
      if (p.status !== 0)
        throw new Error(`preview of ${name} failed: ${p.stdout.slice(-3000)}${p.stderr.slice(-1500)}`);
      runs.set(name, p.steps);
    }
  }, 600_000);

  test.each([
    ["byoh-aws", "aws"],
    ["byoh-azure", "azure-native"],
  ])("%s: every cloud resource on the stack's explicit %s provider, no default one", (name, pkg) => {
    const steps = runs.get(name) as PlanStep[];
    const cloud = steps.filter(
      (s) => s.newState?.custom && s.newState.type.startsWith(`${pkg}:`) && !s.newState.type.startsWith("pulumi:"),
    );
    expect(cloud.length).toBeGreaterThan(0);
    for (const c of cloud)
      expect(`${c.urn} ${c.newState?.provider}`).toMatch(new RegExp(`[$:]pulumi:providers:${pkg}::estate-byoh-vms-`));
    expect(ofType(steps, `pulumi:providers:${pkg}`).filter((s) => s.urn.endsWith("::default"))).toEqual([]);
  });

  test("order: each VM before its WindowsHost, every WindowsHost before windows-instances", () => {
    const steps = runs.get("byoh-aws") as PlanStep[];
    const vms = ofType(steps, "aws:ec2/instance:Instance");
    const hosts = ofType(steps, `${WMCO}:WindowsHost`);
    const name = (s: PlanStep) => s.urn.split("::").pop() ?? "";
    expect(vms.map(name).sort()).toEqual(["estate-byoh-vms-winbyoh-1", "estate-byoh-vms-winbyoh-2"]);
    expect(hosts).toHaveLength(2);
    for (const h of hosts) {
      const vm = vms.find((v) => name(v) === name(h).replace("estate-byoh-", "estate-byoh-vms-"));
      expect(deps(h)).toContain(vm?.urn);
    }
    const cm = ofType(steps, "kubernetes:core/v1:ConfigMap").find((s) => name(s) === "estate-byoh-windows-instances");
    expect(deps(cm as PlanStep)).toEqual(expect.arrayContaining(hosts.map((h) => h.urn)));
  });

  test("the Azure admin password is a secret where it sits, and nowhere in plaintext", () => {
    const steps = runs.get("byoh-azure") as PlanStep[];
    const [vm] = ofType(steps, "azure-native:compute:VirtualMachine");
    expect(vm.newState?.inputs?.osProfile?.adminPassword).toBe("[secret]");
    expect(JSON.stringify(steps)).not.toContain(PASSWORD);
  });
});
