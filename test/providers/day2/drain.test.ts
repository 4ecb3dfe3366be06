import {
  drainDecisions,
  DRAIN_DEFAULTS,
  drainRefusal,
  evictionBody,
  evictionOutcome,
  podLeft,
  refusingBudget,
} from "../../../providers/day2/drain";
import { validateObject } from "../../helpers/schemas";
import { budgetRefusal } from "../../helpers/fake-kube";

// Pods as `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>` returns them (hand-built; each validated against the
// core/v1 Pod schema). Expected decisions follow kubectl's drain filters (kubernetes/kubectl pkg/drain/filters.go) with
// the options of `oc adm drain --ignore-daemonsets --delete-emptydir-data --force` (OCP "Rebooting a node gracefully").
function pod(
  name: string,
  extra: {
    owner?: string;
    ownerApiVersion?: string;
    annotations?: Record<string, string>;
    emptyDir?: boolean;
    phase?: string;
  } = {},
) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "apps",
      uid: `uid-${name}`,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.owner
        ? {
            ownerReferences: [
              {
                apiVersion: extra.ownerApiVersion ?? "apps/v1",
                kind: extra.owner,
                name: `${name}-owner`,
                uid: "o",
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      nodeName: "win-1",
      containers: [{ name: "c", image: "mcr.microsoft.com/windows/servercore:ltsc2022" }],
      ...(extra.emptyDir ? { volumes: [{ name: "scratch", emptyDir: {} }] } : {}),
    },
    status: { phase: extra.phase ?? "Running" },
  };
}

const list = {
  apiVersion: "v1",
  kind: "PodList",
  items: [
    pod("web", { owner: "ReplicaSet" }),
    pod("exporter", { owner: "DaemonSet" }),
    pod("static", { annotations: { "kubernetes.io/config.mirror": "abc" } }),
    pod("cache", { owner: "ReplicaSet", emptyDir: true }),
    pod("bare"),
    pod("done", { phase: "Succeeded" }),
  ],
};

test("the hand-built pods are valid for the Pod schema", () => {
  for (const p of list.items) expect(validateObject(p)).toBe("");
});

test("the OCP drain options: DaemonSet and mirror pods stay, everything else is evicted (emptyDir data and bare pods too)", () => {
  expect(drainDecisions(list, DRAIN_DEFAULTS).map((d) => `${d.pod.name}:${d.action}`)).toEqual([
    "web:evict",
    "exporter:skip",
    "static:skip",
    "cache:evict",
    "bare:evict",
    "done:evict",
  ]);
});

test("without --delete-emptydir-data or --force kubectl refuses those pods, naming each (filters.go errors)", () => {
  const d = drainDecisions(list, { force: false, deleteEmptyDirData: false });
  expect(d.map((x) => `${x.pod.name}:${x.action}${"reason" in x ? `: ${x.reason}` : ""}`)).toEqual([
    "web:evict",
    "exporter:skip: DaemonSet-managed pod",
    "static:skip: mirror (static) pod",
    "cache:refuse: pods with local storage (set deleteEmptyDirData: true to delete their data)",
    "bare:refuse: pods that declare no controller (set force: true to delete them)",
    "done:evict",
  ]);
  expect(drainRefusal("win-1", d)).toBe(
    "node win-1 cannot be drained, nothing was evicted: " +
      "cannot delete pods with local storage (set deleteEmptyDirData: true to delete their data): apps/cache; " +
      "cannot delete pods that declare no controller (set force: true to delete them): apps/bare",
  );
  expect(drainRefusal("win-1", drainDecisions(list, DRAIN_DEFAULTS))).toBeUndefined();
});

test("finished pods: mirror pods are still skipped (mirrorPodFilter has no exception); DaemonSet, emptyDir and bare ones go", () => {
  const finished = {
    items: [
      pod("static-done", { annotations: { "kubernetes.io/config.mirror": "abc" }, phase: "Succeeded" }),
      pod("ds-done", { owner: "DaemonSet", phase: "Failed" }),
      pod("cache-done", { owner: "ReplicaSet", emptyDir: true, phase: "Succeeded" }),
      pod("bare-done", { phase: "Failed" }),
    ],
  };
  expect(
    drainDecisions(finished, { force: false, deleteEmptyDirData: false }).map((d) => `${d.pod.name}:${d.action}`),
  ).toEqual(["static-done:skip", "ds-done:evict", "cache-done:evict", "bare-done:evict"]);
});

test("DaemonSet pods (filters.go daemonSetFilter): an orphan is deleted with force, refused without; a failed read refuses", () => {
  const ds = { items: [pod("agent", { owner: "DaemonSet" })] };
  const show = (d: ReturnType<typeof drainDecisions>) =>
    d.map((x) => `${x.action}${"reason" in x ? `: ${x.reason}` : ""}${"warning" in x ? `: ${x.warning}` : ""}`);
  expect(show(drainDecisions(ds, DRAIN_DEFAULTS, { "apps/agent-owner": "found" }))).toEqual([
    "skip: DaemonSet-managed pod",
  ]);
  expect(show(drainDecisions(ds, DRAIN_DEFAULTS, { "apps/agent-owner": "missing" }))).toEqual([
    "evict: its DaemonSet agent-owner no longer exists",
  ]);
  expect(show(drainDecisions(ds, { ...DRAIN_DEFAULTS, force: false }, { "apps/agent-owner": "missing" }))).toEqual([
    "refuse: pods whose DaemonSet no longer exists (set force: true to delete them)",
  ]);
  expect(show(drainDecisions(ds, DRAIN_DEFAULTS, { "apps/agent-owner": { error: "answered 400" } }))).toEqual([
    "refuse: pods whose DaemonSet could not be read (answered 400)",
  ]);
  // Only an apps/v1 DaemonSet counts (filters.go isControllerRefDaemonSet); another kind of that name is a controller.
  const other = { items: [pod("agent", { owner: "DaemonSet", ownerApiVersion: "example.com/v1" })] };
  expect(show(drainDecisions(other, DRAIN_DEFAULTS))).toEqual(["evict"]);
});

test("eviction answers (drain.go evictPods): 429 retries, 404 is done, 403 NamespaceTerminating retries, several budgets are named", () => {
  const several = {
    kind: "Status",
    status: "Failure",
    message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    code: 500,
  };
  const terminating = { kind: "Status", code: 403, details: { causes: [{ reason: "NamespaceTerminating" }] } };
  expect([
    evictionOutcome(201, { kind: "Status", status: "Success" }),
    evictionOutcome(200),
    evictionOutcome(404),
    evictionOutcome(429),
    evictionOutcome(403, terminating),
    evictionOutcome(403, { kind: "Status", code: 403 }),
    // eviction.go Create's Status, answered with its code 500 (finisher.go); any other 500 is not it.
    evictionOutcome(500, several),
    evictionOutcome(500, { kind: "Status", status: "Failure", reason: "InternalError", code: 500 }),
  ]).toEqual(["evicting", "evicting", "gone", "retry", "namespace-terminating", "failed", "misconfigured", "failed"]);
});

test("the Eviction body is a valid policy/v1 Eviction", () => {
  expect(validateObject(evictionBody({ namespace: "apps", name: "web", uid: "u" }))).toBe("");
  expect(validateObject(evictionBody({ namespace: "apps", name: "web", uid: "u" }, 30))).toBe("");
});

test("a pod has left only when the read answers 404 or finds another UID (drain.go waitForDelete); other answers are errors", () => {
  const ref = { namespace: "apps", name: "web", uid: "uid-web" };
  expect(podLeft(ref, 404, { kind: "Status", code: 404 })).toBe("left");
  expect(podLeft(ref, 200, pod("web"))).toBe("present");
  expect(podLeft(ref, 200, { ...pod("web"), metadata: { ...pod("web").metadata, uid: "uid-new" } })).toBe("left");
  expect(podLeft(ref, 429, { kind: "Status", code: 429, reason: "TooManyRequests" })).toBe("error");
  expect(podLeft(ref, 500, undefined)).toBe("error");
});

test("a refused eviction names its budget in the API server's words; a plain rate limit names none", () => {
  // The Status a 429 carries (kubernetes pkg/registry/core/pod/storage/eviction.go checkAndDecrement; cause type
  // policy/v1 DisruptionBudgetCause, serialized as `reason`: apimachinery meta/v1 StatusCause.Type).
  const refused = budgetRefusal("web-pdb", 2, 2);
  expect(refusingBudget(refused)).toBe("The disruption budget web-pdb needs 2 healthy pods and has 2 currently");
  expect(
    refusingBudget({ kind: "Status", code: 429, reason: "TooManyRequests", details: { retryAfterSeconds: 1 } }),
  ).toBeUndefined();
  expect(refusingBudget("not json")).toBeUndefined();
});
