import type { LabInfo } from "../../lab/record";
import { withConnectKube } from "../helpers/kube-child";
import { labApi, startLab, stopLab } from "./lab";
import { boundReadyPod, Owner, ownerController, WINDOWS_CONTAINER } from "./pods";

// The drain (providers/day2/drain-run.ts) through the production client (connectKube) against the lab's real API
// server, whose PodDisruptionBudgets the real disruption controller keeps (kube-controller-manager `disruption`):
// evictions run at once (kubernetes/kubectl pkg/drain/drain.go `evictPods`), so a pod its budget refuses does not
// hold back the others, and the refusal and a pod selected by two budgets are read as the eviction registry words
// them (kubernetes pkg/registry/core/pod/storage/eviction.go). No kubelet runs the node: the pods are bound by hand
// with the status a kubelet would post, and evicted with `gracePeriodSeconds: 0`, which deletes them at once.

const LAB = "e2e-drain";
const NODE = "win-drain-1";
const NS = "drain";
let lab: LabInfo;
let api: ReturnType<typeof labApi>;

const container = WINDOWS_CONTAINER;

/** A Ready pod of the owner on the node, as the scheduler and a kubelet would leave it. */
const readyPod = (name: string, app: string, owner: Owner) =>
  boundReadyPod(api, { namespace: NS, name, node: NODE, app, owner });

/** A budget wanting every pod of `app`, once the disruption controller has seen it (0 disruptions allowed). */
async function budget(name: string, app: string) {
  await api.must("POST", `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name },
    spec: { minAvailable: 1, selector: { matchLabels: { app } } },
  });
  await api.until(
    `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/${name}`,
    (b) =>
      b.status?.observedGeneration === b.metadata.generation &&
      b.status.currentHealthy === 1 &&
      b.status.disruptionsAllowed === 0,
    `PodDisruptionBudget ${NS}/${name} settled by the disruption controller`,
  );
}

const drain = (run: Record<string, unknown>) =>
  withConnectKube(
    lab.kubeconfig,
    `drain.drainNode(api, ${JSON.stringify(NODE)}, { ...drain.DRAIN_RUN_DEFAULTS, progress, ...${JSON.stringify(run)} }).then((pods) => pods.map((p) => p.name))`,
  );

let owner: Owner;
beforeAll(async () => {
  lab = startLab("none", LAB);
  api = labApi(lab);
  // The node the pods are bound to (the pod garbage collector removes pods bound to a Node that does not exist).
  await api.must("POST", "/api/v1/nodes", {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: NODE, labels: { "kubernetes.io/os": "windows", "kubernetes.io/hostname": NODE } },
  });
  await api.must("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  // A controller none runs here: it owns the pods (so they are not "unmanaged") and recreates none.
  owner = await ownerController(api, NS, "owner", "rs-owned", 0);
}, 900_000);
afterAll(() => stopLab(LAB));

test("the real Eviction API: the pod listed after a held one is evicted while the held one's budget refuses, and the error names that budget", async () => {
  await readyPod("held", "held", owner);
  // Listed (by name) after the held pod: evicted one after the other, it would wait for the held one's deadline.
  await readyPod("later", "later", owner);
  await budget("held-pdb", "held");
  const r = await drain({ deadlineMs: 8_000, retryDelayMs: 500, gracePeriodSeconds: 0 });
  expect(r.ok).toBe(false);
  expect(r.value).toMatch(
    /^pod drain\/held on node win-drain-1 could not be evicted before the deadline: The disruption budget held-pdb needs 1 healthy pods and has 1 currently \(429\); the node stays cordoned/,
  );
  // Evicted at once, not after the held pod's deadline: it is gone, the held one is still there.
  expect(await api.status(`/api/v1/namespaces/${NS}/pods/later`)).toBe(404);
  expect(await api.status(`/api/v1/namespaces/${NS}/pods/held`)).toBe(200);
  expect(r.lines[0]).toBe("node win-drain-1: evicting 2 pod(s)");
});

test("a pod two budgets select: what the API server answers, and the drain names the pod and the fix", async () => {
  await budget("held-pdb-2", "held");
  // eviction.go Create returns a Failure Status with code 500; the API server answers it as an error with that
  // code (k8s.io/apiserver pkg/endpoints/handlers/finisher/finisher.go), as the Kubernetes docs say.
  const raw = await api.request("POST", `/api/v1/namespaces/${NS}/pods/held/eviction`, {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "held", namespace: NS },
  });
  expect([raw.status, raw.body.status, raw.body.code, raw.body.message]).toEqual([
    500,
    "Failure",
    500,
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
  ]);
  const r = await drain({ deadlineMs: 8_000, retryDelayMs: 500 });
  expect(r.value).toBe(
    "pod drain/held on node win-drain-1 is selected by more than one PodDisruptionBudget, which the Eviction API refuses; fix the budgets so that at most one selects it",
  );
  expect(await api.status(`/api/v1/namespaces/${NS}/pods/held`)).toBe(200);
});

test("blockers against the real API server: its own label and field selectors decide (kured's IsBlocked query), finished pods never block", async () => {
  const { clusterBlocked, nodeBlocked } = await import("../../providers/day2/blockers");
  const nodeApi = { request: (method: string, p: string, body?: unknown) => api.request(method, p, body) };
  // `held` still runs on the node (the budgets above kept it there).
  expect(await nodeBlocked(nodeApi, [{ podSelector: "app in (held,other)", scope: "node" }], NODE)).toBe(
    "pod(s) drain/held matching blocker app in (held,other)",
  );
  expect(await nodeBlocked(nodeApi, [{ podSelector: "app=held", scope: "node" }], "win-drain-2")).toBeUndefined();
  expect(await clusterBlocked(nodeApi, [{ podSelector: "app=held", namespace: NS, scope: "cluster" }])).toBe(
    "blocked by pod(s) drain/held matching blocker app=held in drain",
  );
  // A node-scoped blocker does not hold the whole job, and a finished pod holds nothing.
  expect(await clusterBlocked(nodeApi, [{ podSelector: "app=held", scope: "node" }])).toBeUndefined();
  await api.must("POST", `/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "nightly", labels: { app: "backup" } },
    spec: { nodeName: NODE, containers: [container], restartPolicy: "Never" },
  });
  expect(await nodeBlocked(nodeApi, [{ podSelector: "app=backup", scope: "node" }], NODE)).toBe(
    "pod(s) drain/nightly matching blocker app=backup",
  );
  await api.must(
    "PATCH",
    `/api/v1/namespaces/${NS}/pods/nightly/status`,
    { status: { phase: "Succeeded" } },
    "application/merge-patch+json",
  );
  expect(await nodeBlocked(nodeApi, [{ podSelector: "app=backup", scope: "node" }], NODE)).toBeUndefined();
  // A selector the API server cannot parse is an error naming it, never "not blocked".
  await expect(clusterBlocked(nodeApi, [{ podSelector: "app in backup", scope: "cluster" }])).rejects.toThrow(
    /^the blocker podSelector "app in backup" is not a label selector the API server accepts: /,
  );
});
