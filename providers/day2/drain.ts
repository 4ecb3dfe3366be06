/**
 * Which pods a drain evicts, decided as kubectl decides it (kubernetes/kubectl pkg/drain/filters.go: `makeFilters`,
 * `filterPods`, `PodDeleteList.errors`), with `--ignore-daemonsets` always on and, by default, `--force` and
 * `--delete-emptydir-data` (the OCP "Rebooting a node gracefully" procedure and WMCO's own SafeReboot use these
 * options). Where kubectl refuses to drain ("cannot delete …"), so do we, before anything is evicted. Also: what an
 * eviction answer and a pod read mean. Pure.
 */
import type * as pulumi from "@pulumi/pulumi";
import { get, JsonObject, objects, str, stringMap } from "../../lib/json";

export interface PodRef {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * One pod's fate: evicted (with kubectl's warning, when it gives one), left alone (DaemonSet and mirror pods), or a
 * reason the drain cannot go on (kubectl's `PodDeleteStatusTypeError`).
 */
export type PodDecision =
  | { pod: PodRef; action: "evict"; warning?: string }
  | { pod: PodRef; action: "skip"; reason: string }
  | { pod: PodRef; action: "refuse"; reason: string };

export interface DrainOptions {
  /** Delete pods that no controller will recreate, and orphaned DaemonSet pods (`--force`). Default true. */
  force: boolean;
  /** Delete pods with emptyDir volumes, and their data (`--delete-emptydir-data`). Default true. */
  deleteEmptyDirData: boolean;
  /** `deleteOptions.gracePeriodSeconds` of each Eviction (or delete); undefined: each pod's own grace period. */
  gracePeriodSeconds?: number;
  /** Only pods matching this label selector are drained (`--pod-selector`); undefined: every pod on the node. */
  podSelector?: string;
}

export const DRAIN_DEFAULTS: DrainOptions = { force: true, deleteEmptyDirData: true };

/**
 * The drain options a stack configures (`reboot.*`, `patching.*`: stacks/schema/drain.ts) as a job's provider receives
 * them; unset ones take `DRAIN_DEFAULTS` (state written before they existed has none).
 */
export type DrainSettingsInput = Partial<DrainOptions>;

/** The same options as a job resource's arguments. */
export type DrainArgs = { [K in keyof DrainOptions]?: pulumi.Input<DrainOptions[K]> };

/** The drain options among a job's settings (config, arguments), to hand on to the next layer. */
export function drainInputs<T extends { [K in keyof DrainOptions]?: unknown }>(s: T): Pick<T, keyof DrainOptions> {
  return {
    force: s.force,
    deleteEmptyDirData: s.deleteEmptyDirData,
    gracePeriodSeconds: s.gracePeriodSeconds,
    podSelector: s.podSelector,
  };
}

/** The options of a drain from what a job received, defaults filled in. */
export function drainOptions(s: DrainSettingsInput): DrainOptions {
  return {
    force: s.force ?? DRAIN_DEFAULTS.force,
    deleteEmptyDirData: s.deleteEmptyDirData ?? DRAIN_DEFAULTS.deleteEmptyDirData,
    ...(s.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: s.gracePeriodSeconds }),
    ...(s.podSelector ? { podSelector: s.podSelector } : {}),
  };
}

/** What reading a pod's DaemonSet answered: there, gone (404), or another failure (its text). */
export type DaemonSetLookup = "found" | "missing" | { error: string };

function refOf(pod: JsonObject): PodRef {
  return {
    namespace: str(get(pod, "metadata", "namespace")) ?? "default",
    name: str(get(pod, "metadata", "name")) ?? "?",
    uid: str(get(pod, "metadata", "uid")) ?? "",
  };
}

const finished = (pod: JsonObject) => {
  const phase = str(get(pod, "status", "phase"));
  return phase === "Succeeded" || phase === "Failed";
};
const controllerOf = (pod: JsonObject) =>
  objects(get(pod, "metadata", "ownerReferences")).find((o) => get(o, "controller") === true);

/** The DaemonSet controlling a pod, as kubectl recognises one (filters.go `isControllerRefDaemonSet`: apps/v1). */
function daemonSetOf(pod: JsonObject): string | undefined {
  const c = controllerOf(pod);
  return c && get(c, "kind") === "DaemonSet" && get(c, "apiVersion") === "apps/v1" ? str(get(c, "name")) : undefined;
}

/** The key a DaemonSet lookup is recorded under. */
export const daemonSetKey = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * The DaemonSets whose existence decides a pod's fate (filters.go `daemonSetFilter` reads them only for pods that
 * have not finished), as `namespace/name` keys.
 */
export function daemonSetsToRead(podList: unknown): { namespace: string; name: string }[] {
  const seen = new Map<string, { namespace: string; name: string }>();
  for (const pod of objects(get(podList, "items"))) {
    const ds = daemonSetOf(pod);
    if (!ds || finished(pod)) continue;
    const namespace = refOf(pod).namespace;
    seen.set(daemonSetKey(namespace, ds), { namespace, name: ds });
  }
  return [...seen.values()];
}

type Status = { delete: true; warning?: string } | { delete: false; skip: string } | { delete: false; refuse: string };
const okay: Status = { delete: true };

/**
 * What to do with each pod on the node (`items` of `GET /api/v1/pods?fieldSelector=spec.nodeName=<node>`, already
 * narrowed by the pod selector), through kubectl's filters in kubectl's order, the first that keeps a pod deciding
 * (filters.go `makeFilters`, drain.go `filterPods`). `daemonSets` holds what reading each `daemonSetsToRead` answered.
 */
export function drainDecisions(
  podList: unknown,
  opts: DrainOptions = DRAIN_DEFAULTS,
  daemonSets: Record<string, DaemonSetLookup> = {},
): PodDecision[] {
  const filters: ((pod: JsonObject) => Status)[] = [
    // skipDeletedFilter: skips pods whose deletion started more than skipWaitForDeleteTimeoutSeconds ago. Ours is 0,
    // kubectl's and `oc adm drain`'s default, which skips none: pods already terminating are evicted and waited for.
    () => okay,
    // daemonSetFilter: a DaemonSet would put its pod straight back, so it stays (`--ignore-daemonsets`) unless it
    // has finished, or its DaemonSet is gone (an orphan, deleted with `--force`, else an error); a failed read is an
    // error too.
    (pod) => {
      const ds = daemonSetOf(pod);
      if (!ds || finished(pod)) return okay;
      const found = daemonSets[daemonSetKey(refOf(pod).namespace, ds)] ?? "found";
      if (found === "found") return { delete: false, skip: "DaemonSet-managed pod" };
      if (found === "missing")
        return opts.force
          ? { delete: true, warning: `its DaemonSet ${ds} no longer exists` }
          : { delete: false, refuse: `pods whose DaemonSet no longer exists (set force: true to delete them)` };
      return { delete: false, refuse: `pods whose DaemonSet could not be read (${found.error})` };
    },
    // mirrorPodFilter: a static pod's mirror is the kubelet's, whatever its phase; deleting it does nothing.
    (pod) =>
      "kubernetes.io/config.mirror" in stringMap(get(pod, "metadata", "annotations"))
        ? { delete: false, skip: "mirror (static) pod" }
        : okay,
    // localStorageFilter: emptyDir data is lost with the pod.
    (pod) => {
      if (!objects(get(pod, "spec", "volumes")).some((v) => get(v, "emptyDir") !== undefined)) return okay;
      if (finished(pod)) return okay;
      return opts.deleteEmptyDirData
        ? { delete: true, warning: "deleting its emptyDir data" }
        : { delete: false, refuse: "pods with local storage (set deleteEmptyDirData: true to delete their data)" };
    },
    // unreplicatedFilter: nothing recreates a pod without a controller.
    (pod) => {
      if (finished(pod) || controllerOf(pod)) return okay;
      return opts.force
        ? { delete: true, warning: "it declares no controller and will not come back" }
        : { delete: false, refuse: "pods that declare no controller (set force: true to delete them)" };
    },
  ];
  return objects(get(podList, "items")).map((pod): PodDecision => {
    const ref = refOf(pod);
    let warning: string | undefined;
    for (const f of filters) {
      const s = f(pod);
      if (!s.delete)
        return "skip" in s
          ? { pod: ref, action: "skip", reason: s.skip }
          : { pod: ref, action: "refuse", reason: s.refuse };
      if (s.warning) warning = s.warning;
    }
    return warning ? { pod: ref, action: "evict", warning } : { pod: ref, action: "evict" };
  });
}

/**
 * Why the drain must not start, as kubectl's "cannot delete <reason>: <pods>" list (filters.go `PodDeleteList.errors`),
 * one entry per reason in the order first met; undefined when every pod may go.
 */
export function drainRefusal(node: string, decisions: PodDecision[]): string | undefined {
  const byReason = new Map<string, string[]>();
  for (const d of decisions)
    if (d.action === "refuse")
      byReason.set(d.reason, [...(byReason.get(d.reason) ?? []), `${d.pod.namespace}/${d.pod.name}`]);
  if (byReason.size === 0) return undefined;
  const list = [...byReason].map(([reason, pods]) => `cannot delete ${reason}: ${pods.join(", ")}`).join("; ");
  return `node ${node} cannot be drained, nothing was evicted: ${list}`;
}

/** Whether a Status names a cause of this type (apimachinery api/errors `HasStatusCause`; the JSON name is `reason`). */
export function hasStatusCause(body: unknown, type: string): boolean {
  return objects(get(body, "details", "causes")).some((c) => get(c, "reason") === type);
}

/**
 * The answer of an eviction in a namespace being deleted: 403 with the `NamespaceTerminating` cause (k8s.io/api core/v1
 * `NamespaceTerminatingCause`, added by the NamespaceLifecycle admission plugin, k8s.io/apiserver
 * pkg/admission/plugin/namespace/lifecycle/admission.go). kubectl retries it (drain.go `evictPods`).
 */
export function isNamespaceTerminating(status: number, body: unknown): boolean {
  return status === 403 && hasStatusCause(body, "NamespaceTerminating");
}

/**
 * The answer of an eviction for a pod that several PodDisruptionBudgets select: 500 with a Failure `Status` saying
 * "This pod has more than one PodDisruptionBudget, …" (kubernetes pkg/registry/core/pod/storage/eviction.go `Create`
 * returns that Status; k8s.io/apiserver pkg/endpoints/handlers/finisher/finisher.go turns a non-Success Status into
 * the error the API server answers with its code; checked against the lab's kube-apiserver in test/e2e/drain.e2e.ts).
 * Any other 500 is a server failure, not this.
 */
export function isMultipleBudgets(status: number, body: unknown): boolean {
  return status === 500 && /more than one PodDisruptionBudget/.test(str(get(body, "message")) ?? "");
}

/**
 * What an answer to `POST …/pods/<name>/eviction` means, as kubectl reads it (drain.go `evictPods`): 2xx the eviction
 * started; 404 the pod is gone; 429 a PodDisruptionBudget (or a rate limit) says not now: retry within the deadline;
 * 403 NamespaceTerminating: retry, or wait for a pod already being deleted; several budgets: a misconfiguration to
 * fix; anything else fails that pod's eviction.
 */
export type EvictionOutcome = "evicting" | "gone" | "retry" | "namespace-terminating" | "misconfigured" | "failed";

export function evictionOutcome(status: number, body?: unknown): EvictionOutcome {
  if (isMultipleBudgets(status, body)) return "misconfigured";
  if (status >= 200 && status < 300) return "evicting";
  if (status === 404) return "gone";
  if (status === 429) return "retry";
  if (isNamespaceTerminating(status, body)) return "namespace-terminating";
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

/** The `policy/v1` Eviction body for a pod; `gracePeriodSeconds` as kubectl's `makeDeleteOptions` sets it. */
export function evictionBody(pod: PodRef, gracePeriodSeconds?: number) {
  return {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: pod.name, namespace: pod.namespace },
    ...(gracePeriodSeconds === undefined ? {} : { deleteOptions: { gracePeriodSeconds } }),
  };
}

/** The DeleteOptions body of a pod DELETE (`disableEviction`), as kubectl's `DeletePod` sends them. */
export function deleteBody(gracePeriodSeconds?: number) {
  return gracePeriodSeconds === undefined ? undefined : { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds };
}

/**
 * What a read of an evicted pod says (drain.go `waitForDelete`): it has left when the read answers 404 or finds
 * another pod under the name (another UID); it is still there when it finds the same pod; any other answer (a 429
 * after the client's retries, a 5xx, a refusal) is an error, never taken for "gone".
 */
export function podLeft(pod: PodRef, status: number, current: unknown): "left" | "present" | "error" {
  if (status === 404) return "left";
  if (status < 200 || status >= 300) return "error";
  const uid = str(get(current, "metadata", "uid"));
  return uid !== undefined && uid !== pod.uid ? "left" : "present";
}

/** Whether the pod's deletion has started (`metadata.deletionTimestamp` set). */
export function isDeleting(pod: unknown): boolean {
  return str(get(pod, "metadata", "deletionTimestamp")) !== undefined;
}
