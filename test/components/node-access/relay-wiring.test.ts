import type { DeclaredResource, ProgramRun } from "../../../scripts/synth/mock-run";
import { runUnderMocks } from "../../helpers/program-run";
import { scratch } from "../../helpers/stack";
import { RELAY_SELECTOR, RELAY_VANILLA_NAMESPACE } from "../../../facts/day2";

// Issue 42 item 2, audit row 3: everything that opens SSH sessions through the relay depends on every object the
// session needs (the Deployment, the Role and RoleBinding that grant the port-forward, the NetworkPolicy that lets the
// relay reach port 22, the ConfigMap, the budget, and on a vanilla cluster the namespace), so the engine creates those
// first and deletes them last: a destroy's `kubeadm reset` (VanillaNode.delete) and NodeFiles' removal run while the
// relay and its grants still exist. The real program runs under Pulumi's mocks; the dependencies are those the SDK
// registers each resource with, which the engine keeps in state and orders a destroy by. (That the real CLI deletes in
// this order is the e2e's to show.)

const key = scratch();
afterAll(() => key.cleanup());

const run = (stack: string, config: Record<string, unknown>): Promise<ProgramRun> =>
  runUnderMocks(key.dir, stack, config);

/**
 * Every resource `r` depends on, directly or through others, as the engine orders deletes: its dependencies and its
 * parent (pulumi pkg/resource/graph/dependency_graph.go `DependenciesOf`, used by step_generator.go `ScheduleDeletes`),
 * so a component's child is deleted before the component, and the component before what it depends on.
 */
function closure(byKey: Map<string, DeclaredResource>, r: DeclaredResource): Set<string> {
  const seen = new Set<string>();
  const walk = (k: string) => {
    const res = byKey.get(k);
    for (const d of [...(res?.dependsOn ?? []), ...(res?.parent ? [res.parent] : [])])
      if (!seen.has(d)) {
        seen.add(d);
        walk(d);
      }
  };
  walk(r.key);
  return seen;
}

/** The resources whose inputs carry the cluster tunnel: they open SSH sessions through the relay. */
const throughRelay = (rs: DeclaredResource[]) => rs.filter((r) => JSON.stringify(r.inputs).includes(RELAY_SELECTOR));

function relayObjects(rs: DeclaredResource[]): Record<string, string> {
  const relay = rs.filter((r) => r.custom && /node-relay-/.test(r.name));
  return Object.fromEntries(relay.map((r) => [r.type.split(":").pop() ?? r.type, r.key]));
}

function expectAllBehindRelay(result: ProgramRun, kinds: string[], sessions: RegExp[]) {
  const byKey = new Map(result.resources.map((r) => [r.key, r]));
  const relay = relayObjects(result.resources);
  const users = throughRelay(result.resources);
  // Each kind of session-opening resource is there (a filter that found nothing would prove nothing).
  for (const s of sessions) expect(users.map((u) => u.name)).toContainEqual(expect.stringMatching(s));
  const missing = users.flatMap((u) => {
    const deps = closure(byKey, u);
    return Object.entries(relay)
      .filter(([, k]) => !deps.has(k))
      .map(([kind]) => `${u.name} does not depend on the relay's ${kind}`);
  });
  expect(missing).toEqual([]);
  expect(Object.keys(relay).sort()).toEqual([...kinds].sort());
}

test("vanilla via: cluster: the nodes, their files and patching depend on the relay's namespace, Deployment, Role, RoleBinding, NetworkPolicy and budget", async () => {
  const result = await run("relay-vanilla", {
    cluster: { platform: "Kubernetes", infrastructureId: "lab-kubeadm" },
    privateKeyPath: key.keyPath,
    kubernetes: {
      version: "1.36.2",
      podNetworkCidr: "10.244.0.0/16",
      serviceCidr: "10.96.0.0/12",
      dnsServiceIp: "10.96.0.10",
      apiServerEndpoint: "10.0.0.10:6443",
      caCertHash: `sha256:${"a".repeat(64)}`,
      flannel: { vni: 4096, port: 4789 },
      containerd: { version: "2.3.4" },
    },
    nodes: [
      {
        address: "10.0.0.21",
        username: "Administrator",
        hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
      },
      { address: "win-vm3.lab.example.com", username: "Administrator", trustOnFirstUse: true },
    ],
    nodeAccess: { via: "cluster", portForwardSubjects: [{ kind: "Group", name: "platform-ci" }] },
    patching: { minimumUpdateRevision: { "20348": 2700 } },
  });
  expectAllBehindRelay(
    result,
    ["Namespace", "ConfigMap", "Deployment", "PodDisruptionBudget", "NetworkPolicy", "Role", "RoleBinding"],
    [/^estate-node-10\.0\.0\.21$/, /^estate-node-10\.0\.0\.21-files-/, /-patching/],
  );
  // The relay's objects live in its own namespace, and the sessions go there.
  const relay = result.resources.filter((r) => r.custom && /node-relay-/.test(r.name));
  for (const r of relay.filter((r) => r.type !== "kubernetes:core/v1:Namespace"))
    expect([r.name, JSON.stringify(r.inputs)]).toEqual([
      r.name,
      expect.stringContaining(`"namespace":"${RELAY_VANILLA_NAMESPACE}"`),
    ]);
  for (const u of throughRelay(result.resources))
    expect(JSON.stringify(u.inputs)).toContain(`"namespace":"${RELAY_VANILLA_NAMESPACE}"`);
}, 120_000);

test("OpenShift via: cluster: BYOH preparation, key retirement, patching and the rolling reboot depend on the relay's Deployment, Role, RoleBinding, NetworkPolicy and budget", async () => {
  const result = await run("relay-openshift", {
    cluster: { platform: "None", infrastructureId: "ocp-bm-7tq2x" },
    privateKeyPath: key.keyPath,
    byoh: [
      {
        address: "10.1.42.1",
        username: "Administrator",
        hostKey: "SHA256:3KkVtdpSNxjs6Ca4vpFpuZcMj2LsmiUbk1FD6nfTDsc",
      },
      { address: "win2.example.com", username: "Administrator", trustOnFirstUse: true, windowsServer: "2025" },
    ],
    nodeAccess: { via: "cluster", portForwardSubjects: [{ kind: "Group", name: "platform-ci" }] },
    reboot: { token: "2026-12" },
    patching: { minimumUpdateRevision: { "20348": 2700 } },
  });
  expectAllBehindRelay(
    result,
    ["ConfigMap", "Deployment", "PodDisruptionBudget", "NetworkPolicy", "Role", "RoleBinding"],
    [/^estate-byoh-/, /retired-keys$/, /-reboot/, /-patching/],
  );
}, 120_000);
