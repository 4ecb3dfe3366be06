/**
 * Blockers: pods whose presence holds a disruptive job back, as kured's `--blocking-pod-selector` does
 * (kubereboot/kured pkg/blockers/kubernetespod.go `IsBlocked`: a pod list by label selector on the node, leaving out pods that
 * have finished or whose phase is unknown). `scope: node` asks about the node about to be taken out, `scope: cluster`
 * about every node. The selector is the API server's to parse, so its syntax is exactly `kubectl get pods -l`'s.
 */
import { get, objects, str } from "../../lib/json";
import { NodeApi } from "./drain-run";
import { apiError } from "../kube-wait/api";

export interface Blocker {
  /** A label selector (`app=backup`). */
  podSelector: string;
  /** Only pods in this namespace; absent: every namespace. */
  namespace?: string;
  scope: "node" | "cluster";
}

/** kured's field selector: pods that still run (or wait to), on one node when given. */
function fieldSelector(node?: string): string {
  const phases = "status.phase!=Succeeded,status.phase!=Failed,status.phase!=Unknown";
  return node ? `spec.nodeName=${node},${phases}` : phases;
}

/** `namespace/name` of the pods matching one blocker now (at most 10 are listed, as kured lists them). */
export async function blockingPods(api: NodeApi, b: Blocker, node?: string): Promise<string[]> {
  const base = b.namespace ? `/api/v1/namespaces/${encodeURIComponent(b.namespace)}/pods` : "/api/v1/pods";
  const query = `labelSelector=${encodeURIComponent(b.podSelector)}&fieldSelector=${encodeURIComponent(fieldSelector(node))}&limit=10`;
  const r = await api.request("GET", `${base}?${query}`);
  if (r.status === 400)
    throw new Error(
      `the blocker podSelector "${b.podSelector}" is not a label selector the API server accepts: ${str(get(r.body, "message")) ?? "400"}`,
    );
  if (r.status !== 200) throw apiError(`listing the pods of blocker "${b.podSelector}"`, r);
  return objects(get(r.body, "items")).map(
    (p) => `${str(get(p, "metadata", "namespace")) ?? "?"}/${str(get(p, "metadata", "name")) ?? "?"}`,
  );
}

function describe(b: Blocker, pods: string[]): string {
  return `pod(s) ${pods.join(", ")} matching blocker ${b.podSelector}${b.namespace ? ` in ${b.namespace}` : ""}`;
}

/** Why no batch may start now (a `cluster` blocker has pods), or undefined. */
export async function clusterBlocked(api: NodeApi, blockers: readonly Blocker[]): Promise<string | undefined> {
  for (const b of blockers.filter((x) => x.scope === "cluster")) {
    const pods = await blockingPods(api, b);
    if (pods.length > 0) return `blocked by ${describe(b, pods)}`;
  }
  return undefined;
}

/** Why this node must wait for a later run (a `node` blocker has pods on it), or undefined. */
export async function nodeBlocked(
  api: NodeApi,
  blockers: readonly Blocker[],
  node: string,
): Promise<string | undefined> {
  for (const b of blockers.filter((x) => x.scope === "node")) {
    const pods = await blockingPods(api, b, node);
    if (pods.length > 0) return describe(b, pods);
  }
  return undefined;
}
