/**
 * Which pods a drain evicts, as `oc adm drain --ignore-daemonsets --delete-emptydir-data --force` decides (the OCP
 * "Rebooting a node gracefully" procedure and WMCO's own SafeReboot use these options), following the order of
 * kubectl's drain filters (kubernetes/kubectl pkg/drain/filters.go): finished pods pass, DaemonSet and mirror pods
 * are left alone, emptyDir data is deleted, pods without a controller are deleted too (`oc adm drain` waits for
 * pods already being deleted: `--skip-wait-for-delete-timeout` defaults to 0). Pure.
 */
import { get, JsonObject, objects, str, stringMap } from "../../lib/json";

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

export type PodDecision = { pod: PodRef; action: "evict" } | { pod: PodRef; action: "skip"; reason: string };

export interface DrainOptions {
  /** Delete pods that no controller will recreate (`--force`). Default true, as the OCP procedure and WMCO do. */
  force: boolean;
  /** Delete emptyDir data (`--delete-emptydir-data`). Default true. */
  deleteEmptyDirData: boolean;
}

export const DRAIN_DEFAULTS: DrainOptions = { force: true, deleteEmptyDirData: true };

function refOf(pod: JsonObject): PodRef {
  return {
    namespace: str(get(pod, "metadata", "namespace")) ?? "default",
    name: str(get(pod, "metadata", "name")) ?? "?",
    uid: str(get(pod, "metadata", "uid")) ?? "",
  };
}

/** What to do with each pod on the node (`items` of `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>`). */
export function drainDecisions(podList: unknown, opts: DrainOptions = DRAIN_DEFAULTS): PodDecision[] {
  return objects(get(podList, "items")).map((pod): PodDecision => {
    const ref = refOf(pod);
    const phase = str(get(pod, "status", "phase"));
    // Finished pods always pass the filters: evicting them is harmless and frees the node.
    if (phase === "Succeeded" || phase === "Failed") return { pod: ref, action: "evict" };
    const owners = objects(get(pod, "metadata", "ownerReferences"));
    const controller = owners.find((o) => get(o, "controller") === true);
    if (controller && get(controller, "kind") === "DaemonSet")
      return { pod: ref, action: "skip", reason: "DaemonSet pod" };
    if ("kubernetes.io/config.mirror" in stringMap(get(pod, "metadata", "annotations"))) {
      return { pod: ref, action: "skip", reason: "mirror (static) pod" };
    }
    const emptyDir = objects(get(pod, "spec", "volumes")).some((v) => get(v, "emptyDir") !== undefined);
    if (emptyDir && !opts.deleteEmptyDirData)
      return { pod: ref, action: "skip", reason: "uses emptyDir and deleteEmptyDirData is off" };
    if (!controller && !opts.force) return { pod: ref, action: "skip", reason: "has no controller and force is off" };
    return { pod: ref, action: "evict" };
  });
}

/**
 * What an answer to `POST …/pods/<name>/eviction` means (Kubernetes "API-initiated Eviction"; kubectl drain): 2xx
 * the eviction started, 404 the pod is gone, 429 a PodDisruptionBudget (or rate limit) says not now: retry within
 * the deadline, 500 several PDBs select the pod (a misconfiguration to fix), anything else fails the drain.
 */
export type EvictionOutcome = "evicting" | "gone" | "retry" | "misconfigured" | "failed";

export function evictionOutcome(status: number): EvictionOutcome {
  if (status >= 200 && status < 300) return "evicting";
  if (status === 404) return "gone";
  if (status === 429) return "retry";
  if (status === 500) return "misconfigured";
  return "failed";
}

/**
 * Which budget refused an eviction, in the API server's words: a 429's `details.causes` entry of type
 * `DisruptionBudget`, whose JSON name is `reason` (k8s.io/apimachinery meta/v1 types.go `StatusCause.Type`,
 * `json:"reason"`; k8s.io/api policy/v1 `DisruptionBudgetCause`; kubernetes pkg/registry/core/pod/storage/eviction.go
 * `checkAndDecrement`: "The disruption budget <name> needs <n> healthy pods and has <m> currently"). Undefined when the
 * answer names none (a rate limit).
 */
export function refusingBudget(body: unknown): string | undefined {
  const causes = get(body, "details", "causes");
  if (!Array.isArray(causes)) return undefined;
  for (const c of causes)
    if (str(get(c, "reason")) === "DisruptionBudget" && str(get(c, "message"))) return str(get(c, "message"));
  return undefined;
}

/** The `policy/v1` Eviction body for a pod. */
export function evictionBody(pod: PodRef, gracePeriodSeconds?: number) {
  return {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: pod.name, namespace: pod.namespace },
    ...(gracePeriodSeconds === undefined ? {} : { deleteOptions: { gracePeriodSeconds } }),
  };
}

/** A pod has left when it is gone (404) or its name now belongs to a new pod (another UID). */
export function podLeft(pod: PodRef, current: unknown): boolean {
  if (current === undefined) return true;
  return str(get(current, "metadata", "uid")) !== pod.uid;
}
