import * as http from "http";
import { DRAIN_RUN_DEFAULTS, drainNode, NodeApi, setCordoned } from "../../../providers/day2/drain-run";
import { FakeKube } from "../../helpers/fake-kube";
import { validateObject } from "../../helpers/schemas";

// The drain against a local Kubernetes API stand-in: answers change with the number of requests a path has seen,
// never with time. Pods are hand-built and validated against the Pod schema.
const NODE = "win-1";
const pod = (name: string, uid: string, owner = "ReplicaSet") => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: "apps",
    uid,
    ownerReferences: [{ apiVersion: "apps/v1", kind: owner, name: `${name}-x`, uid: "o", controller: true }],
  },
  spec: { nodeName: NODE, containers: [{ name: "c", image: "mcr.microsoft.com/windows/servercore:ltsc2022" }] },
  status: { phase: "Running" },
});
const podList = {
  apiVersion: "v1",
  kind: "PodList",
  metadata: {},
  items: [pod("web", "u1"), pod("exporter", "u2", "DaemonSet"), pod("api", "u3")],
};

/** A NodeApi over plain HTTP with the stand-in's token (what the kubeconfig-built client does for the cluster). */
function client(kube: FakeKube): NodeApi {
  return {
    request: (method, path, body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          `${kube.url}${path}`,
          { method, headers: { Authorization: `Bearer ${kube.token}`, "Content-Type": "application/json" } },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
          },
        );
        req.on("error", reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      }),
  };
}

let kube: FakeKube;
const run = { ...DRAIN_RUN_DEFAULTS, retryDelayMs: 1, deadlineMs: 5_000 };
beforeEach(async () => {
  kube = new FakeKube();
  kube.route("/api/v1/pods", () => ({ status: 200, body: podList }));
  await kube.start();
});
afterEach(() => kube.stop());

test("the pods are valid for the Pod schema", () => {
  for (const p of podList.items) expect(validateObject(p)).toBe("");
});

test("cordon and uncordon patch spec.unschedulable, naming the node when refused", async () => {
  const bodies: unknown[] = [];
  kube.route(`/api/v1/nodes/${NODE}`, (_n, req) => (bodies.push([req.method, req.body]), { status: 200, body: {} }));
  await setCordoned(client(kube), NODE, true);
  await setCordoned(client(kube), NODE, false);
  expect(bodies).toEqual([
    ["PATCH", { spec: { unschedulable: true } }],
    ["PATCH", { spec: { unschedulable: false } }],
  ]);
  kube.route(`/api/v1/nodes/${NODE}`, () => ({ status: 403 }));
  await expect(setCordoned(client(kube), NODE, true)).rejects.toThrow(
    "cordoning node win-1 failed: the API answered 403",
  );
});

test("evicts every pod but the DaemonSet's, retries a PDB's 429s, and waits until each pod is gone", async () => {
  const evictions: string[] = [];
  // web: the PDB refuses twice, then allows; api: allowed at once.
  kube.route(
    "/api/v1/namespaces/apps/pods/web/eviction",
    (n, req) => (evictions.push(`web#${n}:${req.method}`), { status: n <= 2 ? 429 : 201 }),
  );
  kube.route("/api/v1/namespaces/apps/pods/api/eviction", (n) => (evictions.push(`api#${n}`), { status: 201 }));
  // web still there on the first check, then gone; api replaced by a new pod of the same name.
  kube.route("/api/v1/namespaces/apps/pods/web", (n) =>
    n === 1 ? { status: 200, body: pod("web", "u1") } : { status: 404 },
  );
  kube.route("/api/v1/namespaces/apps/pods/api", () => ({ status: 200, body: pod("api", "u3-new") }));
  const lines: string[] = [];
  const evicted = await drainNode(client(kube), NODE, { ...run, progress: (l) => lines.push(l) });
  expect(evicted.map((p) => p.name)).toEqual(["web", "api"]);
  expect(evictions).toEqual(["web#1:POST", "web#2:POST", "web#3:POST", "api#1"]);
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/exporter/eviction")).toBeUndefined();
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/web")).toBe(2);
  // The refusal is reported once (the rollout waits, it is not stuck).
  expect(lines).toEqual([
    "node win-1: evicting 2 pod(s)",
    "node win-1: pod apps/web: a PodDisruptionBudget refuses the eviction (429); retrying every 0s for at most 5s more",
    "node win-1: drained",
  ]);
});

test("a PDB that never allows the eviction stops the drain at the deadline, naming the pod and node and the way out", async () => {
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({ status: 429 }));
  await expect(drainNode(client(kube), NODE, { ...run, retryDelayMs: 20, deadlineMs: 200 })).rejects.toThrow(
    /pod apps\/web on node win-1 could not be evicted before the deadline: a PodDisruptionBudget keeps refusing \(429\); the node stays cordoned.*disableEviction: true/,
  );
});

test("disableEviction deletes pods regardless of budgets", async () => {
  const methods: string[] = [];
  kube.route(
    "/api/v1/namespaces/apps/pods/web",
    (n, req) => (
      methods.push(`web:${req.method}`),
      req.method === "DELETE" ? { status: 200, body: {} } : { status: 404 }
    ),
  );
  kube.route(
    "/api/v1/namespaces/apps/pods/api",
    (n, req) => (
      methods.push(`api:${req.method}`),
      req.method === "DELETE" ? { status: 200, body: {} } : { status: 404 }
    ),
  );
  await drainNode(client(kube), NODE, { ...run, disableEviction: true });
  expect(methods).toEqual(["web:DELETE", "api:DELETE", "web:GET", "api:GET"]);
  expect(kube.hits.get("/api/v1/namespaces/apps/pods/web/eviction")).toBeUndefined();
});

test("several PDBs selecting one pod (500) fail at once with the fix", async () => {
  kube.route("/api/v1/namespaces/apps/pods/web/eviction", () => ({ status: 500 }));
  await expect(drainNode(client(kube), NODE, run)).rejects.toThrow(
    "pod apps/web on node win-1 is selected by more than one PodDisruptionBudget; fix the budgets",
  );
});
