import {
  drainDecisions,
  DRAIN_DEFAULTS,
  evictionBody,
  evictionOutcome,
  podLeft,
  refusingBudget,
} from "../../../providers/day2/drain";
import { validateObject } from "../../helpers/schemas";

// Pods as `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>` returns them (hand-built; each validated against the
// core/v1 Pod schema). Expected decisions follow kubectl's drain filters (kubernetes/kubectl pkg/drain/filters.go) with
// the options of `oc adm drain --ignore-daemonsets --delete-emptydir-data --force` (OCP "Rebooting a node gracefully").
function pod(
  name: string,
  extra: { owner?: string; annotations?: Record<string, string>; emptyDir?: boolean; phase?: string } = {},
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
              { apiVersion: "apps/v1", kind: extra.owner, name: `${name}-owner`, uid: "o", controller: true },
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

test("without --delete-emptydir-data or --force those pods are kept, with the reason", () => {
  const d = drainDecisions(list, { force: false, deleteEmptyDirData: false });
  expect(
    d.filter((x) => x.action === "skip").map((x) => (x.action === "skip" ? `${x.pod.name}: ${x.reason}` : "")),
  ).toEqual([
    "exporter: DaemonSet pod",
    "static: mirror (static) pod",
    "cache: uses emptyDir and deleteEmptyDirData is off",
    "bare: has no controller and force is off",
  ]);
});

test("eviction answers (Kubernetes API-initiated Eviction): 429 retries, 404 is done, 500 means several PDBs", () => {
  expect([201, 200, 404, 429, 500, 403].map(evictionOutcome)).toEqual([
    "evicting",
    "evicting",
    "gone",
    "retry",
    "misconfigured",
    "failed",
  ]);
});

test("the Eviction body is a valid policy/v1 Eviction", () => {
  expect(validateObject(evictionBody({ namespace: "apps", name: "web", uid: "u" }))).toBe("");
  expect(validateObject(evictionBody({ namespace: "apps", name: "web", uid: "u" }, 30))).toBe("");
});

test("a pod has left when it is gone or its name belongs to a new pod", () => {
  const ref = { namespace: "apps", name: "web", uid: "uid-web" };
  expect(podLeft(ref, undefined)).toBe(true);
  expect(podLeft(ref, pod("web"))).toBe(false);
  expect(podLeft(ref, { ...pod("web"), metadata: { ...pod("web").metadata, uid: "uid-new" } })).toBe(true);
});

test("a refused eviction names its budget in the API server's words; a plain rate limit names none", () => {
  // The Status a 429 carries (kubernetes pkg/registry/core/pod/storage/eviction.go checkAndDecrement; cause type
  // policy/v1 DisruptionBudgetCause, serialized as `reason`: apimachinery meta/v1 StatusCause.Type).
  const refused = {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    reason: "TooManyRequests",
    details: {
      causes: [
        {
          reason: "DisruptionBudget",
          message: "The disruption budget web-pdb needs 2 healthy pods and has 2 currently",
        },
      ],
    },
    code: 429,
  };
  expect(refusingBudget(refused)).toBe("The disruption budget web-pdb needs 2 healthy pods and has 2 currently");
  expect(
    refusingBudget({ kind: "Status", code: 429, reason: "TooManyRequests", details: { retryAfterSeconds: 1 } }),
  ).toBeUndefined();
  expect(refusingBudget("not json")).toBeUndefined();
});
