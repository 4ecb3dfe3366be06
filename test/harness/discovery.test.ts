import * as path from "path";
import { FakeKube } from "../helpers/fake-kube";
import { validateObject } from "../helpers/schemas";
import { wmcoSubscription } from "../helpers/olm-objects";
import { PROJECT_DIR } from "./dynamic-plugin";
import { declared, errorsOf, runProgram, RunResult, stackConfig } from "./program";
import { isSecret, reveal } from "./wire";
import { tokenDigest } from "../../providers/day2/rollout";
import { NODE_INFO } from "../helpers/fake-nodes";
import { PolicyHost } from "./policy-host";

// `pulumi preview` with discovery on, through the real language host, against a local Kubernetes API stand-in that
// serves an OpenShift cluster's objects (hand-built, each validated against its openshift/api schema below). What
// is checked: WMCO's prerequisites stop the run before anything is declared; the WMCO version the cluster runs
// decides Windows Server support; every IDMS/ITMS in the cluster reaches the hosts.toml preview; the proxy is shown.
jest.setTimeout(120_000);

const DEV_FILE = path.join(PROJECT_DIR, "Pulumi.dev.yaml");
const NS = "openshift-windows-machine-config-operator";

const infrastructure = {
  apiVersion: "config.openshift.io/v1",
  kind: "Infrastructure",
  metadata: { name: "cluster" },
  spec: { platformSpec: { type: "Azure" } },
  status: {
    infrastructureName: "win-tmk9g",
    platform: "Azure",
    platformStatus: { type: "Azure" },
    apiServerURL: "https://api.x:6443",
    apiServerInternalURI: "https://api-int.x:6443",
    controlPlaneTopology: "HighlyAvailable",
    infrastructureTopology: "HighlyAvailable",
    etcdDiscoveryDomain: "",
  },
};
const linuxWorker = {
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "MachineSet",
  metadata: { name: "win-tmk9g-worker-westus", namespace: "openshift-machine-api" },
  spec: {
    replicas: 3,
    selector: { matchLabels: { "machine.openshift.io/cluster-api-cluster": "win-tmk9g" } },
    template: {
      metadata: {
        labels: {
          "machine.openshift.io/cluster-api-machine-role": "worker",
          "machine.openshift.io/cluster-api-machine-type": "worker",
        },
      },
      spec: {
        providerSpec: {
          value: {
            apiVersion: "machine.openshift.io/v1beta1",
            kind: "AzureMachineProviderSpec",
            location: "westus",
            zone: "",
            vnet: "win-tmk9g-vnet",
            subnet: "win-tmk9g-worker-subnet",
            resourceGroup: "win-tmk9g-rg",
            networkResourceGroup: "win-tmk9g-rg",
            publicLoadBalancer: "win-tmk9g-lb",
          },
        },
      },
    },
  },
};
const configNetwork = (cidr = "10.128.0.0/14") => ({
  apiVersion: "config.openshift.io/v1",
  kind: "Network",
  metadata: { name: "cluster" },
  spec: { networkType: "OVNKubernetes", clusterNetwork: [{ cidr, hostPrefix: 23 }], serviceNetwork: ["172.30.0.0/16"] },
});
const operatorNetwork = (hybrid: boolean) => ({
  apiVersion: "operator.openshift.io/v1",
  kind: "Network",
  metadata: { name: "cluster" },
  spec: {
    defaultNetwork: {
      type: "OVNKubernetes",
      ovnKubernetesConfig: hybrid
        ? { hybridOverlayConfig: { hybridClusterNetwork: [{ cidr: "10.132.0.0/14", hostPrefix: 23 }] } }
        : {},
    },
  },
});
const proxy = {
  apiVersion: "config.openshift.io/v1",
  kind: "Proxy",
  metadata: { name: "cluster" },
  spec: { httpsProxy: "http://svc:s3cret@proxy.example.com:3128", trustedCA: { name: "user-ca-bundle" } },
  status: { httpsProxy: "http://svc:s3cret@proxy.example.com:3128", noProxy: ".cluster.local,10.0.0.0/16" },
};
const clusterVersion = (version: string) => ({
  apiVersion: "config.openshift.io/v1",
  kind: "ClusterVersion",
  metadata: { name: "version" },
  spec: { clusterID: "6e2b3a4c-0f1d-4c8e-9a7b-2d5f8e1c3b6a" },
  status: {
    desired: { version, image: "quay.io/openshift-release-dev/ocp-release@sha256:abc" },
    availableUpdates: null,
    observedGeneration: 1,
    versionHash: "x",
  },
});
const subscription = (csv: string) => wmcoSubscription(csv);
// The OKD documentation's IDMS example (registry.access.redhat.com/ubi9/ubi-minimal mirrored to example.io), as another
// team would have created it in the cluster, and one with the name this stack gives its own pause-image set.
const docsIdms = {
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
};
const ourIdmsAsApplied = {
  apiVersion: "config.openshift.io/v1",
  kind: "ImageDigestMirrorSet",
  metadata: { name: "windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause" },
  spec: {
    imageDigestMirrors: [
      {
        source: "mcr.microsoft.com/oss/kubernetes/pause",
        mirrors: ["old.example.com/oss/kubernetes/pause"],
        mirrorSourcePolicy: "AllowContactingSource",
      },
    ],
  },
};

test("every served object is valid for its schema", () => {
  for (const o of [
    infrastructure,
    linuxWorker,
    configNetwork(),
    operatorNetwork(true),
    operatorNetwork(false),
    proxy,
    clusterVersion("4.22.3"),
    subscription("windows-machine-config-operator.v10.22.2"),
    docsIdms,
    ourIdmsAsApplied,
  ]) {
    expect(`${o.kind}: ${validateObject(o)}`).toBe(`${o.kind}: `);
  }
});

function cluster(o: { hybrid: boolean; version?: string; csv?: string; clusterCidr?: string }): FakeKube {
  const kube = new FakeKube();
  const ok = (body: unknown) => () => ({ status: 200, body });
  kube.route("/apis/config.openshift.io/v1/infrastructures/cluster", ok(infrastructure));
  kube.route(
    "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets",
    ok({ apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSetList", metadata: {}, items: [linuxWorker] }),
  );
  kube.route("/apis/config.openshift.io/v1/networks/cluster", ok(configNetwork(o.clusterCidr)));
  kube.route("/apis/operator.openshift.io/v1/networks/cluster", ok(operatorNetwork(o.hybrid)));
  kube.route("/apis/config.openshift.io/v1/proxies/cluster", ok(proxy));
  kube.route("/apis/config.openshift.io/v1/clusterversions/version", ok(clusterVersion(o.version ?? "4.22.3")));
  if (o.csv)
    kube.route(
      `/apis/operators.coreos.com/v1alpha1/namespaces/${NS}/subscriptions/windows-machine-config-operator`,
      ok(subscription(o.csv)),
    );
  kube.route(
    "/apis/config.openshift.io/v1/imagedigestmirrorsets",
    ok({
      apiVersion: "config.openshift.io/v1",
      kind: "ImageDigestMirrorSetList",
      metadata: {},
      items: [docsIdms, ourIdmsAsApplied],
    }),
  );
  kube.route(
    "/apis/config.openshift.io/v1/imagetagmirrorsets",
    ok({ apiVersion: "config.openshift.io/v1", kind: "ImageTagMirrorSetList", metadata: {}, items: [] }),
  );
  return kube;
}

async function preview(kube: FakeKube, over: Record<string, unknown> = {}): Promise<RunResult> {
  await kube.start();
  try {
    const base = stackConfig(DEV_FILE);
    const sets = JSON.parse(base.config["windows-estate:machineSets"]) as { azure: Record<string, unknown> }[];
    // publicLoadBalancer left to discovery: the worker's value must arrive in the MachineSet.
    const machineSets = sets.map((s) => ({ ...s, azure: { ...s.azure, publicLoadBalancer: undefined } }));
    const c = stackConfig(DEV_FILE, {
      cluster: { platform: "Azure", infrastructureId: "win-tmk9g", kubeconfig: kube.kubeconfig() },
      machineSets,
      ...over,
    });
    return await runProgram({ ...c, stack: "dev", preview: true });
  } finally {
    await kube.stop();
  }
}

test("a cluster without hybrid networking stops the preview with the fix, before any MachineSet or host is declared", async () => {
  const r = await preview(cluster({ hybrid: false }));
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toContain("windows-estate:cluster: the cluster is not configured for OVN hybrid networking");
  expect(errorsOf(r)).toContain(
    `oc patch networks.operator.openshift.io cluster --type=merge -p '{"spec":{"defaultNetwork":{"ovnKubernetesConfig":{"hybridOverlayConfig":{"hybridClusterNetwork":[{"cidr":"10.132.0.0/14","hostPrefix":23}]}}}}}'`,
  );
  expect(r.engine.registrations.filter((x) => x.type !== "pulumi:pulumi:Stack")).toEqual([]);
});

test("a class E cluster network stops the preview", async () => {
  const r = await preview(cluster({ hybrid: true, clusterCidr: "240.0.0.0/14" }));
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toMatch(/cluster network 240\.0\.0\.0\/14 is class E/);
});

describe("a cluster that meets the prerequisites", () => {
  let r: RunResult;
  beforeAll(async () => {
    r = await preview(cluster({ hybrid: true, csv: "windows-machine-config-operator.v10.22.2" }));
  });

  test("previews, checking support against the installed WMCO", () => {
    expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
    expect(
      r.engine.logs.some(
        (l) =>
          l.message ===
          "Windows Server support checked against WMCO 10.22 (the installed CSV windows-machine-config-operator.v10.22.2)",
      ),
    ).toBe(true);
  });

  test("the Azure MachineSet gets the Linux worker's publicLoadBalancer (hack/machineset.sh copies it)", () => {
    const ms = declared(r, "kubernetes:machine.openshift.io/v1beta1:MachineSet")[0].inputs as {
      spec: { template: { spec: { providerSpec: { value: { publicLoadBalancer?: string } } } } };
    };
    expect(ms.spec.template.spec.providerSpec.value.publicLoadBalancer).toBe("win-tmk9g-lb");
  });

  test("hosts.toml covers every mirror set in the cluster, marking which come from this stack (pkg/registries GenerateConfigFiles merges all)", () => {
    const sources = r.outputs.windowsRegistrySources as { scope: string; byRegistry: Record<string, string[]> };
    expect(sources.scope).toMatch(/every ImageDigestMirrorSet and ImageTagMirrorSet in the cluster/);
    expect(sources.byRegistry["registry.access.redhat.com"]).toEqual(["cluster: ubi9repo"]);
    // The cluster's copy of this stack's own set is replaced by what this stack declares now.
    expect(sources.byRegistry["mcr.microsoft.com"]).toEqual([
      "this stack: windows-estate-digest-mcr-microsoft-com-oss-kubernetes-pause",
    ]);
    const files = r.outputs.windowsRegistryConfig as Record<string, string>;
    // WMCO strips the segment the mirror shares with the source (ubi-minimal) and adds /v2: the Windows naming problem
    // that config validation warns about for this Linux image (pkg/registries mirror URL generation).
    expect(files["registry.access.redhat.com"]).toContain('[host."https://example.io/v2/example"]');
    expect(files["mcr.microsoft.com"]).toContain('[host."https://mirror.example.com:5000/v2/windows"]');
    expect(files["mcr.microsoft.com"]).not.toContain("old.example.com");
  });

  test("the cluster proxy is shown, without credentials", () => {
    expect(r.outputs.clusterProxy).toEqual({
      httpsProxy: "http://[credentials]@proxy.example.com:3128",
      noProxy: ".cluster.local,10.0.0.0/16",
      trustedCA: "user-ca-bundle",
    });
    expect(JSON.stringify(r.outputs)).not.toContain("s3cret");
  });
});

test("on OpenShift 5 (WMCO 11) a 2019 BYOH host is refused, naming the key and where the version came from", async () => {
  const r = await preview(cluster({ hybrid: true, version: "5.0.1" }), {
    byoh: [
      {
        address: "10.0.0.42",
        username: "Administrator",
        hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
        windowsServer: "2019",
      },
    ],
  });
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toMatch(
    /windows-estate:byoh\[0\]\.windowsServer: Windows Server 2019 is not supported on Azure by WMCO 11\.0 \(from the cluster version 5\.0\.1\)/,
  );
});

describe("a rolling reboot previews its batches from the cluster's Windows nodes", () => {
  // Ten Windows nodes from a MachineSet (Node → Machine → MachineSet label), two of them already rebooted for this
  // token (our own annotation with the token's digest), one left out by the nodeSelector.
  const digest = tokenDigest("2026-11-patch");
  const windowsNode = (i: number) => ({
    apiVersion: "v1",
    kind: "Node",
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
    status: { addresses: [{ type: "InternalIP", address: `10.0.1.${10 + i}` }] },
  });
  const nodes = Array.from({ length: 12 }, (_, i) => windowsNode(i));
  let r: RunResult;
  beforeAll(async () => {
    const kube = cluster({ hybrid: true, csv: "windows-machine-config-operator.v10.22.2" });
    kube.route("/api/v1/nodes", (_n, req) => ({
      status: 200,
      body: {
        apiVersion: "v1",
        kind: "NodeList",
        metadata: {},
        items: decodeURIComponent(req.query).includes("labelSelector=kubernetes.io/os=windows") ? nodes : [],
      },
    }));
    r = await preview(kube, { reboot: { token: "2026-11-patch", maxUnavailable: 3, nodeSelector: { pool: "main" } } });
  });

  test("the served Nodes are valid core/v1 Nodes", () => {
    for (const n of nodes) expect(validateObject(n)).toBe("");
  });

  test("preview declares the RollingReboot with the batches and shows them as a stack output", () => {
    expect(r.exitCode).toBe(0);
    const reboot = declared(r, "pulumi-nodejs:dynamic/windows-estate:RollingReboot");
    expect(reboot).toHaveLength(1);
    // Sorted by name; win-tmk9g-ms-0 and -5 are done for this token; -11 is not in pool=main.
    const batches = [
      ["win-tmk9g-ms-1", "win-tmk9g-ms-10", "win-tmk9g-ms-2"],
      ["win-tmk9g-ms-3", "win-tmk9g-ms-4", "win-tmk9g-ms-6"],
      ["win-tmk9g-ms-7", "win-tmk9g-ms-8", "win-tmk9g-ms-9"],
    ];
    expect(reveal(reboot[0].inputs)).toMatchObject({ token: "2026-11-patch", batches });
    expect(r.outputs.windowsReboot).toEqual({
      token: "2026-11-patch",
      plan: [
        "batch 1/3: win-tmk9g-ms-1, win-tmk9g-ms-10, win-tmk9g-ms-2",
        "batch 2/3: win-tmk9g-ms-3, win-tmk9g-ms-4, win-tmk9g-ms-6",
        "batch 3/3: win-tmk9g-ms-7, win-tmk9g-ms-8, win-tmk9g-ms-9",
        "already done: win-tmk9g-ms-0, win-tmk9g-ms-5",
      ].join("\n"),
    });
    // The SSH credentials the reboot needs travel only as a secret input.
    expect(isSecret(reboot[0].inputs.reach)).toBe(true);
  });
});

describe("patching previews the inventory and its batches from the Nodes' reported revisions", () => {
  // The kubelet reports `10.0.<build>.<UBR>` as kernelVersion (kubernetes pkg/kubelet/winstats/version.go); a
  // MachineSet node is one whose Machine (Node annotation) carries the MachineSet label (machine-api).
  const node = (name: string, kernel: string, o: { byoh?: string; machine?: string } = {}) => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "kubernetes.io/os": "windows",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/windows-build": kernel.split(".").slice(0, 3).join("."),
        ...(o.byoh ? { "windowsmachineconfig.openshift.io/byoh": "true" } : {}),
      },
      annotations: o.machine ? { "machine.openshift.io/machine": `openshift-machine-api/${o.machine}` } : {},
    },
    status: {
      addresses: [{ type: "InternalIP", address: o.byoh ?? `10.0.1.${name.length}` }],
      nodeInfo: {
        ...NODE_INFO,
        kernelVersion: kernel,
        kubeletVersion: "v1.35.3",
        containerRuntimeVersion: "containerd://2.1.4",
      },
    },
  });
  const machine = (name: string) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "Machine",
    metadata: {
      name,
      namespace: "openshift-machine-api",
      labels: { "machine.openshift.io/cluster-api-machineset": "winworker" },
    },
    spec: {},
  });
  const nodes = [
    node("byoh-host", "10.0.20348.2700", { byoh: "10.0.0.42" }),
    node("win-ms-a", "10.0.20348.2700", { machine: "win-ms-a" }),
    node("win-ms-b", "10.0.20348.3000", { machine: "win-ms-b" }),
    node("win-ms-c", "10.0.26100.4652", { machine: "win-ms-c" }),
  ];
  const machines = [machine("win-ms-a"), machine("win-ms-b"), machine("win-ms-c")];
  let r: RunResult;
  beforeAll(async () => {
    const kube = cluster({ hybrid: true, csv: "windows-machine-config-operator.v10.22.2" });
    kube.route("/api/v1/nodes", () => ({
      status: 200,
      body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: nodes },
    }));
    kube.route("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines", () => ({
      status: 200,
      body: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineList", metadata: {}, items: machines },
    }));
    r = await preview(kube, { patching: { minimumUpdateRevision: { "20348": 2900 }, maxUnavailable: 2 } });
  });

  test("the served Nodes and Machines are valid against their schemas", () => {
    for (const o of [...nodes, ...machines]) expect(validateObject(o)).toBe("");
  });

  test("every Windows node is in windowsNodeInventory with build, revision, versions, origin and patch level", () => {
    expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
    const inv = r.outputs.windowsNodeInventory as Record<string, unknown>[];
    expect(inv.map((e) => [e.node, e.from, e.windowsServer, e.build, e.revision, e.patchLevel])).toEqual([
      ["byoh-host", "BYOH 10.0.0.42", "2022", "20348", 2700, "below: build 20348 at revision 2700, below 2900"],
      ["win-ms-a", "MachineSet winworker", "2022", "20348", 2700, "below: build 20348 at revision 2700, below 2900"],
      ["win-ms-b", "MachineSet winworker", "2022", "20348", 3000, "ok"],
      ["win-ms-c", "MachineSet winworker", "2025", "26100", 4652, "no minimum declared for build 26100"],
    ]);
    expect(inv[0]).toMatchObject({ kubeletVersion: "v1.35.3", containerRuntimeVersion: "containerd://2.1.4" });
    // The stack declares windows2022 (its MachineSet and BYOH host run 2022); nothing picks the 2025 node.
    expect(inv.map((e) => e.runtimeClasses)).toEqual([["windows2022"], ["windows2022"], ["windows2022"], []]);
    expect(r.engine.logs.filter((l) => l.severity === "warning").map((l) => l.message)).toContainEqual(
      expect.stringContaining("node win-ms-c (build 10.0.26100) is picked by no RuntimeClass"),
    );
  });

  test("only the BYOH host is patched in place; the MachineSet node below the level is named for an image roll", () => {
    const p = declared(r, "pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
    expect(p).toHaveLength(1);
    expect(reveal(p[0].inputs)).toMatchObject({ minimumUpdateRevision: { "20348": 2900 }, batches: [["byoh-host"]] });
    expect(isSecret(p[0].inputs.reach)).toBe(true);
    expect(r.outputs.windowsPatching).toEqual({
      minimumUpdateRevision: { "20348": 2900 },
      plan: "batch 1/1: byoh-host",
      notManaged: ["win-ms-a"],
      replacedByImageRollout: [],
    });
  });

  test("the policy pack (real policy-pack host) refuses the update: a MachineSet node stays below the level", async () => {
    const host = new PolicyHost();
    await host.start();
    try {
      const [p] = r.state.resources.filter((x) => x.type === "pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
      const v = await host.analyze(p);
      expect(v.map((x) => [x.policy, x.message])).toEqual([
        [
          "windows-patch-level",
          expect.stringContaining(
            "win-ms-a (MachineSet winworker): build 20348 at revision 2700, below 2900: not patched in place; roll its MachineSet",
          ),
        ],
      ]);
      // Mandatory (pulumi-policy proto EnforcementLevel MANDATORY = 1).
      expect(v[0].enforcement).toBe(1);
    } finally {
      await host.stop();
    }
  });
});

describe("an image rollout previews which Machines of the set it replaces", () => {
  // machine-api returns providerSpec fields in its own order and omits empty ones: only the image's values count.
  const azureMachine = (name: string, image: Record<string, string>) => ({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "Machine",
    metadata: {
      name,
      namespace: "openshift-machine-api",
      labels: { "machine.openshift.io/cluster-api-machineset": "winworker" },
    },
    spec: {
      providerSpec: {
        value: { apiVersion: "machine.openshift.io/v1beta1", kind: "AzureMachineProviderSpec", image },
      },
    },
  });
  const machines = [
    azureMachine("winworker-old", {
      offer: "WindowsServer",
      publisher: "MicrosoftWindowsServer",
      sku: "2022-datacenter-smalldisk",
      version: "20348.2700.240905",
    }),
    azureMachine("winworker-new", {
      version: "latest",
      sku: "2022-datacenter-smalldisk",
      publisher: "MicrosoftWindowsServer",
      offer: "WindowsServer",
    }),
  ];
  let r: RunResult;
  beforeAll(async () => {
    const kube = cluster({ hybrid: true, csv: "windows-machine-config-operator.v10.22.2" });
    kube.route("/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines", () => ({
      status: 200,
      body: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineList", metadata: {}, items: machines },
    }));
    const base = stackConfig(DEV_FILE);
    const sets = JSON.parse(base.config["windows-estate:machineSets"]) as Record<string, unknown>[];
    // The old Machine's node is below the patch level: the rollout replaces it, so the update may go on.
    const oldNode = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "win-old",
        labels: { "kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348" },
        annotations: { "machine.openshift.io/machine": "openshift-machine-api/winworker-old" },
      },
      status: { nodeInfo: { ...NODE_INFO, kernelVersion: "10.0.20348.2700" } },
    };
    expect(validateObject(oldNode)).toBe("");
    kube.route("/api/v1/nodes", () => ({
      status: 200,
      body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: [oldNode] },
    }));
    r = await preview(kube, {
      machineSets: sets.map((s) => ({
        ...s,
        azure: { ...(s.azure as object), publicLoadBalancer: undefined },
        replicas: 2,
        rollout: { maxUnavailable: 1 },
      })),
      patching: { minimumUpdateRevision: { "20348": 2900 } },
    });
  });

  test("the served Machines are valid machine.openshift.io/v1beta1 Machines", () => {
    for (const m of machines) expect(validateObject(m)).toBe("");
  });

  test("only the Machine on the older image is planned, shown in the machineSets output and on the rollout", () => {
    expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
    expect(r.outputs.machineSets).toEqual([
      expect.objectContaining({ name: "winworker", replacing: ["winworker-old"] }),
    ]);
    const [rollout] = declared(r, "pulumi-nodejs:dynamic/windows-estate:MachineSetRollout");
    expect(reveal(rollout.inputs)).toMatchObject({ machineSet: "winworker", replicas: 2, planned: ["winworker-old"] });
    // After the MachineSet itself: the new image is in the template before any Machine is deleted.
    const [ms] = declared(r, "kubernetes:machine.openshift.io/v1beta1:MachineSet");
    expect(rollout.dependencies).toContain(ms.urn);
  });

  test("a node below the patch level whose Machine the rollout replaces is not held against the update", () => {
    expect(r.outputs.windowsPatching).toMatchObject({ notManaged: ["win-old"], replacedByImageRollout: ["win-old"] });
    const [p] = declared(r, "pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
    expect(reveal(p.inputs)).toMatchObject({ belowNotPatched: [] });
  });
});
