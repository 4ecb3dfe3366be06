import * as path from "path";
import { FakeKube } from "../helpers/fake-kube";
import { flannelConfigMap, kubeadmConfigMap } from "../helpers/vanilla-fixtures";
import { validateObject } from "../helpers/schemas";
import { PROJECT_DIR, UNKNOWN } from "./dynamic-plugin";
import { declared, errorsOf, runProgram, RunResult, stackConfig } from "./program";
import { isSecret, reveal } from "./wire";
import { NODE_INFO } from "../helpers/fake-nodes";

// `pulumi preview` of the vanilla example through the real language host, with discovery against a Kubernetes API
// stand-in serving a kubeadm cluster with flannel (objects in the shapes kubeadm and kube-flannel.yml write).
jest.setTimeout(120_000);

const EXAMPLE = path.join(PROJECT_DIR, "stacks", "examples", "Pulumi.kubeadm.yaml");
const kubeadmConfig = kubeadmConfigMap();

function cluster(o: { server: string; backend: Record<string, unknown> }): FakeKube {
  const kube = new FakeKube();
  const ok = (body: unknown) => () => ({ status: 200, body });
  kube.route("/version", ok({ major: "1", minor: o.server.split(".")[1], gitVersion: `v${o.server}` }));
  kube.route("/api/v1/namespaces/kube-system/configmaps/kubeadm-config", ok(kubeadmConfig));
  kube.route(
    "/api/v1/namespaces/kube-system/services/kube-dns",
    ok({ apiVersion: "v1", kind: "Service", metadata: { name: "kube-dns" }, spec: { clusterIP: "10.96.0.10" } }),
  );
  kube.route("/api/v1/namespaces/kube-flannel/configmaps/kube-flannel-cfg", ok(flannelConfigMap(o.backend)));
  return kube;
}

async function preview(kube: FakeKube, over: Record<string, unknown> = {}): Promise<RunResult> {
  await kube.start();
  try {
    const base = stackConfig(EXAMPLE);
    const k = JSON.parse(base.config["windows-estate:kubernetes"]);
    // The example's third node is a DNS name that resolves nowhere; here it is one that resolves (to 127.0.0.1).
    const nodes = JSON.parse(base.config["windows-estate:nodes"]).map((n: { address: string }, i: number) =>
      i === 2 ? { ...n, address: "localhost" } : n,
    );
    const c = stackConfig(EXAMPLE, {
      cluster: { platform: "Kubernetes", infrastructureId: "lab-kubeadm", kubeconfig: kube.kubeconfig() },
      // Version and networks from the cluster; the rest as the example has them.
      kubernetes: {
        ...k,
        version: undefined,
        podNetworkCidr: undefined,
        serviceCidr: undefined,
        dnsServiceIp: undefined,
      },
      nodes,
      ...over,
    });
    return await runProgram({ ...c, stack: "kubeadm", preview: true });
  } finally {
    await kube.stop();
  }
}

test("the served ConfigMaps are valid core/v1 ConfigMaps", () => {
  for (const o of [kubeadmConfig, flannelConfigMap({ Type: "vxlan" })])
    expect(validateObject(o, { closed: true })).toBe("");
});

describe("a kubeadm cluster with flannel's Linux defaults", () => {
  let r: RunResult;
  beforeAll(async () => {
    r = await preview(cluster({ server: "1.36.2", backend: { Type: "vxlan" } }));
  });

  test("previews with the cluster's version and networks", () => {
    expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
    expect(r.outputs.kubernetes).toMatchObject({
      version: "1.36.2",
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
    });
  });

  test("flannel's backend is patched to VNI 4096 / port 4789 in place, its other settings kept", () => {
    const [patch] = declared(r, "kubernetes:core/v1:ConfigMapPatch");
    const data = (reveal(patch.inputs) as { data: Record<string, string> }).data;
    expect(JSON.parse(data["net-conf.json"])).toEqual({
      Network: "10.244.0.0/16",
      EnableNFTables: false,
      Backend: { Type: "vxlan", VNI: 4096, Port: 4789 },
    });
  });

  test("each node: its files, then the node itself after them; a bootstrap token; credentials and the join file only as secrets", () => {
    expect(r.engine.registrations.map((x) => x.type)).toContain("pulumi-nodejs:dynamic/windows-estate:BootstrapToken");
    const nodes = declared(r, "pulumi-nodejs:dynamic/windows-estate:VanillaNode");
    expect(nodes.map((n) => n.name).sort()).toEqual([
      "estate-node-10.0.0.21",
      "estate-node-10.0.0.22",
      "estate-node-localhost",
    ]);
    const files = declared(r, "pulumi-nodejs:dynamic/windows-estate:NodeFiles");
    expect(files).toHaveLength(9);
    for (const n of nodes) {
      const mine = files.filter((f) => f.name.startsWith(`${n.name}-files-`)).map((f) => f.urn);
      expect(mine).toHaveLength(3);
      expect(n.dependencies).toEqual(expect.arrayContaining(mine));
      expect(isSecret(n.inputs.connection)).toBe(true);
      // At preview the join file waits on the token, which exists only after up: unknown, or a secret.
      expect(isSecret(n.inputs.joinConfig) || n.inputs.joinConfig === UNKNOWN).toBe(true);
      expect((reveal(n.inputs.downloads) as { name: string }[]).map((d) => d.name)).toEqual([
        "containerd",
        "kubelet",
        "kubeadm",
        "kube-proxy",
        "kube-log-runner",
        "cni-plugins",
        "flanneld",
        "flannel-cni",
      ]);
      // Its flanneld and kube-proxy pods are restarted when those binaries change.
      expect(reveal(n.inputs.networkAgents)).toEqual([
        { namespace: "kube-system", app: "windows-estate-flanneld", binary: "flanneld" },
        { namespace: "kube-system", app: "windows-estate-kube-proxy", binary: "kube-proxy" },
      ]);
    }
  });

  test("the Windows flanneld and kube-proxy DaemonSets come after their accounts, RBAC and scripts", () => {
    const ds = declared(r, "kubernetes:apps/v1:DaemonSet");
    expect(ds.map((d) => d.name).sort()).toEqual([
      "estate-windows-estate-flanneld",
      "estate-windows-estate-kube-proxy",
    ]);
    const before = [
      ...declared(r, "kubernetes:core/v1:ServiceAccount"),
      ...declared(r, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"),
      ...declared(r, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"),
      ...declared(r, "kubernetes:core/v1:ConfigMap"),
    ].map((x) => x.urn);
    expect(before).toHaveLength(6);
    for (const d of ds) expect(d.dependencies).toEqual(expect.arrayContaining(before));
  });
});

test("flannel.manage: false with the wrong backend stops the preview with the exact fix, before anything is declared", async () => {
  const base = JSON.parse(stackConfig(EXAMPLE).config["windows-estate:kubernetes"]);
  const r = await preview(cluster({ server: "1.36.2", backend: { Type: "vxlan" } }), {
    kubernetes: { ...base, version: undefined, flannel: { manage: false } },
  });
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toContain(
    "windows-estate:kubernetes.flannel.manage: flannel's VXLAN backend is not what Windows needs",
  );
  expect(errorsOf(r)).toContain(
    `kubectl -n kube-flannel patch configmap kube-flannel-cfg --type merge -p '{"data":{"net-conf.json":`,
  );
  expect(declared(r, "pulumi-nodejs:dynamic/windows-estate:VanillaNode")).toEqual([]);
});

test("a node version newer than the API server is refused (version-skew-policy)", async () => {
  const base = JSON.parse(stackConfig(EXAMPLE).config["windows-estate:kubernetes"]);
  const r = await preview(cluster({ server: "1.35.4", backend: { Type: "vxlan", VNI: 4096, Port: 4789 } }), {
    kubernetes: { ...base, version: "1.36.2" },
  });
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toContain(
    "windows-estate:kubernetes.version: 1.36.2 is outside the skew the API server (1.35.4) allows",
  );
});

test("a node given by a DNS name that does not resolve stops the preview naming it (flannel needs the node's IP)", async () => {
  const r = await preview(cluster({ server: "1.36.2", backend: { Type: "vxlan", VNI: 4096, Port: 4789 } }), {
    nodes: JSON.parse(stackConfig(EXAMPLE).config["windows-estate:nodes"]),
  });
  expect(r.exitCode).not.toBe(0);
  expect(errorsOf(r)).toContain(
    "windows-estate:nodes: win-vm3.lab.example.com does not resolve to an IPv4 address from here; flannel needs the node's IP",
  );
});

test("patching a vanilla cluster: the joined nodes below the level are planned, reached by their node connection", async () => {
  // Two of the example's nodes have joined; the kubelet reports their revisions (pkg/kubelet/winstats).
  const joined = (name: string, address: string, kernelVersion: string) => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348" } },
    status: { addresses: [{ type: "InternalIP", address }], nodeInfo: { ...NODE_INFO, kernelVersion } },
  });
  const nodes = [joined("win-vm1", "10.0.0.21", "10.0.20348.2700"), joined("win-vm2", "10.0.0.22", "10.0.20348.3000")];
  for (const n of nodes) expect(validateObject(n)).toBe("");
  const kube = cluster({ server: "1.36.2", backend: { Type: "vxlan", VNI: 4096, Port: 4789 } });
  kube.route("/api/v1/nodes", () => ({
    status: 200,
    body: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: nodes },
  }));
  const r = await preview(kube, { patching: { minimumUpdateRevision: { "20348": 2900 } } });
  expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
  const inv = r.outputs.windowsNodeInventory as Record<string, unknown>[];
  expect(inv.map((e) => [e.node, e.from, e.revision, e.patchLevel])).toEqual([
    ["win-vm1", "vanilla 10.0.0.21", 2700, "below: build 20348 at revision 2700, below 2900"],
    ["win-vm2", "vanilla 10.0.0.22", 3000, "ok"],
  ]);
  const [p] = declared(r, "pulumi-nodejs:dynamic/windows-estate:WindowsPatching");
  expect(reveal(p.inputs)).toMatchObject({ batches: [["win-vm1"]], belowNotPatched: [] });
  // The node connections (with the node key) travel only as a secret, and the rollout waits for the nodes.
  expect(isSecret(p.inputs.connections)).toBe(true);
  expect(Object.keys(reveal(p.inputs.connections) as object)).toEqual(
    expect.arrayContaining(["10.0.0.21", "10.0.0.22"]),
  );
});

test("vanilla nodes created on AWS: EC2 instances with VXLAN open, their files and the node after them, names from the entry", async () => {
  const base = stackConfig(EXAMPLE);
  const nodes = JSON.parse(base.config["windows-estate:nodes"]).slice(0, 1);
  const r = await preview(cluster({ server: "1.36.2", backend: { Type: "vxlan", VNI: 4096, Port: 4789 } }), {
    nodes: [
      ...nodes,
      {
        name: "winvan",
        count: 2,
        aws: { region: "us-east-2", subnetId: "subnet-0a1b2c3d", securityGroupIds: ["sg-0a1b2c3d"] },
      },
    ],
  });
  expect({ exit: r.exitCode, errors: errorsOf(r) }).toEqual({ exit: 0, errors: "" });
  const vms = r.engine.registrations.filter((x) => x.type === "aws:ec2/instance:Instance");
  expect(vms.map((v) => v.name).sort()).toEqual(["estate-node-vms-winvan-1", "estate-node-vms-winvan-2"]);
  for (const v of vms) {
    expect(v.provider).toMatch(/[$:]pulumi:providers:aws::estate-node-vms-aws-us-east-2::/);
    // The flannel VXLAN port is opened besides WMCO's ports (Windows flanneld accepts 4789 only).
    expect(String(reveal(v.inputs.userData))).toContain("-Protocol UDP -LocalPort 4789");
  }
  const joined = declared(r, "pulumi-nodejs:dynamic/windows-estate:VanillaNode")
    .map((n) => n.name)
    .sort();
  expect(joined).toEqual(["estate-node-10.0.0.21", "estate-node-winvan-1", "estate-node-winvan-2"]);
  // Each created node's files wait for its VM; the node waits for its files.
  const files = declared(r, "pulumi-nodejs:dynamic/windows-estate:NodeFiles").filter((f) =>
    f.name.startsWith("estate-node-winvan-1-files-"),
  );
  expect(files).toHaveLength(3);
  const vm1 = vms.find((v) => v.name === "estate-node-vms-winvan-1");
  for (const f of files) expect(f.dependencies).toContain(vm1?.urn);
  const [node1] = declared(r, "pulumi-nodejs:dynamic/windows-estate:VanillaNode").filter(
    (n) => n.name === "estate-node-winvan-1",
  );
  expect(node1.dependencies).toEqual(expect.arrayContaining(files.map((f) => f.urn)));
  expect(reveal(node1.inputs)).toMatchObject({ nodeName: "winvan-1" });
});
