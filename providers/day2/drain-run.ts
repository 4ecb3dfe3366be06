/**
 * Cordon, drain and uncordon one node through the Kubernetes API: the decisions of components/day2/drain.ts carried
 * out with the Eviction API (PodDisruptionBudgets respected; a 429 is retried until the deadline), then each evicted
 * pod is waited for until it is gone. Every failure names the node and the pod. Runs against any `NodeApi` (the
 * cluster's, built from the kubeconfig, or a test's stand-in).
 */
import {
  drainDecisions,
  DrainOptions,
  DRAIN_DEFAULTS,
  evictionBody,
  evictionOutcome,
  podLeft,
  PodRef,
  refusingBudget,
} from "./drain";
import { messageOf } from "../../lib/errors";

/** The API calls a drain needs; `body` is the parsed JSON answer. */
export interface NodeApi {
  request(
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }>;
}

export interface DrainRun extends DrainOptions {
  /** Give up (leaving the node cordoned) after this long. */
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

/** `spec.unschedulable` on or off (what `oc adm cordon/uncordon` patch). */
export async function setCordoned(api: NodeApi, node: string, cordoned: boolean): Promise<void> {
  await patchNode(api, node, { spec: { unschedulable: cordoned } }, cordoned ? "cordoning" : "uncordoning");
}

/** A JSON merge patch of a Node; `what` names the change when the API refuses it ("cordoning node x failed: …"). */
export async function patchNode(api: NodeApi, node: string, patch: unknown, what: string): Promise<void> {
  const r = await api.request("PATCH", `/api/v1/nodes/${encodeURIComponent(node)}`, patch);
  if (r.status < 200 || r.status >= 300) throw new Error(`${what} node ${node} failed: the API answered ${r.status}`);
}

/** Drains a (cordoned) node; returns the pods evicted. Throws, naming the node and pod, on what retrying cannot fix. */
export async function drainNode(api: NodeApi, node: string, run: DrainRun): Promise<PodRef[]> {
  const deadline = Date.now() + run.deadlineMs;
  const list = await api.request("GET", `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`);
  if (list.status !== 200) throw new Error(`listing the pods of node ${node} failed: the API answered ${list.status}`);
  const pods = drainDecisions(list.body, run).flatMap((d) => (d.action === "evict" ? [d.pod] : []));
  run.progress?.(`node ${node}: evicting ${pods.length} pod(s)`);
  for (const pod of pods) {
    let refusals = 0;
    for (;;) {
      const r = run.disableEviction
        ? await api.request("DELETE", podPath(pod))
        : await api.request("POST", `${podPath(pod)}/eviction`, evictionBody(pod));
      const outcome = run.disableEviction
        ? r.status === 404
          ? "gone"
          : r.status < 300
            ? "evicting"
            : "failed"
        : evictionOutcome(r.status);
      if (outcome === "evicting" || outcome === "gone") break;
      const who = `pod ${pod.namespace}/${pod.name} on node ${node}`;
      if (outcome === "misconfigured")
        throw new Error(`${who} is selected by more than one PodDisruptionBudget; fix the budgets`);
      if (outcome === "failed") throw new Error(`evicting ${who} failed: the API answered ${r.status}`);
      const budget = refusingBudget(r.body);
      // Said once per pod, then every 12th try (a minute at the default pace): the rollout is waiting, not stuck.
      if (refusals++ % 12 === 0)
        run.progress?.(
          `node ${node}: pod ${pod.namespace}/${pod.name}: ${budget ?? "a PodDisruptionBudget refuses the eviction"} (429); retrying every ${Math.round(run.retryDelayMs / 1000)}s for at most ${Math.max(0, Math.round((deadline - Date.now()) / 1000))}s more`,
        );
      if (Date.now() + run.retryDelayMs > deadline) {
        throw new Error(
          `${who} could not be evicted before the deadline: ${budget ? `${budget} (429)` : "a PodDisruptionBudget keeps refusing (429)"}; the node stays cordoned. Free capacity for it, or set disableEviction: true to delete pods regardless of budgets`,
        );
      }
      await pause(run.retryDelayMs);
    }
  }
  // Evicted pods terminate at their own pace: wait until each is gone or replaced by a new pod of the same name.
  for (const pod of pods) {
    for (;;) {
      let current: { status: number; body: unknown };
      try {
        current = await api.request("GET", podPath(pod));
      } catch (e) {
        throw new Error(`checking pod ${pod.namespace}/${pod.name} on node ${node} failed: ${messageOf(e)}`);
      }
      if (podLeft(pod, current.status === 404 ? undefined : current.body)) break;
      if (Date.now() + run.retryDelayMs > deadline)
        throw new Error(
          `pod ${pod.namespace}/${pod.name} did not leave node ${node} before the deadline; the node stays cordoned`,
        );
      await pause(run.retryDelayMs);
    }
  }
  run.progress?.(`node ${node}: drained`);
  return pods;
}
