import { FakeBudget, FakeKube } from "../../helpers/fake-kube";
import { withConnectKube } from "../../helpers/kube-child";
import { validateObject } from "../../helpers/schemas";

// The drain through the production client (connectKube) against a local stand-in of the API server that keeps pods
// and PodDisruptionBudgets and answers evictions as the eviction registry does (kubernetes
// pkg/registry/core/pod/storage/eviction.go). State changes with requests, never with time; the only timed thing is
// each test's drain deadline, which only the tests about the deadline reach.
const NODE = "win-1";
type Extra = {
  owner?: string;
  ownerApiVersion?: string;
  labels?: Record<string, string>;
  emptyDir?: boolean;
  node?: string;
  deleting?: boolean;
};
const pod = (name: string, uid: string, x: Extra = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: "apps",
    uid,
    labels: x.labels ?? { app: name },
    ...(x.deleting ? { deletionTimestamp: "2026-11-26T00:00:00Z" } : {}),
    ...(x.owner === ""
      ? {}
      : {
          ownerReferences: [
            {
              apiVersion: x.ownerApiVersion ?? "apps/v1",
              kind: x.owner ?? "ReplicaSet",
              name: `${name}-x`,
              uid: "o",
              controller: true,
            },
          ],
        }),
  },
  spec: {
    nodeName: x.node ?? NODE,
    containers: [{ name: "c", image: "mcr.microsoft.com/windows/servercore:ltsc2022" }],
    ...(x.emptyDir ? { volumes: [{ name: "scratch", emptyDir: {} }] } : {}),
  },
  status: { phase: "Running" },
});
const budget = (name: string, app: string, b: Partial<FakeBudget> = {}): FakeBudget => ({
  namespace: "apps",
  name,
  matchLabels: { app },
  disruptionsAllowed: 0,
  desiredHealthy: 2,
  currentHealthy: 2,
  ...b,
});
/** A DRAIN_RUN_DEFAULTS-based run, as JavaScript for the child. */
const run = (o: Record<string, unknown> = {}) =>
  `{ ...drain.DRAIN_RUN_DEFAULTS, retryDelayMs: 1, deadlineMs: 5000, progress, ...${JSON.stringify(o)} }`;
const drainCall = (o: Record<string, unknown> = {}) =>
  `drain.drainNode(api, ${JSON.stringify(NODE)}, ${run(o)}).then((pods) => pods.map((p) => p.name))`;
const gone = (name: string) => !kube.pods.has(`apps/${name}`);

let kube: FakeKube;
beforeEach(async () => {
  kube = new FakeKube();
  await kube.start();
});
afterEach(() => kube.stop());

test("the pods are valid for the Pod schema", () => {
  for (const p of [pod("web", "u1"), pod("bare", "u2", { owner: "", emptyDir: true, deleting: true })])
    expect(validateObject(p)).toBe("");
});

test("cordon and uncordon patch spec.unschedulable; a refusal keeps the client's RBAC hint", async () => {
  const bodies: unknown[] = [];
  kube.route(`/api/v1/nodes/${NODE}`, (_n, req) => (bodies.push([req.method, req.body]), { status: 200, body: {} }));
  const r = await withConnectKube(
    kube.kubeconfig(),
    `drain.setCordoned(api, "${NODE}", true).then(() => drain.setCordoned(api, "${NODE}", false))`,
  );
  expect(r.ok).toBe(true);
  expect(bodies).toEqual([
    ["PATCH", { spec: { unschedulable: true } }],
    ["PATCH", { spec: { unschedulable: false } }],
  ]);
  kube.route(`/api/v1/nodes/${NODE}`, () => ({ status: 403 }));
  const refused = await withConnectKube(kube.kubeconfig(), `drain.setCordoned(api, "${NODE}", true)`);
  expect(refused.value).toMatch(/refused PATCH \/api\/v1\/nodes\/win-1 \(403\); check the credentials and RBAC/);
});

test("evicts the node's pods but the DaemonSet's, retries a budget's 429 naming it, and waits until each has left", async () => {
  kube.model(
    [
      pod("web", "u1"),
      pod("exporter", "u2", { owner: "DaemonSet" }),
      pod("api", "u3"),
      // Another node's pod: the list's field selector leaves it out.
      pod("elsewhere", "u4", { node: "win-2" }),
    ],
    { terminatingReads: 2, daemonSets: ["apps/exporter-x"] },
  );
  kube.budgets.push(budget("web-pdb", "web", { allowsAfterRefusals: 2 }));
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r).toMatchObject({ ok: true, value: ["web", "api"] });
  expect(kube.evictions.filter((e) => e.startsWith("apps/web"))).toEqual([
    "apps/web:429",
    "apps/web:429",
    "apps/web:201",
  ]);
  expect(kube.evictions).toContain("apps/api:201");
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/exporter/eviction")).toBeUndefined();
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/elsewhere/eviction")).toBeUndefined();
  expect([gone("web"), gone("api"), gone("exporter"), gone("elsewhere")]).toEqual([true, true, false, false]);
  // The refusal is reported once, in the API server's words (the rollout waits, it is not stuck).
  expect(r.lines).toEqual([
    "node win-1: evicting 2 pod(s)",
    "node win-1: pod apps/web: The disruption budget web-pdb needs 2 healthy pods and has 2 currently (429); retrying every 0s for at most 5s more",
    "node win-1: drained",
  ]);
});

test("evictions run at once: a pod its budget holds back does not hold back the others (kubectl drain.go evictPods)", async () => {
  kube.model([pod("web", "u1"), pod("api", "u3")]);
  kube.budgets.push(budget("web-pdb", "web"));
  const r = await withConnectKube(kube.kubeconfig(), drainCall({ retryDelayMs: 20, deadlineMs: 1000 }));
  expect(r.ok).toBe(false);
  expect(r.value).toMatch(
    /^pod apps\/web on node win-1 could not be evicted before the deadline: The disruption budget web-pdb needs 2 healthy pods and has 2 currently \(429\); the node stays cordoned.*disableEviction: true/,
  );
  // api was evicted and has left while web's budget kept refusing.
  expect(kube.evictions).toContain("apps/api:201");
  expect([gone("web"), gone("api")]).toEqual([false, true]);
});

test("a namespace being deleted refuses evictions with 403 NamespaceTerminating: retried, as kubectl does", async () => {
  kube.model([pod("web", "u1")]);
  // The NamespaceLifecycle admission plugin's refusal (k8s.io/apiserver pkg/admission/plugin/namespace/lifecycle).
  const terminating = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'pods "web" is forbidden: unable to create new content in namespace apps because it is being terminated',
    reason: "Forbidden",
    details: {
      name: "web",
      kind: "pods",
      causes: [
        { reason: "NamespaceTerminating", message: "namespace apps is being terminated", field: "metadata.namespace" },
      ],
    },
    code: 403,
  };
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", (n) => {
    if (n <= 2) return { status: 403, body: terminating };
    kube.pods.delete("apps/web");
    return { status: 201, body: { kind: "Status", status: "Success" } };
  });
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r).toMatchObject({ ok: true, value: ["web"] });
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/web/eviction")).toBe(3);
  expect(r.lines[1]).toMatch(/pod apps\/web: its namespace is being deleted.*\(403\)/);
});

test("403 NamespaceTerminating for a pod whose deletion has started: no more evictions, it is waited for", async () => {
  kube.model([pod("web", "u1", { deleting: true })], { terminatingReads: 3 });
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({
    status: 403,
    body: {
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      details: { causes: [{ reason: "NamespaceTerminating" }] },
    },
  }));
  // The deletion already under way, as the kubelet would finish it: gone after a few reads.
  const modelled = kube.pods.get("apps/web");
  if (modelled) modelled.deleting = 3;
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r).toMatchObject({ ok: true, value: ["web"] });
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/web/eviction")).toBe(1);
});

test("any other 403 on an eviction keeps the client's RBAC error", async () => {
  kube.model([pod("web", "u1")]);
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({
    status: 403,
    body: { kind: "Status", status: "Failure", reason: "Forbidden", code: 403 },
  }));
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r.value).toMatch(
    /refused POST \/api\/v1\/namespaces\/apps\/pods\/web\/eviction \(403\); check the credentials and RBAC/,
  );
});

test("waiting for a pod: only 404 or another UID means it has left; a 429 is an error, never 'gone' (drain.go waitForDelete)", async () => {
  kube.model([pod("web", "u1")]);
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({
    status: 201,
    body: { kind: "Status", status: "Success" },
  }));
  // The client asks a GET's 429 again (client-go's maxRetries, 10), then hands it to the drain.
  kube.route("/api/v1/namespaces/apps/pods/web", () => ({
    status: 429,
    headers: { "Retry-After": "0" },
    body: { kind: "Status", status: "Failure", reason: "TooManyRequests", code: 429 },
  }));
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r.ok).toBe(false);
  expect(r.value).toBe(
    "checking whether pod apps/web on node win-1 has left failed: GET /api/v1/namespaces/apps/pods/web answered 429; the node stays cordoned",
  );
  // A new pod under the same name (another UID) means the evicted one has left.
  kube.route("/api/v1/namespaces/apps/pods/web", () => ({ status: 200, body: pod("web", "u1-new") }));
  expect(await withConnectKube(kube.kubeconfig(), drainCall())).toMatchObject({ ok: true, value: ["web"] });
});

test("several budgets selecting one pod fail at once, naming the pod and the fix (eviction.go: 500)", async () => {
  kube.model([pod("web", "u1", { labels: { app: "web", tier: "front" } })]);
  kube.budgets.push(budget("web-pdb", "web", { disruptionsAllowed: 1 }), {
    ...budget("front-pdb", "x", { disruptionsAllowed: 1 }),
    matchLabels: { tier: "front" },
  });
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r.value).toBe(
    "pod apps/web on node win-1 is selected by more than one PodDisruptionBudget, which the Eviction API refuses; fix the budgets so that at most one selects it",
  );
  expect(kube.evictions).toEqual(["apps/web:500"]);
});

test("the budgets' 500 is told from an eviction's other 500s, which stay 'unreachable' (retried by the next up)", async () => {
  kube.model([pod("web", "u1")]);
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({
    status: 500,
    body: {
      kind: "Status",
      status: "Failure",
      message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    },
  }));
  expect((await withConnectKube(kube.kubeconfig(), drainCall())).value).toMatch(
    /^pod apps\/web on node win-1 is selected by more than one PodDisruptionBudget/,
  );
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({
    status: 500,
    body: {
      kind: "Status",
      status: "Failure",
      reason: "InternalError",
      message: "etcdserver: leader changed",
      code: 500,
    },
  }));
  expect((await withConnectKube(kube.kubeconfig(), drainCall())).value).toBe(
    "evicting pod apps/web on node win-1 failed: POST /api/v1/namespaces/apps/pods/web/eviction answered 500: etcdserver: leader changed",
  );
});

test("where kubectl refuses to drain, nothing is evicted and every pod is named with its reason (filters.go errors)", async () => {
  kube.model(
    [
      pod("web", "u1"),
      pod("bare", "u2", { owner: "" }),
      pod("cache", "u3", { emptyDir: true }),
      pod("orphan", "u4", { owner: "DaemonSet" }),
      pod("agent", "u5", { owner: "DaemonSet" }),
      pod("bare2", "u6", { owner: "" }),
    ],
    { daemonSets: [] },
  );
  // orphan-x is gone (404, no route); agent-x cannot be read.
  kube.route("/apis/apps/v1/namespaces/apps/daemonsets/agent-x", () => ({ status: 400, body: { kind: "Status" } }));
  const r = await withConnectKube(kube.kubeconfig(), drainCall({ force: false, deleteEmptyDirData: false }));
  expect(r.value).toBe(
    "node win-1 cannot be drained, nothing was evicted: " +
      "cannot delete pods that declare no controller (set force: true to delete them): apps/bare, apps/bare2; " +
      "cannot delete pods with local storage (set deleteEmptyDirData: true to delete their data): apps/cache; " +
      "cannot delete pods whose DaemonSet no longer exists (set force: true to delete them): apps/orphan; " +
      "cannot delete pods whose DaemonSet could not be read (reading DaemonSet apps/agent-x failed: GET /apis/apps/v1/namespaces/apps/daemonsets/agent-x answered 400): apps/agent",
  );
  expect(kube.evictions).toEqual([]);
});

test("with force, an orphaned DaemonSet pod is evicted with a warning; a live DaemonSet's pod stays", async () => {
  kube.model([pod("orphan", "u4", { owner: "DaemonSet" }), pod("agent", "u5", { owner: "DaemonSet" })], {
    daemonSets: ["apps/agent-x"],
  });
  const r = await withConnectKube(kube.kubeconfig(), drainCall());
  expect(r).toMatchObject({ ok: true, value: ["orphan"] });
  expect(r.lines).toContain("node win-1: pod apps/orphan: its DaemonSet orphan-x no longer exists");
});

test("podSelector narrows the pods (kubectl --pod-selector, sent as the list's labelSelector)", async () => {
  kube.model([pod("web", "u1", { labels: { app: "web", drain: "yes" } }), pod("api", "u3")]);
  const r = await withConnectKube(kube.kubeconfig(), drainCall({ podSelector: "drain=yes" }));
  expect(r).toMatchObject({ ok: true, value: ["web"] });
  expect(gone("api")).toBe(false);
});

test("gracePeriodSeconds goes out as the Eviction's (or the delete's) deleteOptions (drain.go makeDeleteOptions)", async () => {
  kube.model([pod("web", "u1"), pod("api", "u3")]);
  const evicted = await withConnectKube(kube.kubeconfig(), drainCall({ gracePeriodSeconds: 30 }));
  expect(evicted.ok).toBe(true);
  expect(kube.deleteOptions.get("apps/web")).toEqual({
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "web", namespace: "apps" },
    deleteOptions: { gracePeriodSeconds: 30 },
  });
  kube.model([pod("web", "u1"), pod("api", "u3")]);
  const deleted = await withConnectKube(kube.kubeconfig(), drainCall({ gracePeriodSeconds: 0, disableEviction: true }));
  expect(deleted.ok).toBe(true);
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/web/eviction")).toBe(1);
  expect(kube.deleteOptions.get("apps/api")).toEqual({
    apiVersion: "v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
  });
});

test("disableEviction deletes pods regardless of budgets", async () => {
  kube.model([pod("web", "u1"), pod("api", "u3")], { terminatingReads: 1 });
  kube.budgets.push(budget("web-pdb", "web"));
  const r = await withConnectKube(kube.kubeconfig(), drainCall({ disableEviction: true }));
  expect(r).toMatchObject({ ok: true, value: ["web", "api"] });
  expect(kube.evictions).toEqual([]);
  expect([gone("web"), gone("api")]).toEqual([true, true]);
});
