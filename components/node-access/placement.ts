/**
 * How many relay pods a cluster gets. Two, one per node, with a disruption budget that keeps one serving while the
 * other is drained; but on a cluster with a single Linux node the relay can run on, both would sit on that node and
 * the budget would refuse the second eviction of its drain until the first pod's replacement were Ready, which it
 * never is there (the node is cordoned): the drain would hang. So one pod there (the budget's `maxUnavailable: 1` then
 * allows every eviction), and the drain only waits for the pod's grace period while a session finishes.
 */
import type { NodeTaints } from "../cluster-objects";
import { RELAY_REPLICAS } from "../../facts/day2";

/**
 * Taints the scheduler puts on a node for a passing condition (k8s.io/api core/v1 well_known_taints.go, all under
 * `node.kubernetes.io/`: unschedulable, not-ready, unreachable, memory/disk/pid-pressure, network-unavailable,
 * out-of-service): a cordoned or briefly unhealthy node still counts, so a maintenance does not change the plan.
 */
const PASSING = "node.kubernetes.io/";

/**
 * How many Linux nodes of a `kubernetes.io/os=linux` NodeList the relay (which tolerates nothing) can be scheduled
 * on: those without a NoSchedule or NoExecute taint other than a passing one (control-plane and infra nodes are
 * left out). Undefined when the list is cut (`metadata.continue`) before two were found, or absent.
 */
export function relayNodeCount(list: NodeTaints | undefined): number | undefined {
  if (list === undefined) return undefined;
  const count = list.taints.filter((taints) =>
    taints.every(
      ({ key, effect }) => (effect !== "NoSchedule" && effect !== "NoExecute") || (key ?? "").startsWith(PASSING),
    ),
  ).length;
  return count < 2 && list.continued ? undefined : count;
}

/** The relay's replicas: the configured count, else one where a single node can take it, else two. */
export function relayReplicas(configured: number | undefined, nodes: number | undefined): number {
  if (configured !== undefined) return configured;
  return nodes === 1 ? 1 : RELAY_REPLICAS;
}

/** Said at preview when discovery finds no Linux node the relay can be scheduled on: its rollout would never end. */
export function noRelayNodeWarning(nodes: number | undefined): string | undefined {
  return nodes === 0
    ? "is cluster, but the cluster has no Linux node the relay pod can be scheduled on (every Linux node has a NoSchedule or NoExecute taint, e.g. a control plane's): its Deployment would never become ready and no node could be reached. Add a Linux worker, or remove the taint (kubeadm's single-node setup: kubectl taint nodes --all node-role.kubernetes.io/control-plane-)"
    : undefined;
}
