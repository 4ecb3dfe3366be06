import type { LabInfo } from "../../lab/record";
import { tokenDigest } from "../../providers/day2/rollout";
import { NODE_INFO } from "../helpers/fake-nodes";
import { labApi, stopLab } from "./lab";
import { exampleConfig, labProject, PlanStep, Stack } from "./project";

// Discovery through the real CLI (`pulumi preview --json`, discovery on) against the Azure lab, whose cluster the
// tests reshape with the objects another team or the installer would have created there: the real API server
// validates each against its real CRD (or core schema). What is checked: WMCO's prerequisites stop the run before
// anything is declared; the WMCO the cluster runs decides Windows Server support; every mirror set in the cluster
// reaches hosts.toml; the proxy is shown without credentials; day-2 plans are made from the Nodes and Machines.

const LAB = "e2e-discovery";
const MAPI = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api";
let lab: LabInfo;
let stack: Stack;
let base: Record<string, unknown>;
type Api = ReturnType<typeof labApi>;
let api: Api;

/** Merge-patches an object (or its status) in the lab; fails with the API's answer. */
async function patch(p: string, body: unknown): Promise<void> {
  const r = await api.request("PATCH", p, body, "application/merge-patch+json");
  if (r.status !== 200) throw new Error(`PATCH ${p} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
}
async function create(p: string, body: unknown): Promise<void> {
  const r = await api.request("POST", p, body);
  if (r.status !== 201) throw new Error(`POST ${p} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
}
/** A Node as its kubelet would have registered it, with the status the kubelet reports. */
async function createNode(node: { metadata: Record<string, unknown>; status: Record<string, unknown> }) {
  await create("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: node.metadata });
  await patch(`/api/v1/nodes/${node.metadata.name}/status`, { status: node.status });
}

/** The stack's config with `over` merged in, previewed; the plan and the stack outputs it shows. */
function preview(over: Record<string, unknown> = {}) {
  const config = { ...base };
  for (const [k, v] of Object.entries(over)) config[`windows-estate:${k}`] = v;
  stack.writeConfig(config);
  const p = stack.previewJson();
  return {
    ...p,
    of: (t: string) => p.steps.filter((s: PlanStep) => s.newState?.type === t),
    text: p.stdout + p.stderr,
  };
}

beforeAll(async () => {
  let dir: string;
  ({ lab, dir } = await labProject("azure", LAB));
  api = labApi(lab);
  base = exampleConfig(dir, "Pulumi.dev.yaml");
  // publicLoadBalancer left to discovery: the Linux worker's value must arrive in the MachineSet.
  const sets = base["windows-estate:machineSets"] as { azure: Record<string, unknown> }[];
  for (const s of sets) delete s.azure.publicLoadBalancer;
  stack = new Stack(dir, "e2e", lab).init(base);
}, 900_000);
afterAll(() => stopLab(LAB));

describe("WMCO's prerequisites", () => {
  test("a cluster without hybrid networking stops the preview with the fix, before anything is declared", async () => {
    const network = "/apis/operator.openshift.io/v1/networks/cluster";
    const before = (await api.get(network)).spec.defaultNetwork.ovnKubernetesConfig.hybridOverlayConfig;
    await patch(network, { spec: { defaultNetwork: { ovnKubernetesConfig: { hybridOverlayConfig: null } } } });
    try {
      const p = preview();
      expect(p.status).not.toBe(0);
      expect(p.text).toContain("windows-estate:cluster: the cluster is not configured for OVN hybrid networking");
      // WMCO docs/wmco-prerequisites.md ("Supported Networking"): configured during the cluster's installation, so
      // no patch of the running cluster is offered.
      expect(p.text).toContain("require hybrid networking to be configured when the cluster is installed");
      expect(p.text).not.toContain("oc patch networks.operator.openshift.io");
      expect(p.steps.filter((s) => s.newState?.type !== "pulumi:pulumi:Stack")).toEqual([]);
    } finally {
      await patch(network, { spec: { defaultNetwork: { ovnKubernetesConfig: { hybridOverlayConfig: before } } } });
    }
  });

  test("a Manual startingCSV pin of a WMCO release that does not run on the cluster's Kubernetes stops the preview", async () => {
    // The lab's kube-apiserver (lab/programs.ts KUBERNETES_VERSION, v1.36.x), and a pin of a CSV its catalog does not
    // offer (lab/catalog.ts: 10.22.0 and 11.0.0), refused from the facts before OLM is asked. release-4.20
    // pkg/cluster/config.go: baseK8sVersion "v1.33", and validateK8sVersion accepts one minor above: 1.33 and 1.34 only.
    const server = String((await api.get("/version")).gitVersion);
    expect(server).toMatch(/^v1\.36\./);
    const p = preview({
      operator: {
        channel: "stable",
        installPlanApproval: "Manual",
        startingCSV: "windows-machine-config-operator.v10.20.1",
      },
    });
    expect(p.status).not.toBe(0);
    expect(p.text).toContain(
      `windows-estate:operator.startingCSV: pins WMCO 10.20 (windows-machine-config-operator.v10.20.1, installPlanApproval: Manual), which runs on Kubernetes 1.33 and 1.34 only, but the cluster runs Kubernetes ${server}`,
    );
    // release-4.22 baseK8sVersion "v1.35" and master "v1.36" both accept 1.36.
    expect(p.text).toContain("pin a CSV of WMCO 10.22 or 11.0 that channel stable offers");
    expect(p.steps.filter((s) => s.newState?.type !== "pulumi:pulumi:Stack")).toEqual([]);
  });

  test("a class E cluster network stops the preview", async () => {
    const network = "/apis/config.openshift.io/v1/networks/cluster";
    const before = (await api.get(network)).spec.clusterNetwork;
    await patch(network, { spec: { clusterNetwork: [{ cidr: "240.0.0.0/14", hostPrefix: 23 }] } });
    try {
      const p = preview();
      expect(p.status).not.toBe(0);
      expect(p.text).toMatch(/cluster network 240\.0\.0\.0\/14 is class E/);
    } finally {
      await patch(network, { spec: { clusterNetwork: before } });
    }
  });

  test("on OpenShift 5 (WMCO 11) a 2019 BYOH host is refused, naming the key and where the version came from", async () => {
    const cv = "/apis/config.openshift.io/v1/clusterversions/version/status";
    const before = (await api.get("/apis/config.openshift.io/v1/clusterversions/version")).status;
    await patch(cv, { status: { desired: { ...before.desired, version: "5.0.1" } } });
    try {
      const p = preview({
        byoh: [
          {
            address: "10.0.0.42",
            username: "Administrator",
            hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
            windowsServer: "2019",
          },
        ],
      });
      expect(p.status).not.toBe(0);
      expect(p.text).toMatch(
        /windows-estate:byoh\[0\]\.windowsServer: Windows Server 2019 is not supported on Azure by WMCO 11\.0 \(from the cluster version 5\.0\.1\)/,
      );
    } finally {
      await patch(cv, { status: { desired: before.desired } });
    }
  });
});

describe("a cluster that meets them, with another team's mirror set and a proxy", () => {
  let p: ReturnType<typeof preview>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- stack outputs of many shapes, asserted by field
  let outputs: Record<string, any>;
  beforeAll(async () => {
    // The OKD documentation's IDMS example, as another team would have created it. (A set with the very name this
    // stack gives its own, created outside the stack, is not adopted: pulumi-kubernetes' server-side apply reports
    // the conflict with its manager.)
    await create("/apis/config.openshift.io/v1/imagedigestmirrorsets", {
      apiVersion: "config.openshift.io/v1",
      kind: "ImageDigestMirrorSet",
      metadata: { name: "ubi9repo" },
      spec: {
        imageDigestMirrors: [
          {
            source: "registry.access.redhat.com/ubi9/ubi-minimal",
            mirrors: ["example.io/example/ubi-minimal"],
            mirrorSourcePolicy: "AllowContactingSource",
          },
        ],
      },
    });
    await patch("/apis/config.openshift.io/v1/proxies/cluster", {
      spec: { httpsProxy: "http://svc:s3cret@proxy.example.com:3128", trustedCA: { name: "user-ca-bundle" } },
    });
    await patch("/apis/config.openshift.io/v1/proxies/cluster/status", {
      status: { httpsProxy: "http://svc:s3cret@proxy.example.com:3128", noProxy: ".cluster.local,10.0.0.0/16" },
    });
    p = preview();
    // The outputs (hosts.toml, proxy) are the stack's: applied without MachineSets (nothing to dial), then read.
    stack.writeConfig({ ...base, "windows-estate:machineSets": [] });
    stack.up();
    outputs = JSON.parse(stack.pulumi(["stack", "output", "--json"]).stdout);
  });

  test("previews", () => {
    expect(p.text).not.toMatch(/error:/);
    expect(p.status).toBe(0);
  });

  test("the Azure MachineSet gets the Linux worker's publicLoadBalancer (hack/machineset.sh copies it)", async () => {
    const worker = (await api.get(`${MAPI}/machinesets`)).items.find(
      (s: { metadata: { name: string } }) => !s.metadata.name.startsWith("winworker"),
    );
    const [ms] = p.of("kubernetes:machine.openshift.io/v1beta1:MachineSet");
    expect(ms.newState?.inputs?.spec.template.spec.providerSpec.value.publicLoadBalancer).toBe(
      worker.spec.template.spec.providerSpec.value.publicLoadBalancer,
    );
  });

  test("hosts.toml covers every mirror set in the cluster, marking which come from this stack (pkg/registries GenerateConfigFiles merges all)", () => {
    const sources = outputs.windowsRegistrySources;
    expect(sources.scope).toMatch(/every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster/);
    expect(sources.byRegistry["registry.access.redhat.com"]).toEqual(["cluster: ubi9repo"]);
    // This stack's own sets, as it declares them.
    expect(sources.byRegistry["mcr.microsoft.com"]).toEqual([
      "this stack: windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause",
    ]);
    const files = outputs.windowsRegistryConfig;
    // WMCO strips the segment the mirror shares with the source (ubi-minimal) and adds /v2 (pkg/registries).
    expect(files["registry.access.redhat.com"]).toContain('[host."https://example.io/v2/example"]');
    expect(files["mcr.microsoft.com"]).toContain('[host."https://mirror.example.com:5000/v2/windows"]');
  });

  test("the cluster proxy is shown, without credentials", () => {
    expect(outputs.clusterProxy).toEqual({
      httpsProxy: "http://[credentials]@proxy.example.com:3128",
      noProxy: ".cluster.local,10.0.0.0/16",
      trustedCA: "user-ca-bundle",
    });
    expect(JSON.stringify(outputs)).not.toContain("s3cret");
    expect(p.stdout).not.toContain("s3cret");
  });
});

describe("day-2 plans from the cluster's Windows Nodes and Machines", () => {
  // Registered as kubelets would (status through the status subresource). The kubelet reports `10.0.<build>.<UBR>`
  // as kernelVersion (kubernetes pkg/kubelet/winstats/version.go); a MachineSet node is one whose Machine (Node
  // annotation, machine-api's nodelink) carries the MachineSet label.
  const digest = tokenDigest("2026-11-patch");
  beforeAll(async () => {
    for (let i = 0; i < 12; i++)
      await createNode({
        metadata: {
          name: `win-tmk9g-ms-${i}`,
          labels: {
            "kubernetes.io/os": "windows",
            "node.kubernetes.io/windows-build": "10.0.20348",
            pool: i === 11 ? "canary" : "main",
          },
          annotations: {
            "machine.openshift.io/machine": `openshift-machine-api/win-tmk9g-ms-m${i}`,
            ...(i === 0 || i === 5 ? { "windows-estate.io/rebooted-for": digest } : {}),
          },
        },
        status: {
          addresses: [{ type: "InternalIP", address: `10.0.1.${10 + i}` }],
          nodeInfo: { ...NODE_INFO, kernelVersion: i === 3 ? "10.0.20348.3000" : "10.0.20348.2700" },
        },
      });
    for (let i = 0; i < 12; i++)
      await create(`${MAPI}/machines`, {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "Machine",
        metadata: {
          name: `win-tmk9g-ms-m${i}`,
          namespace: "openshift-machine-api",
          labels: { "machine.openshift.io/cluster-api-machineset": "winworker" },
        },
        spec: {
          providerSpec: {
            // What machine-api's Machine webhooks require of an Azure Machine (machine_webhook.go validateAzure:
            // vmSize, osDisk.diskSizeGB; the rest is defaulted on create) beside the image the plans read.
            value: {
              apiVersion: "machine.openshift.io/v1beta1",
              kind: "AzureMachineProviderSpec",
              location: "westus",
              vmSize: "Standard_D2s_v3",
              osDisk: { diskSizeGB: 128, osType: "Windows", managedDisk: { storageAccountType: "Premium_LRS" } },
              image:
                i === 1
                  ? {
                      offer: "WindowsServer",
                      publisher: "MicrosoftWindowsServer",
                      sku: "2022-datacenter-smalldisk",
                      version: "20348.2700.240905",
                    }
                  : {
                      version: "latest",
                      sku: "2022-datacenter-smalldisk",
                      publisher: "MicrosoftWindowsServer",
                      offer: "WindowsServer",
                    },
            },
          },
        },
      });
  });

  test("a rolling reboot previews its batches: done nodes skipped, the selector honoured, reach a secret", () => {
    const p = preview({ reboot: { token: "2026-11-patch", maxUnavailable: 3, nodeSelector: { pool: "main" } } });
    expect(p.status).toBe(0);
    const [reboot] = p.of("pulumi-nodejs:dynamic/windows-estate:RollingReboot");
    // Sorted by name; -0 and -5 are done for this token; -11 is not in pool=main.
    expect(reboot.newState?.inputs).toMatchObject({
      token: "2026-11-patch",
      batches: [
        ["win-tmk9g-ms-1", "win-tmk9g-ms-10", "win-tmk9g-ms-2"],
        ["win-tmk9g-ms-3", "win-tmk9g-ms-4", "win-tmk9g-ms-6"],
        ["win-tmk9g-ms-7", "win-tmk9g-ms-8", "win-tmk9g-ms-9"],
      ],
      reach: "[secret]",
    });
  });

  test("patching: MachineSet nodes below the level are named for an image roll, never patched in place", () => {
    const p = preview({ patching: { minimumUpdateRevision: { "20348": 2900 }, maxUnavailable: 2 } });
    expect(p.status).toBe(0);
    const [patching] = p.of("pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
    const below = patching.newState?.inputs?.belowNotPatched as string[];
    expect(patching.newState?.inputs?.batches).toEqual([]);
    expect(below).toContain("win-tmk9g-ms-4 (MachineSet winworker): build 20348 at revision 2700, below 2900");
    // -3 runs revision 3000: at the level.
    expect(below.filter((b) => b.startsWith("win-tmk9g-ms-3 "))).toEqual([]);
    expect(below.filter((b) => b.startsWith("win-tmk9g-ms-"))).toHaveLength(11);
  });

  test("an image rollout plans only the Machine on the older image, after the MachineSet, and frees its node from the patch level", () => {
    const sets = base["windows-estate:machineSets"] as Record<string, unknown>[];
    const p = preview({
      machineSets: sets.map((s) => ({ ...s, replicas: 12, rollout: { maxUnavailable: 1 } })),
      patching: { minimumUpdateRevision: { "20348": 2900 } },
    });
    expect(p.status).toBe(0);
    const [rollout] = p.of("pulumi-nodejs:dynamic/windows-estate:MachineSetRollout");
    expect(rollout.newState?.inputs).toMatchObject({
      machineSet: "winworker",
      replicas: 12,
      planned: ["win-tmk9g-ms-m1"],
    });
    const [ms] = p.of("kubernetes:machine.openshift.io/v1beta1:MachineSet");
    expect(rollout.newState?.dependencies).toContain(ms.urn);
    // The node the rollout replaces is not held against the patch level.
    const [patching] = p.of("pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
    const below = patching.newState?.inputs?.belowNotPatched as string[];
    expect(below.filter((b) => b.startsWith("win-tmk9g-ms-1 "))).toEqual([]);
    expect(below.filter((b) => b.startsWith("win-tmk9g-ms-"))).toHaveLength(10);
  });

  test("the policy pack refuses patching that leaves a MachineSet node below the level (mandatory)", () => {
    stack.writeConfig({ ...base, "windows-estate:patching": { minimumUpdateRevision: { "20348": 2900 } } });
    const r = stack.pulumi(["preview", "--policy-pack", `${stack.dir}/policy`]);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/\[mandatory\]\s+windows-patch-level/);
    expect(r.stdout).toMatch(
      /win-tmk9g-ms-4 \(MachineSet winworker\): build 20348 at revision 2700, below 2900: not patched in place; roll its MachineSet/,
    );
  });
});
