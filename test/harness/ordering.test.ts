import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Registration } from "./engine";
import { PROJECT_DIR } from "./dynamic-plugin";
import { runProgram, RunResult, stackConfig } from "./program";
import { isSecret, reveal } from "./wire";

// The order WMCO needs, as the engine sees it: every registration with its real dependencies (explicit and through
// inputs), recorded by the engine stand-in while the real language host runs the program (`pulumi preview`).
jest.setTimeout(120_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ordering-"));
const bootstrapKey = path.join(dir, "bootstrap.pem");
const DEV_FILE = path.join(PROJECT_DIR, "Pulumi.dev.yaml");
let r: RunResult;
let rendered: RunResult;

beforeAll(async () => {
  // Not a key: the program passes the file through as the bootstrap credential, which is what is checked here.
  fs.writeFileSync(bootstrapKey, "bootstrap-credential-for-tests-Ym9vdHN0cmFwLWtleS1ib2R5LWZvci10ZXN0cw==\n", {
    mode: 0o600,
  });
  const byoh = [
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
      bootstrap: { privateKeyPath: bootstrapKey },
    },
  ];
  const cluster = { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus", discovery: false };
  r = await runProgram({
    ...stackConfig(
      DEV_FILE,
      { cluster, operator: { installPlanApproval: "Manual" }, byoh },
      { "windows-estate:byohPassword": "hunter2-bootstrap" },
    ),
    stack: "dev",
    preview: true,
  });
  // Render mode (GitOps): no cluster to wait on.
  rendered = await runProgram({
    ...stackConfig(DEV_FILE, { cluster: { ...cluster, render: path.join(dir, "render") }, byoh: [] }),
    stack: "dev",
    preview: true,
  });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const byType = (run: RunResult, t: string) => run.engine.registrations.filter((x) => x.type === t);
function one(run: RunResult, t: string): Registration {
  const found = byType(run, t);
  expect(found).toHaveLength(1);
  return found[0];
}

test("the preview succeeds", () => {
  expect([r.exitCode, rendered.exitCode]).toEqual([0, 0]);
});

test("everything hangs under the WindowsEstate component, beside one explicit Kubernetes provider", () => {
  const stack = one(r, "pulumi:pulumi:Stack");
  const roots = r.engine.registrations.filter((x) => x.parent === stack.urn).map((x) => x.type);
  expect(roots.sort()).toEqual(["pulumi:providers:kubernetes", "windows-estate:index:WindowsEstate"]);
});

test("the key Secret waits for the operator to really run; the wait follows Subscription, OperatorGroup, Namespace", () => {
  const ready = one(r, "pulumi-nodejs:dynamic/windows-estate:OperatorReady");
  expect(one(r, "kubernetes:core/v1:Secret").dependencies).toContain(ready.urn);
  const sub = one(r, "kubernetes:operators.coreos.com/v1alpha1:Subscription");
  const og = one(r, "kubernetes:operators.coreos.com/v1:OperatorGroup");
  const ns = one(r, "kubernetes:core/v1:Namespace");
  expect(ready.dependencies).toContain(sub.urn);
  expect(sub.dependencies).toContain(og.urn);
  expect(og.dependencies).toContain(ns.urn);
});

test("MachineSets wait for windows-user-data, which waits for the key Secret", () => {
  const userData = one(r, "pulumi-nodejs:dynamic/windows-estate:ObjectExists");
  expect(one(r, "kubernetes:machine.openshift.io/v1beta1:MachineSet").dependencies).toContain(userData.urn);
  expect(userData.dependencies).toContain(one(r, "kubernetes:core/v1:Secret").urn);
  expect(reveal(userData.inputs)).toMatchObject({
    namespace: "openshift-machine-api",
    name: "windows-user-data",
    dataKey: "userData",
  });
});

test("windows-instances lists BYOH hosts only after every one is prepared, and after the destroy gate", () => {
  const hosts = byType(r, "pulumi-nodejs:dynamic/windows-estate:WindowsHost");
  expect(hosts).toHaveLength(3);
  const cm = one(r, "kubernetes:core/v1:ConfigMap");
  for (const h of hosts) expect(cm.dependencies).toContain(h.urn);
  const gate = one(r, "pulumi-nodejs:dynamic/windows-estate:ByohDeconfigured");
  expect(cm.dependencies).toContain(gate.urn);
  expect(gate.dependencies).toEqual(
    expect.arrayContaining([
      one(r, "kubernetes:core/v1:Secret").urn,
      one(r, "pulumi-nodejs:dynamic/windows-estate:OperatorReady").urn,
    ]),
  );
});

test("each BYOH host gets its bootstrap credential (WMCO key, password secret, key file), always as a secret input", () => {
  const hosts = byType(r, "pulumi-nodejs:dynamic/windows-estate:WindowsHost");
  const conn = (address: string) => {
    const h = hosts.find((x) => x.name.endsWith(address)) as Registration;
    expect(isSecret(h.inputs.connection)).toBe(true);
    return reveal(h.inputs.connection) as { password?: string; privateKey?: string };
  };
  const wmcoKey = fs.readFileSync(path.join(PROJECT_DIR, ".dev", "wmco-dev-key.pem"), "utf8");
  expect(conn("10.0.0.5")).toMatchObject({ privateKey: wmcoKey });
  expect(conn("10.0.0.5").password).toBeUndefined();
  expect(conn("10.0.0.6")).toMatchObject({ password: "hunter2-bootstrap" });
  expect(conn("10.0.0.6").privateKey).toBeUndefined();
  expect(conn("10.0.0.7").privateKey).toContain("Ym9vdHN0cmFwLWtleS1ib2R5LWZvci10ZXN0cw==");
  for (const h of hosts) {
    expect(isSecret(h.inputs.wmcoPrivateKey)).toBe(true);
    expect(String(h.inputs.__provider)).not.toContain("hunter2-bootstrap");
    expect(String(h.inputs.__provider)).not.toContain(wmcoKey.split("\n")[1]);
  }
});

test("the wait resource's serialized provider carries no kubeconfig or key content", () => {
  expect(String(one(r, "pulumi-nodejs:dynamic/windows-estate:OperatorReady").inputs.__provider)).not.toMatch(
    /PRIVATE KEY|client-key-data/,
  );
});

test("render mode with MachineSets: no waits (no cluster), the MachineSet still comes after the operator objects", () => {
  expect(byType(rendered, "pulumi-nodejs:dynamic/windows-estate:ObjectExists")).toEqual([]);
  expect(byType(rendered, "pulumi-nodejs:dynamic/windows-estate:OperatorReady")).toEqual([]);
  const ms = one(rendered, "kubernetes:machine.openshift.io/v1beta1:MachineSet");
  expect(ms.dependencies).toEqual(
    expect.arrayContaining([
      one(rendered, "kubernetes:operators.coreos.com/v1alpha1:Subscription").urn,
      one(rendered, "kubernetes:core/v1:Namespace").urn,
    ]),
  );
  expect(one(rendered, "pulumi:providers:kubernetes").inputs.renderYamlToDirectory).toBe(path.join(dir, "render"));
});
