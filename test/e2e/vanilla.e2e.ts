import type { LabInfo } from "../../lab/record";
import { KUBERNETES_VERSION } from "../../lab/programs";
import { KUBEADM_NETWORKS } from "../../lab/seed/kubeadm";
import { NODE_INFO } from "../helpers/fake-nodes";
import { labApi, stopLab } from "./lab";
import { playedCloudPlugins } from "./played-cloud/plugins";
import { diagnosticMessages, exampleConfig, labProject, PlanStep, Stack } from "./project";
import { acquireLease, SlotOptions } from "../../providers/day2/leases";
import { acquireDay2Lock, holderIdentity, withDay2Lock } from "../../providers/day2/day2-lock";
import { DAY2_LOCK } from "../../facts/day2";
import type { KubeApi } from "../../providers/kube-wait/api";

// The kubeadm example previewed through the real CLI against the lab's kubeadm cluster (`--platform none`: the
// real API server with kubeadm's kubeadm-config, kube-dns Service and flannel's ConfigMap with its Linux defaults,
// lab/seed/kubeadm.ts). Discovery fills the version and networks from the cluster. The nodes' joins need Windows and
// are not run here: the preview plans them.

const LAB = "e2e-vanilla";
const WE = "pulumi-nodejs:dynamic/windows-estate";
let lab: LabInfo;
let stack: Stack;
let base: Record<string, unknown>;
const SERVER = KUBERNETES_VERSION.replace(/^v/, "");

const kubernetes = () => base["windows-estate:kubernetes"] as Record<string, unknown>;
const exampleNodes = () => base["windows-estate:nodes"] as Record<string, unknown>[];

/** The example against the lab: no render, version and networks from the cluster, node 3 by a name that resolves. */
function preview(over: Record<string, unknown> = {}, s = stack) {
  const config: Record<string, unknown> = {
    ...base,
    "windows-estate:kubernetes": {
      ...kubernetes(),
      version: undefined,
      podNetworkCidr: undefined,
      serviceCidr: undefined,
      dnsServiceIp: undefined,
    },
    "windows-estate:nodes": exampleNodes().map((n, i) => (i === 2 ? { ...n, address: "localhost" } : n)),
  };
  for (const [k, v] of Object.entries(over)) config[`windows-estate:${k}`] = v;
  s.writeConfig(JSON.parse(JSON.stringify(config)));
  const p = s.previewJson();
  const messages = diagnosticMessages(p);
  return {
    ...p,
    of: (t: string) => p.steps.filter((x: PlanStep) => x.newState?.type === t),
    messages,
  };
}
const name = (s: PlanStep) => s.urn.split("::").pop() ?? "";
const deps = (s: PlanStep) => s.newState?.dependencies ?? [];

beforeAll(async () => {
  let dir: string;
  ({ lab, dir } = await labProject("none", LAB));
  base = exampleConfig(dir, "stacks/examples/Pulumi.kubeadm.yaml");
  const cluster = base["windows-estate:cluster"] as Record<string, unknown>;
  delete cluster.render;
  stack = new Stack(dir, "kubeadm", lab).init(base);
}, 900_000);
afterAll(() => stopLab(LAB));

describe("a kubeadm cluster with flannel's Linux defaults", () => {
  let p: ReturnType<typeof preview>;
  beforeAll(() => {
    p = preview();
  });

  test("previews with the cluster's version (discovered: the config leaves it out)", () => {
    expect(p.messages).not.toMatch(/error:/);
    expect(p.status).toBe(0);
    // The node binaries of the API server's version (the networks: the flannel patch below).
    const nodes = p.of(`${WE}:VanillaNode`);
    expect(JSON.stringify(nodes[0].newState?.inputs?.downloads)).toContain(`v${SERVER}`);
  });

  test("flannel's backend is patched to VNI 4096 / port 4789 in place, its other settings kept", () => {
    // flannel pkg/backend/vxlan/vxlan_windows.go: VNI at least 4096, port 4789 on Windows.
    const [patch] = p.of("kubernetes:core/v1:ConfigMapPatch");
    expect(JSON.parse(patch.newState?.inputs?.data["net-conf.json"])).toEqual({
      Network: KUBEADM_NETWORKS.podSubnet,
      EnableNFTables: false,
      Backend: { Type: "vxlan", VNI: 4096, Port: 4789 },
    });
    // Kept when it leaves the program: relinquishing net-conf.json would delete it (pulumi-kubernetes ssa Relinquish).
    expect(patch.newState?.retainOnDelete).toBe(true);
  });

  test("Linux flanneld restarts after the patch and before any node joins, and the preview says what the roll does", () => {
    // flannel pkg/subnet/kube/kube.go NewSubnetManager reads net-conf.json once, at start.
    const [netConf] = p.of("kubernetes:core/v1:ConfigMapPatch");
    const restart = p.of("kubernetes:apps/v1:DaemonSetPatch").filter((s) => name(s) === "estate-flannel-restart");
    expect(restart).toHaveLength(1);
    expect(restart[0].newState?.inputs?.spec?.template?.metadata?.annotations).toEqual({
      "windows-estate.io/flannel-backend": "vxlan vni=4096 port=4789",
    });
    expect(deps(restart[0])).toContain(netConf.urn);
    for (const n of p.of(`${WE}:VanillaNode`)) expect(deps(n)).toContain(restart[0].urn);
    // The lab's kubeadm cluster has three Linux Nodes (its played control plane and two workers, linux-kubelet.ts).
    expect(p.messages).toContain(
      "flannel's VXLAN backend changes from VNI 1 / port 8472 to VNI 4096 / port 4789, which Windows needs: kube-flannel-ds restarts on 3 Linux nodes",
    );
  });

  test("each node: its files, then the node after them; a bootstrap token; credentials only as secrets", () => {
    expect(p.of(`${WE}:BootstrapToken`)).toHaveLength(1);
    const nodes = p.of(`${WE}:VanillaNode`);
    expect(nodes.map(name).sort()).toEqual(["estate-node-10.0.0.21", "estate-node-10.0.0.22", "estate-node-localhost"]);
    const files = p.of(`${WE}:NodeFiles`);
    expect(files).toHaveLength(9);
    for (const n of nodes) {
      const mine = files.filter((f) => name(f).startsWith(`${name(n)}-files-`)).map((f) => f.urn);
      expect(mine).toHaveLength(3);
      expect(deps(n)).toEqual(expect.arrayContaining(mine));
      expect(n.newState?.inputs?.connection).toBe("[secret]");
      expect((n.newState?.inputs?.downloads as { name: string }[]).map((d) => d.name)).toEqual([
        "containerd",
        "kubelet",
        "kubeadm",
        "kube-proxy",
        "kube-log-runner",
        "cni-plugins",
        "flanneld",
        "flannel-cni",
      ]);
    }
  });

  test("the Windows flanneld and kube-proxy DaemonSets come after their accounts, RBAC and scripts", () => {
    const ds = p.of("kubernetes:apps/v1:DaemonSet");
    expect(ds.map(name).sort()).toEqual(["estate-windows-estate-flanneld", "estate-windows-estate-kube-proxy"]);
    const before = [
      ...p.of("kubernetes:core/v1:ServiceAccount"),
      ...p.of("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"),
      ...p.of("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"),
      ...p.of("kubernetes:core/v1:ConfigMap"),
    ].map((x) => x.urn);
    expect(before).toHaveLength(6);
    for (const d of ds) expect(deps(d)).toEqual(expect.arrayContaining(before));
  });
});

test("flannel.manage: false with the wrong backend stops the preview with the exact fix, before anything is declared", () => {
  const p = preview({ kubernetes: { ...kubernetes(), version: undefined, flannel: { manage: false } } });
  expect(p.status).not.toBe(0);
  expect(p.messages).toContain(
    "windows-estate:kubernetes.flannel.manage: flannel's VXLAN backend is not what Windows needs",
  );
  expect(p.messages).toContain(
    `kubectl -n kube-flannel patch configmap kube-flannel-cfg --type merge -p '{"data":{"net-conf.json":`,
  );
  expect(p.of(`${WE}:VanillaNode`)).toEqual([]);
});

test("a node version newer than the API server is refused (version-skew-policy)", () => {
  const [major, minor] = SERVER.split(".").map(Number);
  const newer = `${major}.${minor + 1}.0`;
  const p = preview({ kubernetes: { ...kubernetes(), version: newer } });
  expect(p.status).not.toBe(0);
  expect(p.messages).toContain(
    `windows-estate:kubernetes.version: ${newer} is outside the skew the API server (${SERVER}) allows`,
  );
});

test("a node given by a DNS name that does not resolve stops the preview naming it (flannel needs the node's IP)", () => {
  const p = preview({ nodes: exampleNodes() });
  expect(p.status).not.toBe(0);
  expect(p.messages).toContain(
    "windows-estate:nodes: win-vm3.lab.example.com does not resolve to an IPv4 address from here; flannel needs the node's IP",
  );
});

test("patching: the joined nodes below the level are planned, reached by their node connection", async () => {
  const api = labApi(lab);
  for (const [node, address, kernelVersion] of [
    ["win-vm1", "10.0.0.21", "10.0.20348.2700"],
    ["win-vm2", "10.0.0.22", "10.0.20348.3000"],
  ]) {
    const made = await api.request("POST", "/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: node,
        labels: { "kubernetes.io/os": "windows", "node.kubernetes.io/windows-build": "10.0.20348" },
      },
    });
    expect(made.status).toBe(201);
    const status = await api.request(
      "PATCH",
      `/api/v1/nodes/${node}/status`,
      { status: { addresses: [{ type: "InternalIP", address }], nodeInfo: { ...NODE_INFO, kernelVersion } } },
      "application/merge-patch+json",
    );
    expect(status.status).toBe(200);
  }
  const p = preview({ patching: { minimumUpdateRevision: { "20348": 2900 } } });
  expect(p.status).toBe(0);
  const [patching] = p.of(`${WE}:WindowsPatching`);
  expect(patching.newState?.inputs).toMatchObject({
    batches: [["win-vm1"]],
    belowNotPatched: [],
    connections: "[secret]",
  });
});

test("vanilla nodes created on AWS (played cloud plugin): VXLAN open, their files and the node after them", () => {
  const aws = new Stack(stack.dir, "kubeadm-aws", lab, { PATH: `${playedCloudPlugins()}:${lab.env.PATH}` });
  aws.init(base);
  const p = preview(
    {
      nodes: [
        exampleNodes()[0],
        {
          name: "winvan",
          count: 2,
          aws: { region: "us-east-2", subnetId: "subnet-0a1b2c3d", securityGroupIds: ["sg-0a1b2c3d"] },
        },
      ],
    },
    aws,
  );
  expect(p.messages).not.toMatch(/error:/);
  expect(p.status).toBe(0);
  const vms = p.of("aws:ec2/instance:Instance");
  expect(vms.map(name).sort()).toEqual(["estate-node-vms-winvan-1", "estate-node-vms-winvan-2"]);
  for (const v of vms) {
    expect(v.newState?.provider).toMatch(/[$:]pulumi:providers:aws::estate-node-vms-aws-us-east-2::/);
    // flannel's VXLAN port opened in the first-boot script (FLANNEL_WINDOWS.port).
    expect(String(v.newState?.inputs?.userData)).toContain("-Protocol UDP -LocalPort 4789");
  }
  const joined = p.of(`${WE}:VanillaNode`).map(name).sort();
  expect(joined).toEqual(["estate-node-10.0.0.21", "estate-node-winvan-1", "estate-node-winvan-2"]);
  const files = p.of(`${WE}:NodeFiles`).filter((f) => name(f).startsWith("estate-node-winvan-1-files-"));
  expect(files).toHaveLength(3);
  const vm1 = vms.find((v) => name(v) === "estate-node-vms-winvan-1");
  for (const f of files) expect(deps(f)).toContain(vm1?.urn);
  const [node1] = p.of(`${WE}:VanillaNode`).filter((n) => name(n) === "estate-node-winvan-1");
  expect(deps(node1)).toEqual(expect.arrayContaining(files.map((f) => f.urn)));
  expect(node1.newState?.inputs).toMatchObject({ nodeName: "winvan-1" });
});

describe("Leases in the real API server: upgrade slots (at most maxUnavailable nodes out) and the day-2 lock", () => {
  // providers/day2/leases.ts and day2-lock.ts against kube-apiserver: creates and updates at a resourceVersion (409 for
  // the loser), MicroTime fields, expiry. The provider code runs here as it runs in the dynamic-provider host.
  const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  const kube = (): KubeApi => {
    const api = labApi(lab);
    return {
      server: "lab",
      get: async (p) => {
        const r = await api.request("GET", p);
        return r.status === 200 ? r.body : undefined;
      },
      request: (method, p, body) => api.request(method, p, body),
    };
  };
  const slots = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}-${k}`);
  const options = (names: string[], holder: string, over: Partial<SlotOptions> = {}): SlotOptions => ({
    namespace: "kube-system",
    names,
    holder,
    what: "an upgrade slot",
    leaseSeconds: 60,
    pollMs: 50,
    timeoutMs: 60_000,
    ...over,
  });
  /** Resolves with the first progress line: the moment a waiter says it waits (no sleeps). */
  const firstLine = () => {
    let said: (line: string) => void = () => undefined;
    const line = new Promise<string>((resolve) => (said = resolve));
    return { line, progress: (l: string) => said(l) };
  };

  test("two slots: two nodes take one each, a third waits naming them, and takes the first one released", async () => {
    const names = slots("e2e-two", 2);
    const a = await acquireLease(kube(), options(names, "node a"));
    const b = await acquireLease(kube(), options(names, "node b"));
    expect([a.name, b.name].sort()).toEqual(names);
    const waiting = firstLine();
    const c = acquireLease(kube(), options(names, "node c", { progress: waiting.progress }));
    expect(await waiting.line).toBe("waiting for an upgrade slot (held by node a, node b)");
    await a.release();
    expect((await c).name).toBe(a.name);
    const lease = await labApi(lab).get(`${leases}/${a.name}`);
    expect(lease.spec).toMatchObject({ holderIdentity: "node c", leaseDurationSeconds: 60 });
    // The API server keeps MicroTime (RFC 3339, microseconds) as sent.
    expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await Promise.all([b.release(), (await c).release()]);
  });

  test("two nodes racing for one slot: exactly one wins, and the other names it (a create or an update at a stale resourceVersion is refused with 409)", async () => {
    const held: string[] = [];
    const race = ["node x", "node y"].map((h) =>
      acquireLease(kube(), options(slots("e2e-race", 1), h, { timeoutMs: 1 })).then(
        (s) => {
          held.push(h);
          return s;
        },
        (e: Error) => e.message,
      ),
    );
    const results = await Promise.all(race);
    expect(held).toHaveLength(1);
    const lost = results.find((r) => typeof r === "string");
    expect(lost).toBe(
      `an upgrade slot did not come free within 0s: held by ${held[0]} (Lease kube-system/e2e-race-0); it frees when that holder finishes, or its lease expires if the holder stopped`,
    );
  });

  test("a slot whose holder stopped renewing is taken once its lease has expired, never before", async () => {
    const api = labApi(lab);
    const stale = new Date(Date.now() - 120_000).toISOString().replace("Z", "000Z");
    const made = await api.request("POST", leases, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "e2e-stale-0" },
      spec: { holderIdentity: "crashed run", leaseDurationSeconds: 60, acquireTime: stale, renewTime: stale },
    });
    expect(made.status).toBe(201);
    const taken = await acquireLease(kube(), options(slots("e2e-stale", 1), "node z", { timeoutMs: 1 }));
    expect(taken.name).toBe("e2e-stale-0");
    // A fresh holder's slot is not taken: the next one waits, and gives up naming it.
    await expect(acquireLease(kube(), options(slots("e2e-stale", 1), "node w", { timeoutMs: 1 }))).rejects.toThrow(
      "held by node z",
    );
    await taken.release();
  });

  test("the day-2 lock: two stacks' jobs are serialized, the second told who holds it; the same stack's next job goes straight on", async () => {
    const lockPath = `${leases}/${DAY2_LOCK.name}`;
    const prod = { stack: "windows-estate/prod", job: "rolling reboot" };
    const staging = { stack: "windows-estate/staging", job: "patching" };
    const ran: string[] = [];
    let finishProd: () => void = () => undefined;
    const prodMayFinish = new Promise<void>((resolve) => (finishProd = resolve));
    const prodJob = withDay2Lock(kube(), prod, { pollMs: 50, timeoutMs: 60_000 }, async () => {
      ran.push("prod started");
      await prodMayFinish;
      ran.push("prod finished");
    });
    // Held by prod (as `kubectl get lease` shows it): staging waits and says who holds it.
    const held = await labApi(lab).until(
      lockPath,
      (l) => l?.spec?.holderIdentity === holderIdentity(prod),
      "the day-2 lock held by prod",
      30_000,
    );
    expect(held.spec.leaseDurationSeconds).toBe(DAY2_LOCK.leaseSeconds);
    const waiting = firstLine();
    const stagingJob = withDay2Lock(
      kube(),
      staging,
      { pollMs: 50, timeoutMs: 60_000, progress: waiting.progress },
      async () => {
        ran.push("staging ran");
      },
    );
    expect(await waiting.line).toBe(`waiting for the day-2 lock (held by ${holderIdentity(prod)})`);
    expect(ran).toEqual(["prod started"]);
    // The same stack's next job (patching after the reboot) is not kept waiting by its own stack.
    const prodPatching = await acquireDay2Lock(kube(), { ...prod, job: "patching" }, { pollMs: 50, timeoutMs: 1 });
    prodPatching.abandon();
    finishProd();
    await prodJob;
    await stagingJob;
    expect(ran).toEqual(["prod started", "prod finished", "staging ran"]);
    // Released after the last job: no holder left.
    expect((await labApi(lab).get(lockPath)).spec.holderIdentity ?? "").toBe("");
  });
});
