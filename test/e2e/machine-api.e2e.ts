import { spawnSync } from "child_process";
import { programPath } from "../../lab/cache";
import { checkGo } from "../../lab/go";
import { programNamed } from "../../lab/programs";
import type { LabInfo } from "../../lab/record";
import { labApi, startLabAsync, stopLab } from "./lab";
import { exampleConfig, projectCopyAsync, Stack, writeWmcoKey } from "./project";

// The program against the real machine-api (issue 43 item 5): machine-api-operator's MachineSet controller and its
// Machine/MachineSet admission webhooks (lab/machine-api.ts), on every platform, through the real CLI. The
// defaulting webhook rewrites providerSpec on create (machine-api-operator pkg/webhooks/machine_webhook.go
// `defaultAWS`, `defaultAzure`, …: the spec decoded into openshift/api's type and marshalled back, defaults added):
// what pulumi-kubernetes then reads back must show neither a diff nor a replace, after `up` and after `refresh`.
// Every set the program renders is also decoded strictly against openshift/api's Go types (machineset-check), since
// the real create drops an unknown or wrongly cased field without a word.
//
// One lab per platform: the webhooks read Infrastructure/cluster once, when they start (lab/machine-api.ts), so a
// lab's platform is fixed for its life. The platforms' stacks share one project copy, and the next platform's lab
// starts while the tests of the one before run (each is stopped when its platform is done).

const MACHINE_API = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api";
const checker = programPath(programNamed("machineset-check"), checkGo());

type Set = Record<string, unknown> & { name: string; replicas: number };
interface Case {
  platform: "aws" | "azure" | "gcp" | "vsphere" | "nutanix";
  /** The stack file the config starts from (its machineSets replaced by `set`). */
  file: string;
  set: Set;
  /** An edit of the set's image (GCP: its Windows Server, which chooses the image). */
  edit: (s: Set) => void;
  /** Where the edit shows in the live providerSpec, and its value after. */
  edited: (providerSpec: Record<string, any>) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
  after: unknown;
  /** What the edit rightly deletes beside (GCP: the RuntimeClass of a Windows build no set uses any more). */
  retired?: string[];
}

// vSphere last: the refusals below run on its lab right after it.
const CASES: Case[] = [
  {
    platform: "aws",
    file: "stacks/examples/Pulumi.aws.yaml",
    set: {
      name: "winmapi",
      replicas: 1,
      windowsServer: "2022",
      aws: { availabilityZone: "us-east-1a", ami: "ami-0aaaaaaaaaaaaaaa1" },
    },
    edit: (s) => ((s.aws as Record<string, unknown>).ami = "ami-0bbbbbbbbbbbbbbb2"),
    edited: (p) => p.ami.id,
    after: "ami-0bbbbbbbbbbbbbbb2",
  },
  {
    platform: "azure",
    file: "Pulumi.dev.yaml",
    set: { name: "winmapi", replicas: 1, windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3" } },
    edit: (s) => ((s.azure as Record<string, unknown>).imageVersion = "20348.2966.241205"),
    edited: (p) => p.image.version,
    after: "20348.2966.241205",
  },
  {
    platform: "gcp",
    file: "stacks/examples/Pulumi.gcp.yaml",
    set: {
      name: "winmapi",
      replicas: 1,
      windowsServer: "2022",
      gcp: { projectID: "my-project", zone: "us-central1-a" },
    },
    // Google's public image family (cloud.google.com/compute/docs/images/os-details, "windows-cloud"), as WMCO's
    // hack/machineset.sh names it for GCP: `projects/windows-cloud/global/images/family/windows-<version>-core`.
    edit: (s) => (s.windowsServer = "2025"),
    edited: (p) => p.disks[0].image,
    after: "projects/windows-cloud/global/images/family/windows-2025-core",
    // RuntimeClasses are published for the Windows builds in use only: 2022's goes with the last 2022 set.
    retired: ["delete estate-runtimeclasses-2022"],
  },
  {
    platform: "nutanix",
    file: "stacks/examples/Pulumi.nutanix.yaml",
    set: {
      name: "ocp-ntnx-2mkp4-windows-worker-a",
      replicas: 1,
      nutanix: {
        clusterUuid: "0005b0f1-8f43-a0f2-02b7-3cecef193712",
        subnetUuid: "c7938dc6-7659-453e-a688-e26020c68e43",
        image: "nutanix-windows-server-2022",
      },
    },
    edit: (s) => ((s.nutanix as Record<string, unknown>).image = "nutanix-windows-server-2022-v2"),
    edited: (p) => p.image.name,
    after: "nutanix-windows-server-2022-v2",
  },
  {
    platform: "vsphere",
    file: "stacks/examples/Pulumi.vsphere.yaml",
    set: {
      name: "winmapi",
      replicas: 1,
      vsphere: {
        template: "windows-golden-images/windows-server-2022-template",
        server: "vcenter.example.com",
        datacenter: "DC1",
        datastore: "vsanDatastore",
        folder: "/DC1/vm/ocp-vs-4hd8w",
        resourcePool: "/DC1/host/Cluster1/Resources",
        networkName: "ocp-net",
      },
    },
    edit: (s) => ((s.vsphere as Record<string, unknown>).template = "windows-golden-images/windows-server-2022-v2"),
    edited: (p) => p.template,
    after: "windows-golden-images/windows-server-2022-v2",
  },
];

/** The MachineSets the stack declared (their inputs in the state: what the program sent, before any webhook). */
function declaredMachineSets(stack: Stack): Record<string, unknown>[] {
  const state = JSON.parse(stack.pulumi(["stack", "export"]).stdout) as {
    deployment: { resources?: { type: string; inputs?: Record<string, unknown> }[] };
  };
  return (state.deployment.resources ?? [])
    .filter((r) => r.type === "kubernetes:machine.openshift.io/v1beta1:MachineSet")
    .map((r) => {
      const { __fieldManager, ...inputs } = r.inputs ?? {};
      void __fieldManager;
      return inputs;
    });
}

function machinesetCheck(input: unknown): { status: number | null; out: string } {
  const r = spawnSync(checker, [], { input: JSON.stringify(input), encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** `pulumi preview --expect-no-changes`, failing with the CLI's words. */
function expectNoChanges(stack: Stack, when: string): void {
  const r = stack.pulumi(["preview", "--expect-no-changes", "--diff"]);
  if (r.status !== 0)
    throw new Error(`preview after ${when} shows changes:\n${r.stdout.slice(-4000)}${r.stderr.slice(-1000)}`);
}

/** Up, then no changes; with `refresh`, a refresh, then no changes again. */
function upAndConverge(stack: Stack, what: string, refresh = true): void {
  stack.up();
  expectNoChanges(stack, `up (${what})`);
  if (!refresh) return;
  const r = stack.pulumi(["refresh", "--yes"]);
  if (r.status !== 0) throw new Error(`refresh failed: ${r.stdout.slice(-3000)}${r.stderr.slice(-1000)}`);
  expectNoChanges(stack, `refresh (${what})`);
}

/** The set's Machines, made by the real controller: owned by it (controller reference), as many as its replicas. */
async function machinesOf(lab: LabInfo, set: string, replicas: number) {
  const api = labApi(lab);
  const ms = await api.get(`${MACHINE_API}/machinesets/${set}`);
  return api.until(
    `${MACHINE_API}/machines?labelSelector=${encodeURIComponent(`machine.openshift.io/cluster-api-machineset=${set}`)}`,
    (l) =>
      l.items.filter((m: { metadata: { deletionTimestamp?: string } }) => !m.metadata.deletionTimestamp).length ===
        replicas &&
      l.items.every((m: { metadata: { ownerReferences?: { uid: string; controller?: boolean }[] } }) =>
        m.metadata.ownerReferences?.some((o) => o.uid === ms.metadata.uid && o.controller === true),
      ),
    `${replicas} Machine(s) of MachineSet ${set}, owned by it`,
  );
}

const destructive = (plan: string[]) =>
  plan.filter((l) => /^(replace|delete|delete-replaced|create-replacement) /.test(l));

test("machineset-check refuses an unknown and a wrongly cased field, and passes a clean set", () => {
  const set = (value: Record<string, unknown>) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: { name: "probe" },
    spec: { template: { spec: { providerSpec: { value } } } },
  });
  const clean = {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "AWSMachineProviderConfig",
    instanceType: "m5.large",
  };
  expect(machinesetCheck([set(clean)])).toEqual({ status: 0, out: "" });
  const bad = machinesetCheck([set({ ...clean, InstanceType: "m5.large", amiID: "ami-1" })]);
  expect(bad.status).toBe(1);
  expect(bad.out).toContain(
    'probe: spec.template.spec.providerSpec.value (AWSMachineProviderConfig): unknown field "InstanceType"',
  );
  expect(bad.out).toContain('unknown field "amiID"');
});

/** The labs of the platforms, by name, each started at most once (the next one while the one before is tested). */
const labs = new Map<string, Promise<LabInfo>>();
const labName = (c: Case) => `e2e-mapi-${c.platform}`;
function labOf(c: Case): Promise<LabInfo> {
  const name = labName(c);
  if (!labs.has(name)) labs.set(name, startLabAsync(c.platform, name));
  return labs.get(name) as Promise<LabInfo>;
}
function stopLabOf(c: Case): void {
  if (labs.delete(labName(c))) stopLab(labName(c));
}
// Whatever is still running when the file ends (a platform whose tests failed early, a lab started ahead).
afterAll(() => CASES.forEach(stopLabOf));

/** One project copy for every platform's stack (`e2e-<platform>`), with the WMCO key written. */
let copy: Promise<string> | undefined;
const projectDir = () =>
  (copy ??= projectCopyAsync().then((dir) => {
    writeWmcoKey(dir);
    return dir;
  }));

describe.each(CASES)("$platform: the real MachineSet controller and webhooks", (c) => {
  let lab: LabInfo;
  let stack: Stack;
  let config: Record<string, unknown>;
  const sets = () => config["windows-estate:machineSets"] as Set[];
  beforeAll(async () => {
    const [started, dir] = await Promise.all([labOf(c), projectDir()]);
    lab = started;
    const next = CASES[CASES.indexOf(c) + 1];
    if (next) void labOf(next).catch(() => undefined); // its own beforeAll reports a failed start
    config = exampleConfig(dir, c.file);
    // Against the cluster: discovery on (the examples turn it off only to render offline).
    delete (config["windows-estate:cluster"] as Record<string, unknown>).discovery;
    config["windows-estate:machineSets"] = [structuredClone(c.set)];
    stack = new Stack(dir, `e2e-${c.platform}`, lab).init(config);
  }, 900_000);
  afterAll(() => {
    // The refusals below run on the vSphere lab and stop it.
    if (c.platform !== "vsphere") stopLabOf(c);
  });

  test("create: admitted, Machines made by the controller; no changes after up nor after refresh; strict decoding clean", async () => {
    upAndConverge(stack, "create");
    const name = c.set.name;
    await machinesOf(lab, name, 1);
    // The defaulting webhook did rewrite the spec (it added defaults), and the program still sees no change.
    const live = await labApi(lab).get(`${MACHINE_API}/machinesets/${name}`);
    expect(live.spec.template.spec.providerSpec.value.kind).toBeDefined();
    const declared = declaredMachineSets(stack);
    expect(declared).toHaveLength(1);
    expect(machinesetCheck(declared)).toEqual({ status: 0, out: "" });
  });

  test("replicas 1 → 2: updated in place, the controller makes the second Machine; no changes after", async () => {
    sets()[0].replicas = 2;
    stack.writeConfig(config);
    expect(destructive(stack.plan())).toEqual([]);
    upAndConverge(stack, "replicas", false);
    await machinesOf(lab, c.set.name, 2);
  });

  test("image edit: the MachineSet updated in place (never replaced); no changes after", async () => {
    const before = await labApi(lab).get(`${MACHINE_API}/machinesets/${c.set.name}`);
    c.edit(sets()[0]);
    stack.writeConfig(config);
    const plan = stack.plan();
    expect(destructive(plan)).toEqual(c.retired ?? []);
    expect(plan.filter((l) => l.endsWith("-machineset"))).toEqual([`update estate-ms-${c.set.name}-machineset`]);
    upAndConverge(stack, "image edit", false);
    const after = await labApi(lab).get(`${MACHINE_API}/machinesets/${c.set.name}`);
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(c.edited(after.spec.template.spec.providerSpec.value)).toBe(c.after);
    expect(machinesetCheck(declaredMachineSets(stack))).toEqual({ status: 0, out: "" });
  });

  test("rename: the new set created with its Machines, the old one and its Machines gone; converged", async () => {
    const old = c.set.name;
    const renamed = c.platform === "nutanix" ? "ocp-ntnx-2mkp4-windows-worker-b" : "winmapi2";
    sets()[0].name = renamed;
    stack.writeConfig(config);
    upAndConverge(stack, "rename");
    const api = labApi(lab);
    expect(await api.status(`${MACHINE_API}/machinesets/${old}`)).toBe(404);
    await machinesOf(lab, renamed, 2);
    await api.until(
      `${MACHINE_API}/machines?labelSelector=${encodeURIComponent(`machine.openshift.io/cluster-api-machineset=${old}`)}`,
      (l) => l.items.length === 0,
      `the Machines of ${old} deleted`,
    );
  });

  test("delete: the set removed from the stack is deleted with its Machines; no changes after", async () => {
    const name = sets()[0].name;
    config["windows-estate:machineSets"] = [];
    stack.writeConfig(config);
    upAndConverge(stack, "delete", false);
    const api = labApi(lab);
    expect(await api.status(`${MACHINE_API}/machinesets/${name}`)).toBe(404);
    await api.until(
      `${MACHINE_API}/machines?labelSelector=${encodeURIComponent(`machine.openshift.io/cluster-api-machineset=${name}`)}`,
      (l) => l.items.length === 0,
      `the Machines of ${name} deleted`,
    );
  });
});

describe("vSphere: what the webhooks refuse (on the vSphere lab, its set deleted above)", () => {
  const vsphere = CASES.find((c) => c.platform === "vsphere") as Case;
  let lab: LabInfo;
  let stack: Stack;
  let config: Record<string, unknown>;
  beforeAll(async () => {
    const [started, dir] = await Promise.all([labOf(vsphere), projectDir()]);
    lab = started;
    config = exampleConfig(dir, vsphere.file);
    delete (config["windows-estate:cluster"] as Record<string, unknown>).discovery;
    config["windows-estate:machineSets"] = [];
    // The vSphere case's stack, whose last test left it with no MachineSet: the operator it installed stays.
    stack = new Stack(dir, `e2e-${vsphere.platform}`, lab);
    stack.writeConfig(config);
  }, 900_000);
  afterAll(() => stopLabOf(vsphere));

  const vsphereSet = () => structuredClone(vsphere.set);

  test("a credentials Secret that does not exist is a preview warning naming it (machine-api only warns)", () => {
    const set = vsphereSet();
    (set.vsphere as Record<string, unknown>).credentialsSecret = "vc-creds-elsewhere";
    config["windows-estate:machineSets"] = [set];
    stack.writeConfig(config);
    const p = stack.pulumi(["preview"]);
    expect(p.status).toBe(0);
    expect(p.stdout).toContain(
      "windows-estate:machineSets[0]: the credentials Secret openshift-machine-api/vc-creds-elsewhere does not exist",
    );
    // The seeded vsphere-cloud-credentials exists: nothing is said of it.
    (set.vsphere as Record<string, unknown>).credentialsSecret = "vsphere-cloud-credentials";
    stack.writeConfig(config);
    expect(stack.pulumi(["preview"]).stdout).not.toContain("does not exist");
  });

  test("a relative vSphere folder: up fails naming the set and quoting the validating webhook; nothing is created", async () => {
    // machine_webhook.go validateVSphereWorkspace: a folder must be an absolute path under /<datacenter>/vm/. The
    // program passes the folder as given; only the real webhook refuses it (the played machine controller took it).
    const set = vsphereSet();
    (set.vsphere as Record<string, unknown>).folder = "ocp-vs-4hd8w";
    set.name = "winbad";
    config["windows-estate:machineSets"] = [set];
    stack.writeConfig(config);
    const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
    expect(r.status).not.toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain("estate-ms-winbad-machineset");
    expect(out).toContain(
      'admission webhook "validation.machineset.machine.openshift.io" denied the request: ' +
        'providerSpec.workspace.folder: Invalid value: "ocp-vs-4hd8w": folder must be absolute path: expected prefix "/DC1/vm/"',
    );
    expect(await labApi(lab).status(`${MACHINE_API}/machinesets/winbad`)).toBe(404);
  });
});
