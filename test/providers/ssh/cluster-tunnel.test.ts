import { ChildProcess, spawn } from "child_process";
import * as path from "path";
import { ClusterTunnel } from "../../../providers/ssh/types";
import { WindowsHost } from "../../../providers/windows-host";
import { providerRigPerFile } from "../../helpers/provider-rig";
import { freePort as unusedPort } from "../../../lab/processes";
import { serializedProviderOf } from "../../helpers/dynamic-host";
import { labWindows, LabWindows, scriptsRun } from "../../lab/lab-windows";
import { RELAY_PORT, RELAY_SELECTOR } from "../../../facts/day2";
import { validateObject } from "../../helpers/schemas";
import { LabHost, startLabHost } from "../../lab/sshd";

// SSH through the cluster, end to end, as a dynamic provider runs it: WindowsHost in the real dynamic-provider
// plugin → ssh2 → the Kubernetes API stand-in's port-forward (the WebSocket channel protocol client-node speaks) →
// the relay program the Deployment runs (components/node-access/relay-proxy.js, started here with node, port 22
// only) → a lab host's real sshd on 127.0.0.45:22 with the simulated PowerShell. The host key is verified by ssh2
// at the far end, through every hop. What only a cluster proves: the API server, the kubelet's port-forward into
// the pod, the pod network to the node.
jest.setTimeout(60_000);

const NS = "openshift-windows-machine-config-operator";
const POD = "windows-estate-node-relay-7d9f8-abcde";
const URN = "urn:pulumi:test::windows-estate::pulumi-nodejs:dynamic:Resource::estate-byoh-127.0.0.45";
const { kube, plugin } = providerRigPerFile(() => [win, other]);
let win: LabWindows;
let other: LabHost;
let relay: ChildProcess;
let relayLog = "";
let providerText: string;

const relayPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: POD, namespace: NS, labels: { "app.kubernetes.io/name": "windows-estate-node-relay" } },
  spec: { containers: [{ name: "relay", image: "registry.access.redhat.com/ubi9/nodejs-22-minimal:latest" }] },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
};

beforeAll(async () => {
  win = await labWindows("127.0.0.45", "win-tunnel");
  other = await startLabHost();
  const relayPort = await unusedPort();
  const script = path.join(__dirname, "..", "..", "..", "components", "node-access", "relay-proxy.js");
  relay = spawn(process.execPath, [script], {
    env: { ...process.env, RELAY_PORT: String(relayPort) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    relay.stdout?.on("data", (d: Buffer) => {
      relayLog += d.toString();
      if (relayLog.includes("listening")) resolve();
    });
    relay.once("exit", (c) => reject(new Error(`relay exited ${c}`)));
  });
  kube.route(`/api/v1/namespaces/${NS}/pods`, (_n, req) => ({
    status: 200,
    body: {
      apiVersion: "v1",
      kind: "PodList",
      metadata: {},
      items: decodeURIComponent(req.query).includes(`labelSelector=${RELAY_SELECTOR}`) ? [relayPod] : [],
    },
  }));
  kube.portForwards.set(`${NS}/${POD}:${RELAY_PORT}`, relayPort);
  providerText = (
    await serializedProviderOf(
      () =>
        new WindowsHost("h", {
          connection: { host: "x", user: "u", privateKey: "k", hostKey: "SHA256:x" },
          wmcoPublicKey: "k",
        }),
    )
  ).text;
});
afterAll(() => relay?.kill());

const tunnel = (over: Partial<ClusterTunnel> = {}): ClusterTunnel => ({
  kubeconfig: kube.kubeconfig(),
  namespace: NS,
  selector: RELAY_SELECTOR,
  port: RELAY_PORT,
  timeoutSeconds: 5,
  ...over,
});
const inputs = (over: Record<string, unknown> = {}) => ({
  connection: {
    host: win.host.host,
    port: 22,
    user: win.host.user,
    privateKey: win.host.privateKey,
    hostKey: win.host.hostKeyLine,
    deadlineSeconds: 3,
    cluster: tunnel(),
    ...over,
  },
  wmcoPublicKey: win.host.publicKey,
  __provider: providerText,
});

test("the relay pod the stand-in lists is a valid core/v1 Pod", () => {
  expect(validateObject(relayPod, { closed: true })).toBe("");
});

test("a BYOH host is prepared through port-forward and relay, its host key verified end to end", async () => {
  const before = kube.portForwardRequests.length;
  const r = await plugin.create(URN, inputs());
  expect(r.outputs).toMatchObject({ hostname: "win-tunnel", hostKey: win.host.hostKeyLine, keyFileAclOk: true });
  expect(scriptsRun(win).some((s) => s.includes("Write-Output 'prepared'"))).toBe(true);
  // One port-forward per SSH session (probe/prepare share one; the WMCO-key login check is not made without the key).
  expect(kube.portForwardRequests.slice(before)).toEqual([`${NS}/${POD}:${RELAY_PORT}`]);
  expect(relayLog).toContain("relay: 127.0.0.45:22 open");
});

test("a node that presents another key than the pin is refused at the far end of the tunnel; nothing runs", async () => {
  const ran = scriptsRun(win).length;
  await expect(plugin.create(URN, inputs({ hostKey: other.hostKeyLine }))).rejects.toThrow(
    /host key mismatch for .*@127\.0\.0\.45:22: it presented SHA256:.*Nothing was written/,
  );
  expect(scriptsRun(win).length).toBe(ran);
});

test("the relay opens nothing but port 22: another port is refused with 403, not retried", async () => {
  // Not retried, read from the message rather than the clock: a retried 403 ends at the deadline as "gave up after N
  // attempts".
  await expect(
    plugin.create(URN, inputs({ host: other.host, port: other.port, hostKey: other.hostKeyLine, deadlineSeconds: 30 })),
  ).rejects.toThrow(
    new RegExp(
      `^(?![\\s\\S]*gave up after)[\\s\\S]*would not connect to node 127\\.0\\.0\\.1 at 127\\.0\\.0\\.1:${other.port}: 403.*port ${other.port} is not relayed`,
    ),
  );
});

test("no ready relay pod: the error names the namespace, the selector and the fix", async () => {
  await expect(
    plugin.create(URN, inputs({ cluster: tunnel({ selector: "app.kubernetes.io/name=missing" }) })),
  ).rejects.toThrow(
    `no ready relay pod (app.kubernetes.io/name=missing) in namespace ${NS} to reach node 127.0.0.45 through the cluster`,
  );
});

test("an identity without pods/portforward gets the RBAC it needs named, at once, in the API server's words", async () => {
  const none = kube.kubeconfig(kube.identity("ci-runner", []));
  await expect(plugin.create(URN, inputs({ cluster: tunnel({ kubeconfig: none }) }))).rejects.toThrow(
    new RegExp(
      `refused a port-forward to relay pod ${NS}/${POD} \\(pods "${POD}" is forbidden: User "ci-runner" cannot get resource "pods/portforward".*\\): the identity running pulumi up needs get and create on pods/portforward in namespace ${NS}`,
    ),
  );
});

test("a Role with only get on pods/portforward (enough before Kubernetes 1.35) is told it needs create too, and why", async () => {
  const getOnly = kube.kubeconfig(kube.identity("ci-runner", ["get"]));
  await expect(plugin.create(URN, inputs({ cluster: tunnel({ kubeconfig: getOnly }) }))).rejects.toThrow(
    /refused a port-forward to relay pod .*since Kubernetes 1\.35 a port-forward's WebSocket upgrade is authorized as create too.*: the identity running pulumi up needs create as well as get on pods\/portforward/,
  );
});
