import { X509Certificate, createHash } from "crypto";
import * as fs from "fs";
import type { LabInfo } from "../../lab/record";
import { KUBERNETES_VERSION } from "../../lab/programs";
import { KUBEADM_NETWORKS } from "../../lab/seed/kubeadm";
import { BOOTSTRAP_GROUP, WINDOWS_NETWORK } from "../../facts/kubernetes";
import type { ArtifactServer } from "../helpers/artifact-server";
import { LabWindows, scriptsRun } from "../lab/lab-windows";
import { kubeClient, statusMessage } from "../../lib/kube-api";
import { labApi, labCredentials, stopLab } from "./lab";
import { diagnosticMessages, Stack } from "./project";
import { startVanillaLab, VanillaLab } from "./vanilla-lab";

// Windows hosts joined to the lab's kubeadm cluster (`--platform none`) by the kubeadm example through the real CLI,
// checked in the real API server. Real here: the Pulumi CLI and pulumi-resource-kubernetes, the API server with Node
// and RBAC authorization, NodeRestriction and bootstrap-token authentication, and the controller manager's
// bootstrapsigner (it signs cluster-info for the token the stack creates), csrapproving and csrsigning (they approve
// and sign the kubelets' client certificates) and DaemonSet controllers (lab/start.ts), with the RBAC `kubeadm init`
// creates for joins (lab/seed/kubeadm.ts); each host's sshd, its SFTP server (on a C: drive of its own) and the HTTPS
// mirror the downloads come from. Played: Windows, by the PowerShell stand-in (test/lab/fake-powershell.js), whose
// `kubeadm join` and kubelet talk to the API server as the real ones do (test/lab/fake-windows-network.js: token
// discovery, the CSR, the Node registered as the node). What only real Windows, kubeadm and a kubelet prove is in
// docs/testing.md: the binaries running, the kubelet's periodic heartbeats (its Node is posted Ready when its service
// starts and never while it runs), pods, HNS and VXLAN. Shared with vanilla-upgrade.e2e.ts: the setup (vanilla-lab.ts).

const LAB = "e2e-vanilla-join";
const ADDRESSES = ["127.0.0.61", "127.0.0.62"];
/**
 * The hosts' DNS host names: the first longer than 15 characters and mixed case, so its NetBIOS name ($env:COMPUTERNAME,
 * WIN-JOIN-LONG-N) is not its DNS host name (test/lab/windows-51/names.js names.netbios).
 */
const HOSTNAMES = ["Win-Join-Long-Name-1", "WIN-JOIN-2"];
/** The Node names: the first host's DNS host name in lower case (never its NetBIOS name), the second a declared name. */
const NODES = ["win-join-long-name-1", "winjoin-b"];
const SERVER = KUBERNETES_VERSION.replace(/^v/, "");

let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
let mirror: ArtifactServer;
let served: VanillaLab["served"];
let v: VanillaLab | undefined;
const hosts: LabWindows[] = [];

/** The pin kubeadm checks: SHA-256 of the CA's SubjectPublicKeyInfo (cmd/kubeadm/app/util/pubkeypin Hash). */
function labCaPin(): string {
  const der = new X509Certificate(labCredentials(lab).tls.ca).publicKey.export({ type: "spki", format: "der" });
  return `sha256:${createHash("sha256").update(der).digest("hex")}`;
}

/** A request to the lab's API server as a client certificate (the kubelet's `cert + key` PEM) or a bearer token. */
async function requestAs(
  who: { pem: string } | { token: string },
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; message: string }> {
  const { server, tls } = labCredentials(lab);
  const r = await kubeClient({
    server,
    ...("pem" in who
      ? { tls: { ca: tls.ca, cert: who.pem, key: who.pem } }
      : { tls: { ca: tls.ca }, token: who.token }),
  }).request(method, p, body);
  return { status: r.status, message: statusMessage(r) || r.text };
}

/** The stack's bootstrap token, read as an admin from its Secret (its value stays out of every message). */
async function bootstrapToken() {
  const list = await labApi(lab).get(
    "/api/v1/namespaces/kube-system/secrets?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dwindows-estate",
  );
  const secrets = (list.items as { type: string; metadata: { name: string }; data: Record<string, string> }[]).filter(
    (s) => s.type === "bootstrap.kubernetes.io/token",
  );
  expect(secrets).toHaveLength(1);
  const data = Object.fromEntries(
    Object.entries(secrets[0].data).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  );
  return { name: secrets[0].metadata.name, data, token: `${data["token-id"]}.${data["token-secret"]}` };
}

const useConfig = (over: Record<string, unknown>, cluster: Record<string, unknown> = {}) => v?.useConfig(over, cluster);

beforeAll(async () => {
  v = await startVanillaLab({
    lab: LAB,
    stack: "kubeadm-join",
    hosts: ADDRESSES.map((address, i) => ({ address, hostname: HOSTNAMES[i] })),
    kubernetes: [SERVER],
    nodes: (base) => [
      { ...base[0], labels: { pool: "windows" } },
      {
        ...base[1],
        name: NODES[1],
        // A kubernetes.io label the kubelet may set and NodeRestriction lets it (well_known_labels.go namespaces).
        labels: { pool: "windows", "node.kubernetes.io/exclude-from-external-load-balancers": "true" },
      },
    ],
  });
  ({ lab, stack, config, mirror, served } = v);
  hosts.push(...v.hosts);
}, 900_000);
afterAll(async () => {
  if (v) await v.stop();
  else stopLab(LAB);
});

test("a configured CA pin that is not the cluster's stops the preview, naming both, before any host is touched", () => {
  const wrong = `sha256:${"0".repeat(64)}`;
  useConfig({ caCertHash: wrong });
  const p = stack.previewJson();
  expect(p.status).not.toBe(0);
  expect(diagnosticMessages(p)).toContain(
    `windows-estate:kubernetes.caCertHash: ${wrong} is not the pin of the CA the cluster publishes in kube-public/cluster-info (${labCaPin()})`,
  );
  for (const h of hosts) expect(scriptsRun(h)).toEqual([]);
});

test("with discovery off, a wrong CA pin reaches the joins: each is refused by discovery naming its host, and no Node registers", async () => {
  const wrong = `sha256:${"0".repeat(64)}`;
  // Everything discovery would say, from the config; the pin is the only thing wrong.
  useConfig(
    {
      caCertHash: wrong,
      version: SERVER,
      podNetworkCidr: KUBEADM_NETWORKS.podSubnet,
      serviceCidr: KUBEADM_NETWORKS.serviceSubnet,
      dnsServiceIp: KUBEADM_NETWORKS.dns,
      apiServerEndpoint: new URL(lab.apiserver).host,
    },
    { discovery: false },
  );
  const r = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
  const out = r.stdout + r.stderr;
  expect(r.status).not.toBe(0);
  // cmd/kubeadm/app/discovery/token/token.go validateClusterCA, with the pin of the CA cluster-info really holds.
  for (const h of hosts)
    expect(out).toContain(
      `${h.host.user}@${h.host.host}:22: kubeadm join failed: error execution phase preflight: couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${labCaPin()}" are pinned`,
    );
  const api = labApi(lab);
  expect((await api.get("/api/v1/nodes")).items).toEqual([]);
  // Unread, flannel's net-conf.json is not written blind (its other settings would be lost): left as seeded.
  expect(out).toContain("cluster.discovery is off, so flannel's net-conf.json is neither read nor changed");
  const netConf = await api.get("/api/v1/namespaces/kube-flannel/configmaps/kube-flannel-cfg");
  expect(JSON.parse(netConf.data["net-conf.json"]).Backend).toEqual({ Type: "vxlan" });
  expect((await api.get("/apis/certificates.k8s.io/v1/certificatesigningrequests")).items).toEqual([]);
  // The token reached the hosts only inside the join file: no output quotes it.
  expect(out).not.toContain((await bootstrapToken()).data["token-secret"]);
  // The cluster side went in before the nodes (the DaemonSets' rollout awaited with no Windows node yet).
  for (const ds of [WINDOWS_NETWORK.flanneld, WINDOWS_NETWORK.kubeProxy])
    expect(await api.status(`/apis/apps/v1/namespaces/kube-system/daemonsets/${ds}`)).toBe(200);
});

describe("with the cluster's own pin (discovered), up joins both hosts", () => {
  beforeAll(async () => {
    useConfig({});
    // Not blocking this process: the mirror the hosts download from answers from it.
    const r = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    if (r.status !== 0) throw new Error(`pulumi up failed: ${r.stdout.slice(-3000)}${r.stderr.slice(-2000)}`);
  }, 900_000);

  test("each Node registered under its declared name by its kubelet, with the taint and labels from its command line", async () => {
    const api = labApi(lab);
    for (const [i, name] of NODES.entries()) {
      const node = await api.get(`/api/v1/nodes/${name}`);
      expect(node.metadata.labels).toMatchObject({
        pool: "windows",
        "kubernetes.io/os": "windows",
        "kubernetes.io/hostname": name,
        ...(i === 1 ? { "node.kubernetes.io/exclude-from-external-load-balancers": "true" } : {}),
      });
      // components/vanilla: WINDOWS_TAINT unless the node lists its own (facts/kubernetes.ts, Kubernetes' Windows guide).
      expect(node.spec.taints).toContainEqual({ key: "os", value: "windows", effect: "NoSchedule" });
      // Set at registration by the kubelet (--register-with-taints, --node-labels): the field manager is the
      // kubelet's user agent, and nobody had to patch them afterwards.
      const owners = (node.metadata.managedFields as { manager: string; fieldsV1: { "f:spec"?: object } }[])
        .filter((f) => f.fieldsV1["f:spec"] && "f:taints" in (f.fieldsV1["f:spec"] as object))
        .map((f) => f.manager);
      expect(owners).toEqual(["kubelet.exe"]);
      expect(node.status.addresses).toContainEqual({ type: "InternalIP", address: ADDRESSES[i] });
      expect(node.status.conditions).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
    }
    // kubeadm's per-node flags (cmd/kubeadm/app/phases/kubelet/flags.go): the renamed node's --hostname-override.
    expect(fs.readFileSync(hosts[1].file("C:\\var\\lib\\kubelet\\kubeadm-flags.env"), "utf8")).toBe(
      'KUBELET_KUBEADM_ARGS="--hostname-override=winjoin-b --register-with-taints=os=windows:NoSchedule --node-labels=node.kubernetes.io/exclude-from-external-load-balancers=true,pool=windows"\n',
    );
  });

  test("the kubelets' client certificates: requested with the bootstrap token, approved and signed by the controller manager", async () => {
    const { data } = await bootstrapToken();
    const csrs = (await labApi(lab).get("/apis/certificates.k8s.io/v1/certificatesigningrequests")).items as {
      spec: { signerName: string; username: string; groups: string[] };
      status: { certificate?: string; conditions?: { type: string; reason: string }[] };
    }[];
    expect(csrs).toHaveLength(2);
    const subjects = csrs.map((c) => {
      expect(c.spec).toMatchObject({
        signerName: "kubernetes.io/kube-apiserver-client-kubelet",
        username: `system:bootstrap:${data["token-id"]}`,
      });
      expect(c.spec.groups).toContain(BOOTSTRAP_GROUP);
      // pkg/controller/certificates/approver/sarapprove.go appendApprovalCondition.
      expect(c.status.conditions).toContainEqual(expect.objectContaining({ type: "Approved", reason: "AutoApproved" }));
      const cert = new X509Certificate(Buffer.from(c.status.certificate ?? "", "base64"));
      expect(cert.issuer).toBe("CN=windows-estate-lab-ca");
      return cert.subject;
    });
    expect(subjects.sort()).toEqual(NODES.map((n) => `O=system:nodes\nCN=system:node:${n}`).sort());
  });

  test("the bootstrap token Secret is one the real bootstrapsigner signs cluster-info for, shaped as kubeadm's", async () => {
    const { name, data } = await bootstrapToken();
    expect(name).toBe(`bootstrap-token-${data["token-id"]}`);
    // bootstrap-tokens.md / cmd/kubeadm/app/apis/bootstraptoken/v1 (usages, the default group), ttl 2 h by default.
    expect(data).toMatchObject({
      "usage-bootstrap-authentication": "true",
      "usage-bootstrap-signing": "true",
      "auth-extra-groups": BOOTSTRAP_GROUP,
    });
    const left = Date.parse(data.expiration) - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(2 * 3_600_000);
    const info = await labApi(lab).get("/api/v1/namespaces/kube-public/configmaps/cluster-info");
    expect(Object.keys(info.data)).toContain(`jws-kubeconfig-${data["token-id"]}`);
  });

  test("the downloads came from the mirror, each checked, and are on the hosts", () => {
    for (const p of Object.keys(served.files)) expect(mirror.requests).toContain(p);
    for (const h of hosts) {
      const kubelet = served.files[`/dl.k8s.io/release/v${SERVER}/bin/windows/amd64/kubelet.exe`].body;
      expect(fs.readFileSync(h.file("C:\\k\\kubelet.exe"))).toEqual(kubelet);
      expect(fs.existsSync(h.file("C:\\Program Files\\containerd\\containerd.exe"))).toBe(true);
      expect(fs.existsSync(h.file("C:\\opt\\cni\\bin\\win-overlay.exe"))).toBe(true);
      expect(fs.existsSync(h.file("C:\\opt\\cni\\bin\\flannel.exe"))).toBe(true);
    }
  });

  test("flannel and the Windows network agents: the patch, the DaemonSets with their RBAC, a pod of each per joined node", async () => {
    const api = labApi(lab);
    const cfg = await api.get("/api/v1/namespaces/kube-flannel/configmaps/kube-flannel-cfg");
    expect(JSON.parse(cfg.data["net-conf.json"])).toEqual({
      Network: KUBEADM_NETWORKS.podSubnet,
      EnableNFTables: false,
      Backend: { Type: "vxlan", VNI: 4096, Port: 4789 },
    });
    for (const [ns, ds] of [
      ["kube-system", "kube-proxy"],
      ["kube-flannel", "kube-flannel-ds"],
    ]) {
      const linux = await api.get(`/apis/apps/v1/namespaces/${ns}/daemonsets/${ds}`);
      expect(linux.spec.template.spec.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
    }
    expect(await api.status(`/api/v1/namespaces/kube-system/configmaps/${WINDOWS_NETWORK.configMap}`)).toBe(200);
    expect(
      await api.status(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${WINDOWS_NETWORK.flannelClusterRole}`),
    ).toBe(200);
    for (const app of [WINDOWS_NETWORK.flanneld, WINDOWS_NETWORK.kubeProxy]) {
      const ds = await api.get(`/apis/apps/v1/namespaces/kube-system/daemonsets/${app}`);
      expect(ds.spec.template.spec.nodeSelector).toEqual({ "kubernetes.io/os": "windows" });
      expect(ds.spec.template.spec.securityContext.windowsOptions.hostProcess).toBe(true);
      // The real DaemonSet controller makes a pod for each joined node (tainted os=windows:NoSchedule), which the real
      // scheduler binds there; they stay Pending, since the stand-in's kubelet runs no pod.
      const pods = await api.until(
        `/api/v1/namespaces/kube-system/pods?labelSelector=app%3D${app}`,
        (l) => l.items.length >= NODES.length,
        `the DaemonSet controller's ${app} pods`,
      );
      const on = (pods.items as { spec: { affinity: { nodeAffinity: unknown } } }[]).map((p) =>
        JSON.stringify(p.spec.affinity.nodeAffinity),
      );
      for (const n of NODES) expect(on.some((a) => a.includes(`"${n}"`))).toBe(true);
    }
    const bindings = (await api.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings")).items as {
      roleRef: { name: string };
      subjects?: { kind: string; name: string; namespace?: string }[];
    }[];
    for (const [role, account] of [
      [WINDOWS_NETWORK.flannelClusterRole, WINDOWS_NETWORK.flanneld],
      [WINDOWS_NETWORK.nodeProxierClusterRole, WINDOWS_NETWORK.kubeProxy],
    ])
      expect(
        bindings.some(
          (b) =>
            b.roleRef.name === role &&
            (b.subjects ?? []).some(
              (s) => s.kind === "ServiceAccount" && s.name === account && s.namespace === "kube-system",
            ),
        ),
      ).toBe(true);
  });

  test("what the real API server refuses: a node acting on another Node or on a restricted label, a bootstrap token reading Secrets", async () => {
    const pem = fs.readFileSync(hosts[0].file("C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem"), "utf8");
    expect((await requestAs({ pem }, "GET", `/api/v1/nodes/${NODES[0]}`)).status).toBe(200);
    // plugin/pkg/admission/noderestriction/admission.go admitNode.
    const other = await requestAs({ pem }, "PATCH", `/api/v1/nodes/${NODES[1]}`, { metadata: { labels: { x: "y" } } });
    expect(other).toEqual({
      status: 403,
      message: expect.stringContaining(`node "${NODES[0]}" is not allowed to modify node "${NODES[1]}"`),
    });
    const restricted = await requestAs({ pem }, "PATCH", `/api/v1/nodes/${NODES[0]}`, {
      metadata: { labels: { "node-restriction.kubernetes.io/trusted": "yes" } },
    });
    expect(restricted).toEqual({
      status: 403,
      message: expect.stringContaining("is not allowed to modify labels: node-restriction.kubernetes.io/trusted"),
    });
    const taints = await requestAs({ pem }, "PATCH", `/api/v1/nodes/${NODES[0]}`, { spec: { taints: [] } });
    expect(taints).toEqual({ status: 403, message: expect.stringContaining("is not allowed to modify taints") });
    const { token } = await bootstrapToken();
    expect((await requestAs({ token }, "GET", "/api/v1/namespaces/kube-system/secrets")).status).toBe(403);
  });

  test("a second preview plans no change", () => {
    const r = stack.pulumi(["preview", "--expect-no-changes"]);
    expect(r.stdout + r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
  });

  test("a host that will never answer: forceRemove is an update (no replace, no delete), and up removes its Node by the API alone", async () => {
    const nodes = (config["windows-estate:nodes"] as Record<string, unknown>[]).map((n, i) =>
      i === 0 ? { ...n, forceRemove: true } : n,
    );
    stack.writeConfig(JSON.parse(JSON.stringify({ ...config, "windows-estate:nodes": nodes })));
    const p = stack.previewJson();
    expect(p.status).toBe(0);
    const changed = p.steps
      .filter((st) => st.op !== "same")
      .map((st) => `${st.op} ${st.urn.split("::").pop()}`)
      .sort();
    // Its VanillaNode and its three NodeFiles are recorded as gone: nothing else changes, nothing is replaced.
    expect(changed).toEqual([
      `update estate-node-${ADDRESSES[0]}`,
      `update estate-node-${ADDRESSES[0]}-files-containerd`,
      `update estate-node-${ADDRESSES[0]}-files-kube-flannel`,
      `update estate-node-${ADDRESSES[0]}-files-net.d`,
    ]);
    await hosts[0].host.stop(); // gone for good: any SSH attempt would fail
    const r = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    expect(r.stdout + r.stderr).not.toMatch(/error:/);
    expect(r.status).toBe(0);
    // What stays on the host is said in every preview and up while the entry is there.
    expect(diagnosticMessages(p)).toContain(
      `windows-estate:nodes[0] (${ADDRESSES[0]}): forceRemove: its Node is deleted through the API alone and nothing is done on the host; left there: the kubelet and containerd services`,
    );
    const api = labApi(lab);
    expect(await api.status(`/api/v1/nodes/${NODES[0]}`)).toBe(404);
    expect(await api.status(`/api/v1/nodes/${NODES[1]}`)).toBe(200);
    // Deleting the entry afterwards touches nothing: the node and its files leave the stack.
    stack.writeConfig(JSON.parse(JSON.stringify({ ...config, "windows-estate:nodes": nodes.slice(1) })));
    const gone = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
    expect(gone.stdout + gone.stderr).not.toMatch(/error:/);
    expect(gone.status).toBe(0);
  });
});
