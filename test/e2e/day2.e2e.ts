import * as fs from "fs";
import * as path from "path";
import type { LabInfo } from "../../lab/record";
import { tokenDigest } from "../../providers/day2/rollout";
import { REBOOTED_FOR_ANNOTATION } from "../../facts/day2";
import { LabWindows, labWindows, trustingOwnKey } from "../lab/lab-windows";
import { labApi, startLab, stopLab } from "./lab";
import { exampleConfig, projectCopy, Stack, writeWmcoKey } from "./project";

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

async function must(
  method: string,
  p: string,
  body: unknown,
  contentType?: string,
): Promise<{ metadata: { uid: string } }> {
  const r = await api.request(method, p, body, contentType);
  if (r.status >= 300) throw new Error(`${method} ${p} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

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
  lab = startLab("azure", LAB, ["--node-status-report-seconds", "3"]);
  api = labApi(lab);
  const dir = projectCopy();
  writeWmcoKey(dir);
  for (const [i, address] of ADDRESSES.entries()) {
    const w = await labWindows(address, `win-day2-${i}`);
    trustingOwnKey(w);
    fs.writeFileSync(path.join(dir, ".dev", `bootstrap-${i}`), w.host.privateKey, { mode: 0o600 });
    hosts.push(w);
  }
  config = exampleConfig(dir, "Pulumi.dev.yaml");
  config["windows-estate:machineSets"] = [];
  config["windows-estate:byoh"] = hosts.map((w, i) => ({
    address: w.host.host,
    username: w.host.user,
    hostKey: w.host.hostKeyFingerprint,
    bootstrap: { privateKeyPath: `.dev/bootstrap-${i}` },
  }));
  stack = new Stack(dir, "e2e", lab);
  stack.init(config);
  stack.up();
  for (const n of NODES)
    await api.until(
      `/api/v1/nodes/${n}`,
      (x) => x.metadata.annotations?.["windowsmachineconfig.openshift.io/version"] !== undefined,
      `BYOH node ${n} configured by WMCO`,
    );

  // A workload on the three nodes: a ReplicaSet (no controller runs it here) owning one Ready pod per node, and a
  // budget that wants all three.
  await must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  const container = { name: "web", image: "mcr.microsoft.com/windows/nanoserver:ltsc2022" };
  const rs = await must("POST", `/apis/apps/v1/namespaces/${NS}/replicasets`, {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [container] } },
    },
  });
  for (const [i, node] of NODES.entries()) {
    const name = `web-${i}`;
    await must("POST", `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        labels: { app: "web" },
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: rs.metadata.uid, controller: true },
        ],
      },
      spec: { nodeName: node, containers: [container], nodeSelector: { "kubernetes.io/os": "windows" } },
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    await must(
      "PATCH",
      `/api/v1/namespaces/${NS}/pods/${name}/status`,
      {
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }],
          containerStatuses: [
            {
              name: "web",
              ready: true,
              restartCount: 0,
              image: container.image,
              imageID: "",
              started: true,
              state: { running: { startedAt: now } },
            },
          ],
        },
      },
      "application/merge-patch+json",
    );
  }
  await must("POST", `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "web-pdb" },
    spec: { minAvailable: 3, selector: { matchLabels: { app: "web" } } },
  });
  await budgetSettles(3, 0);
}, 900_000);
afterAll(async () => {
  stopLab(LAB);
  await Promise.all(hosts.map((h) => h.stop()));
});

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
  await must("PATCH", PDB, { spec: { minAvailable: 0 } }, "application/merge-patch+json");
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
