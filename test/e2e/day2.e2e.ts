import * as fs from "fs";
import type { LabInfo } from "../../lab/record";
import { tokenDigest } from "../../providers/day2/rollout";
import { REBOOTED_FOR_ANNOTATION } from "../../facts/day2";
import type { LabWindows } from "../lab/lab-windows";
import { labApi } from "./lab";
import { boundReadyPod, Owner, ownerController } from "./pods";
import { labStack, Stack, stopByohLab } from "./project";

// Day-2 on the real API (issue 24 e): a rolling graceful reboot of three BYOH nodes through the real CLI, draining
// through the real Eviction API against a PodDisruptionBudget whose status the real disruption controller keeps
// (kube-controller-manager's `disruption` controller), so a refused eviction is the API server's own 429. The nodes
// are registered by the lab's WMCO and kubelet players; the pods are bound by hand (no scheduler) with the status a
// kubelet would post; the hosts are loopback sshd servers whose `powershell` is the Windows stand-in, which restarts
// (a new boot time) when told to. Simplified and said: the played kubelet does not go NotReady during the restart; it
// posts a Ready heartbeat every 3 s (`--node-status-report-seconds 3`), which the rollout waits for after the boot.

const LAB = "e2e-day2";
const ADDRESSES = ["127.0.0.71", "127.0.0.72", "127.0.0.73"];
const nodeOf = (address: string) => `win-${address.replace(/\./g, "-")}`;
const NODES = ADDRESSES.map(nodeOf);
const NS = "shop";
const PDB = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/web-pdb`;
let lab: LabInfo;
let stack: Stack;
let config: Record<string, unknown>;
const hosts: LabWindows[] = [];
type Api = ReturnType<typeof labApi>;
let api: Api;

const readyPod = (name: string, node: string, app: string, owner: Owner) =>
  boundReadyPod(api, { namespace: NS, name, node, app, owner });

/** The budget's status as the disruption controller last wrote it. */
const budgetSettles = (minAvailable: number, allowed: number) =>
  api.until(
    PDB,
    (b) =>
      b.status?.observedGeneration === b.metadata.generation &&
      b.spec.minAvailable === minAvailable &&
      b.status.disruptionsAllowed === allowed,
    `PodDisruptionBudget ${NS}/web-pdb settled by the disruption controller (${allowed} disruptions allowed)`,
  );

beforeAll(async () => {
  ({ lab, stack, config } = await labStack("azure", LAB, {
    file: "Pulumi.dev.yaml",
    labArgs: ["--node-status-report-seconds", "3"],
    byoh: { addresses: ADDRESSES, prefix: "win-day2", hosts, listed: true },
    up: true,
  }));
  api = labApi(lab);
  for (const n of NODES)
    await api.until(
      `/api/v1/nodes/${n}`,
      (x) => x.metadata.annotations?.["windowsmachineconfig.openshift.io/version"] !== undefined,
      `BYOH node ${n} configured by WMCO`,
    );

  // A workload on the three nodes: a StatefulSet (no controller runs it here) owning one Ready pod per node, and a
  // budget that wants all three.
  await api.must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  const rs = await ownerController(api, NS, "web", "web", 3);
  for (const [i, node] of NODES.entries()) await readyPod(`web-${i}`, node, "web", rs);
  await api.must("POST", `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "web-pdb" },
    spec: { minAvailable: 3, selector: { matchLabels: { app: "web" } } },
  });
  await budgetSettles(3, 0);
}, 900_000);
afterAll(() => stopByohLab(LAB, hosts));

test("a budget that allows no disruption: the rollout retries the real 429, then stops naming the node and the budget", async () => {
  config["windows-estate:reboot"] = { token: "2026-11-patch", maxUnavailable: 1, drainTimeoutSeconds: 15 };
  stack.writeConfig(config);
  const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
  expect(r.status).not.toBe(0);
  // The first batch is the first node by name; the API server's own words name the budget.
  expect(r.stdout).toContain(`pod ${NS}/web-0 on node ${NODES[0]} could not be evicted before the deadline`);
  expect(r.stdout).toContain("The disruption budget web-pdb needs 3 healthy pods and has 3 currently");
  expect((await api.get(`/api/v1/nodes/${NODES[0]}`)).spec.unschedulable).toBe(true);
  for (const n of NODES.slice(1)) expect((await api.get(`/api/v1/nodes/${n}`)).spec.unschedulable).toBeUndefined();
  expect((await api.get(`/api/v1/namespaces/${NS}/pods`)).items).toHaveLength(3);
});

test("with room in the budget it drains through the Eviction API, restarts every node, one at a time, and uncordons", async () => {
  await api.must("PATCH", PDB, { spec: { minAvailable: 0 } }, "application/merge-patch+json");
  await budgetSettles(0, 3);
  config["windows-estate:reboot"] = { token: "2026-11-patch", maxUnavailable: 1, drainTimeoutSeconds: 60 };
  stack.writeConfig(config);
  const boots = hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime);
  // Watch how many nodes are cordoned at once while the rollout runs.
  let most = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const nodes = (await api.get("/api/v1/nodes")).items as {
        metadata: { name: string };
        spec: { unschedulable?: boolean };
      }[];
      most = Math.max(most, nodes.filter((n) => NODES.includes(n.metadata.name) && n.spec.unschedulable).length);
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  const r = await stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
  watching = false;
  await watch;
  expect(r.stdout + r.stderr).not.toMatch(/error:/);
  expect(r.status).toBe(0);
  expect(most).toBe(1);
  for (const n of NODES) {
    const node = await api.get(`/api/v1/nodes/${n}`);
    expect([n, node.spec.unschedulable, node.metadata.annotations[REBOOTED_FOR_ANNOTATION]]).toEqual([
      n,
      undefined,
      tokenDigest("2026-11-patch"),
    ]);
  }
  // Evicted (the kubelet player removes a deleted pod from its node), and each host restarted: a new boot time.
  expect((await api.get(`/api/v1/namespaces/${NS}/pods`)).items).toEqual([]);
  hosts.forEach((h, i) => expect(JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime).not.toBe(boots[i]));
  // Under the cluster-wide day-2 lock (a Lease any other stack would wait for), released when the rollout finished.
  const lock = await api.get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/windows-estate-day2");
  expect([lock.spec.holderIdentity ?? "", lock.spec.leaseDurationSeconds]).toEqual(["", 300]);
  expect(r.stdout + r.stderr).not.toContain("waiting for the day-2 lock");
  expect(stack.pulumi(["up", "--yes", "--expect-no-changes"]).status).toBe(0);
  // Ordered after WMCO adopted the key (a reboot started before would fail at connect on re-keyed nodes), as the
  // engine recorded it.
  const state = JSON.parse(stack.pulumi(["stack", "export"]).stdout) as {
    deployment: { resources: { urn: string; type: string; dependencies?: string[] }[] };
  };
  const urnOf = (type: string) =>
    state.deployment.resources.find((x) => x.type === `pulumi-nodejs:dynamic/windows-estate:${type}`)?.urn;
  const rebootDeps = state.deployment.resources.find((x) => x.urn === urnOf("RollingReboot"))?.dependencies ?? [];
  expect(urnOf("WmcoKeyAdopted")).toBeDefined();
  expect(rebootDeps).toContain(urnOf("WmcoKeyAdopted"));
});

test("two stacks on one cluster: their rolling reboots are serialized by the day-2 Lease, the second told who holds it", async () => {
  // A second stack of the same program declaring the same estate (server-side apply shares the objects), each stack
  // rebooting its own pool of one node: nothing but the Lease keeps them apart. The first stack's drain is held by a
  // budget until the second says it is waiting for the lock, so the two really contend.
  const [a, b] = [NODES[0], NODES[1]];
  for (const [n, pool] of [
    [a, "a"],
    [b, "b"],
  ])
    await api.must("PATCH", `/api/v1/nodes/${n}`, { metadata: { labels: { pool } } }, "application/merge-patch+json");
  const solo = await ownerController(api, NS, "solo", "solo", 1);
  await readyPod("solo-0", a, "solo", solo);
  const soloPdb = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/solo-pdb`;
  await api.must("POST", `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "solo-pdb" },
    spec: { minAvailable: 1, selector: { matchLabels: { app: "solo" } } },
  });
  await api.until(
    soloPdb,
    (x) => x.status?.observedGeneration === x.metadata.generation && x.status.disruptionsAllowed === 0,
    `PodDisruptionBudget ${NS}/solo-pdb settled with no disruption allowed`,
  );

  const { "windows-estate:reboot": _none, ...shared } = config;
  const other = new Stack(stack.dir, "e2e-b", lab);
  other.init(shared);
  other.up();
  config["windows-estate:reboot"] = { token: "two-stacks-a", nodeSelector: { pool: "a" }, drainTimeoutSeconds: 600 };
  stack.writeConfig(config);
  other.writeConfig({
    ...shared,
    "windows-estate:reboot": { token: "two-stacks-b", nodeSelector: { pool: "b" }, drainTimeoutSeconds: 60 },
  });
  // When each node was cordoned and uncordoned, as seen from the API server.
  const seen: Record<string, { cordoned?: number; uncordoned?: number }> = { [a]: {}, [b]: {} };
  let watching = true;
  const watch = (async () => {
    while (watching) {
      for (const n of [a, b]) {
        const node = await api.get(`/api/v1/nodes/${n}`);
        if (node.spec.unschedulable && seen[n].cordoned === undefined) seen[n].cordoned = Date.now();
        if (!node.spec.unschedulable && seen[n].cordoned !== undefined && seen[n].uncordoned === undefined)
          seen[n].uncordoned = Date.now();
      }
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  const first = stack.pulumiAsync(["up", "--yes", "--skip-preview"]);
  // The second starts once the first holds the lock (its drain held by the budget), so which one waits is known.
  const holderA = "windows-estate stack=windows-estate/e2e job=rolling reboot";
  await api.until(
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/windows-estate-day2",
    (l) => l.spec.holderIdentity === holderA,
    "the day-2 lock held by the first stack's rolling reboot",
  );
  let waiting: () => void = () => undefined;
  const saysWaiting = new Promise<void>((resolve) => (waiting = resolve));
  const second = other.pulumiAsync(["up", "--yes", "--skip-preview"], 900_000, (out) => {
    if (out.includes(`waiting for the day-2 lock (held by ${holderA})`)) waiting();
  });
  await Promise.race([
    saysWaiting,
    second.then((r) => {
      throw new Error(`the second stack finished without waiting for the lock: ${r.stdout.slice(-3000)}`);
    }),
  ]);
  // While the second waits, its node is untouched; then the budget lets the first finish.
  expect((await api.get(`/api/v1/nodes/${b}`)).spec.unschedulable).toBeUndefined();
  await api.must("PATCH", soloPdb, { spec: { minAvailable: 0 } }, "application/merge-patch+json");
  const [ra, rb] = await Promise.all([first, second]);
  watching = false;
  await watch;
  expect([ra.status, rb.status]).toEqual([0, 0]);
  expect(ra.stdout + ra.stderr).not.toContain("waiting for the day-2 lock");
  // Serialized: the second stack's node went out only after the first stack's node was back in service.
  expect(seen[a].uncordoned).toBeDefined();
  expect(seen[b].cordoned).toBeGreaterThan(seen[a].uncordoned ?? Infinity);
  for (const [n, token] of [
    [a, "two-stacks-a"],
    [b, "two-stacks-b"],
  ])
    expect((await api.get(`/api/v1/nodes/${n}`)).metadata.annotations[REBOOTED_FOR_ANNOTATION]).toBe(
      tokenDigest(token),
    );
  const lock = await api.get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/windows-estate-day2");
  expect(lock.spec.holderIdentity ?? "").toBe("");
});

test("while WMCO upgrades a node (its upgrading label), preview warns naming it and the rolling reboot refuses to start", async () => {
  // The label WMCO puts on the node it is rebuilding (pkg/metadata/metadata.go `UpgradingLabel`, set by
  // controllers/controllers.go `markNodeAsUpgrading`), put here by hand as if WMCO were midway through NODES[2].
  const label = "windowsmachineconfig.openshift.io/upgrading";
  const merge = "application/merge-patch+json";
  await api.must("PATCH", `/api/v1/nodes/${NODES[2]}`, { metadata: { labels: { [label]: "true" } } }, merge);
  try {
    config["windows-estate:reboot"] = { token: "2026-12-during-wmco-upgrade", maxUnavailable: 1 };
    stack.writeConfig(config);
    const preview = stack.pulumi(["preview"]);
    expect(preview.status).toBe(0);
    expect(preview.stdout).toContain(`WMCO is upgrading Windows nodes (${NODES[2]} labelled ${label}=true)`);
    const before = await Promise.all(NODES.map(async (n) => (await api.get(`/api/v1/nodes/${n}`)).spec));
    const boots = hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime);
    const r = stack.pulumi(["up", "--yes", "--skip-preview"]);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain(
      `the rolling reboot did not start; nothing was changed: WMCO is upgrading Windows nodes (node ${NODES[2]}); run again when no node carries ${label}`,
    );
    // Nothing was cordoned or restarted.
    expect(await Promise.all(NODES.map(async (n) => (await api.get(`/api/v1/nodes/${n}`)).spec))).toEqual(before);
    expect(hosts.map((h) => JSON.parse(fs.readFileSync(h.state, "utf8")).bootTime)).toEqual(boots);
  } finally {
    await api.must("PATCH", `/api/v1/nodes/${NODES[2]}`, { metadata: { labels: { [label]: null } } }, merge);
  }
});
