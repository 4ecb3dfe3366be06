/**
 * Cordon, drain and uncordon one node through the Kubernetes API, as `kubectl drain` does it (kubernetes/kubectl
 * pkg/drain/drain.go): the pods of the node (and pod selector) listed, put through kubectl's filters
 * (providers/day2/drain.ts), the drain refused before anything is evicted when kubectl would refuse it, then every
 * pod evicted at once, each on its own (drain.go `evictPods`, a goroutine per pod): a PodDisruptionBudget's 429 and a
 * terminating namespace's 403 are retried until the node's deadline, and each evicted pod is waited for until it is
 * gone (`waitForDelete`). Every failure names the node and the pod. Runs against any `NodeApi` (the cluster's, built
 * from the kubeconfig, or a test's stand-in).
 */
import {
  daemonSetKey,
  DaemonSetLookup,
  daemonSetsToRead,
  deleteBody,
  drainDecisions,
  DrainOptions,
  DRAIN_DEFAULTS,
  drainRefusal,
  evictionBody,
  evictionOutcome,
  isDeleting,
  isMultipleBudgets,
  isNamespaceTerminating,
  podLeft,
  PodRef,
  refusingBudget,
} from "./drain";
import { messageOf, prefixed } from "../../lib/errors";
import { apiError, KubeAnswer } from "../kube-wait/api";
import { get, objects } from "../../lib/json";

/** The API calls a drain needs; `body` is the parsed JSON answer. */
export interface NodeApi {
  request(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    body?: unknown,
    /** `passThrough`: answers (a 403, a 5xx) the caller reads itself instead of the client's error for them. */
    options?: { passThrough?: (status: number, body: unknown) => boolean },
  ): Promise<KubeAnswer>;
}

export interface DrainRun extends DrainOptions {
  /** Give up (leaving the node cordoned) after this long: kubectl's `--timeout`, over evictions and waits. */
  deadlineMs: number;
  /** Pause between tries when a PodDisruptionBudget says not now (429), and between checks that pods have left. */
  retryDelayMs: number;
  /** Delete pods instead of evicting them, ignoring PodDisruptionBudgets (`--disable-eviction`). Only on request. */
  disableEviction: boolean;
  /** Progress lines for long operations. */
  progress?: (line: string) => void;
}

export const DRAIN_RUN_DEFAULTS: Omit<DrainRun, "progress"> = {
  ...DRAIN_DEFAULTS,
  deadlineMs: 10 * 60_000,
  retryDelayMs: 5_000,
  disableEviction: false,
};

const podPath = (p: PodRef) =>
  `/api/v1/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const who = (pod: PodRef, node: string) => `pod ${pod.namespace}/${pod.name} on node ${node}`;

/** `spec.unschedulable` on or off (what `oc adm cordon/uncordon` patch). */
export async function setCordoned(api: NodeApi, node: string, cordoned: boolean): Promise<void> {
  await patchNode(api, node, { spec: { unschedulable: cordoned } }, cordoned ? "cordoning" : "uncordoning");
}

/** A JSON merge patch of a Node; `what` names the change when the API refuses it ("cordoning node x failed: …"). */
export async function patchNode(api: NodeApi, node: string, patch: unknown, what: string): Promise<void> {
  const r = await api.request("PATCH", `/api/v1/nodes/${encodeURIComponent(node)}`, patch);
  if (r.status < 200 || r.status >= 300) throw apiError(`${what} node ${node}`, r);
}

/** The pods of the node as kubectl lists them (drain.go `GetPodsForDeletion`: the node's field selector, the pod selector). */
async function listPods(api: NodeApi, node: string, podSelector: string | undefined): Promise<unknown> {
  const query = [`fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`];
  if (podSelector) query.push(`labelSelector=${encodeURIComponent(podSelector)}`);
  const list = await api.request("GET", `/api/v1/pods?${query.join("&")}`);
  if (list.status !== 200) throw apiError(`listing the pods of node ${node}`, list);
  return list.body;
}

/** Reads the DaemonSets the filters need (filters.go `daemonSetFilter` reads each pod's). */
async function readDaemonSets(api: NodeApi, podList: unknown): Promise<Record<string, DaemonSetLookup>> {
  const out: Record<string, DaemonSetLookup> = {};
  for (const ds of daemonSetsToRead(podList)) {
    const path = `/apis/apps/v1/namespaces/${encodeURIComponent(ds.namespace)}/daemonsets/${encodeURIComponent(ds.name)}`;
    let found: DaemonSetLookup;
    try {
      const r = await api.request("GET", path);
      found =
        r.status === 404
          ? "missing"
          : r.status >= 200 && r.status < 300
            ? "found"
            : { error: apiError(`reading DaemonSet ${ds.namespace}/${ds.name}`, r).message };
    } catch (e) {
      found = { error: `reading DaemonSet ${ds.namespace}/${ds.name} failed: ${messageOf(e)}` };
    }
    out[daemonSetKey(ds.namespace, ds.name)] = found;
  }
  return out;
}

/** Drains a (cordoned) node; returns the pods evicted. Throws, naming the node and pod, on what retrying cannot fix. */
export async function drainNode(api: NodeApi, node: string, run: DrainRun): Promise<PodRef[]> {
  const deadline = Date.now() + run.deadlineMs;
  const list = await listPods(api, node, run.podSelector);
  const decisions = drainDecisions(list, run, await readDaemonSets(api, list));
  const refusal = drainRefusal(node, decisions);
  if (refusal) throw new Error(refusal);
  const pods = decisions.flatMap((d) => (d.action === "evict" ? [d.pod] : []));
  run.progress?.(`node ${node}: ${run.disableEviction ? "deleting" : "evicting"} ${pods.length} pod(s)`);
  for (const d of decisions)
    if (d.action === "evict" && d.warning)
      run.progress?.(`node ${node}: pod ${d.pod.namespace}/${d.pod.name}: ${d.warning}`);

  const waitGone = (pod: PodRef) => waitForDelete(api, node, pod, run, deadline);
  if (run.disableEviction) {
    // drain.go `deletePods`: every pod deleted first (a refusal stops the drain), then all waited for.
    for (const pod of pods) {
      const r = await api.request("DELETE", podPath(pod), deleteBody(run.gracePeriodSeconds));
      if (r.status !== 404 && (r.status < 200 || r.status >= 300)) throw apiError(`deleting ${who(pod, node)}`, r);
    }
    await settleAll(pods.map(waitGone));
  } else {
    // One eviction and wait per pod, all at once: a pod its budget holds back does not hold back the others.
    const listed = new Map(objects(get(list, "items")).map((p) => [get(p, "metadata", "uid"), p]));
    await settleAll(
      pods.map(async (pod) => (await evictPod(api, node, pod, listed.get(pod.uid), run, deadline)) && waitGone(pod)),
    );
  }
  run.progress?.(`node ${node}: drained`);
  return pods;
}

/** Waits for every pod's work; throws one error naming each failed pod (drain.go `evictPods` aggregates them). */
async function settleAll(work: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).flatMap((r) =>
    r.status === "rejected" ? [messageOf(r.reason)] : [],
  );
  if (failed.length > 0) throw new Error(failed.join("; "));
}

/**
 * Evicts one pod, retrying what kubectl retries until the deadline (drain.go `evictPods`). True when the pod must be
 * waited for, false when it is already gone.
 */
async function evictPod(
  api: NodeApi,
  node: string,
  pod: PodRef,
  listed: unknown,
  run: DrainRun,
  deadline: number,
): Promise<boolean> {
  // The pod as last read (first as listed): kubectl re-reads it after each refusal to see whether its deletion started.
  let seen: unknown = listed;
  let refusals = 0;
  for (;;) {
    const r = await api
      .request("POST", `${podPath(pod)}/eviction`, evictionBody(pod, run.gracePeriodSeconds), {
        passThrough: (status, body) => isNamespaceTerminating(status, body) || isMultipleBudgets(status, body),
      })
      .catch((e: unknown) => {
        throw prefixed(`evicting ${who(pod, node)} failed: `, e);
      });
    const outcome = evictionOutcome(r.status, r.body);
    if (outcome === "evicting") return true;
    if (outcome === "gone") return false;
    if (outcome === "misconfigured")
      throw new Error(
        `${who(pod, node)} is selected by more than one PodDisruptionBudget, which the Eviction API refuses; fix the budgets so that at most one selects it`,
      );
    if (outcome === "failed") throw apiError(`evicting ${who(pod, node)}`, r);
    // A namespace being deleted refuses evictions; a pod whose deletion has started is only waited for.
    if (outcome === "namespace-terminating" && isDeleting(seen)) return true;
    const why =
      outcome === "retry"
        ? `${refusingBudget(r.body) ?? "a PodDisruptionBudget refuses the eviction"} (429)`
        : `its namespace is being deleted, which refuses evictions until the pod's deletion starts (403)`;
    // Said once per pod, then every 12th try (a minute at the default pace): the rollout is waiting, not stuck.
    if (refusals++ % 12 === 0)
      run.progress?.(
        `node ${node}: pod ${pod.namespace}/${pod.name}: ${why}; retrying every ${Math.round(run.retryDelayMs / 1000)}s for at most ${Math.max(0, Math.round((deadline - Date.now()) / 1000))}s more`,
      );
    if (Date.now() + run.retryDelayMs > deadline) {
      const budget = refusingBudget(r.body);
      throw new Error(
        outcome === "retry"
          ? `${who(pod, node)} could not be evicted before the deadline: ${budget ? `${budget} (429)` : "a PodDisruptionBudget keeps refusing (429)"}; the node stays cordoned. Free capacity for it, or set disableEviction: true to delete pods regardless of budgets`
          : `${who(pod, node)} could not be evicted before the deadline: ${why}; the node stays cordoned`,
      );
    }
    await pause(run.retryDelayMs);
    // As kubectl: a failed read is ignored, the next eviction sorts it out.
    try {
      const fresh = await api.request("GET", podPath(pod));
      if (fresh.status >= 200 && fresh.status < 300) seen = fresh.body;
    } catch {
      // ignored, see above
    }
  }
}

/** Waits until an evicted or deleted pod is gone, or its name belongs to a new pod (drain.go `waitForDelete`). */
async function waitForDelete(api: NodeApi, node: string, pod: PodRef, run: DrainRun, deadline: number): Promise<void> {
  for (;;) {
    let current: KubeAnswer;
    try {
      current = await api.request("GET", podPath(pod));
    } catch (e) {
      throw new Error(`checking ${who(pod, node)} failed: ${messageOf(e)}; the node stays cordoned`);
    }
    const state = podLeft(pod, current.status, current.body);
    if (state === "left") return;
    if (state === "error")
      throw apiError(`checking whether ${who(pod, node)} has left`, current, "the node stays cordoned");
    if (Date.now() + run.retryDelayMs > deadline)
      throw new Error(`${who(pod, node)} did not leave before the deadline; the node stays cordoned`);
    await pause(run.retryDelayMs);
  }
}
