/**
 * The day-2 jobs' reads of Nodes, decoded (inventory.ts), and waiting for a node to be back: Ready, and its kubelet
 * alive after our work (its node Lease renewed since, or a newer heartbeat). Times are compared with the kubelet's own
 * earlier values, never with our clock, so clock skew cannot pass or fail it. Used after a reboot (rolling reboot) and
 * after an upgrade (vanilla nodes).
 */
import { NodeApi } from "./drain-run";
import { apiError } from "../kube-wait/api";
import { decodeNode, decodeNodes, NodeFields, NodeObject } from "./inventory";
import { WINDOWS_NODES_PATH } from "../../facts/day2";
import { get, str } from "../../lib/json";

/** The Node as the API has it now; a node that is gone is an error naming it. */
export async function readNode(api: NodeApi, name: string): Promise<NodeFields> {
  const r = await api.request("GET", `/api/v1/nodes/${encodeURIComponent(name)}`);
  if (r.status === 404) throw new Error(`node ${name} no longer exists; run pulumi up again to plan without it`);
  if (r.status !== 200) throw apiError(`reading node ${name}`, r);
  return decodeNode(r.body);
}

/** The Windows Nodes now; `doing` names the list in its error. */
export async function listWindowsNodes(api: NodeApi, doing = "listing Windows nodes"): Promise<NodeObject[]> {
  const list = await api.request("GET", WINDOWS_NODES_PATH);
  if (list.status !== 200) throw apiError(doing, list);
  return decodeNodes(list.body);
}

/** The Ready condition's last heartbeat now ("" when there is none). */
export async function lastHeartbeat(api: NodeApi, name: string): Promise<string> {
  return (await readNode(api, name)).ready.heartbeat ?? "";
}

/**
 * When the kubelet last renewed the node's Lease in `kube-node-lease` (`spec.renewTime`), or undefined when the node
 * has none. A running kubelet renews it every 10 s (a quarter of `nodeLeaseDurationSeconds` 40: pkg/kubelet/kubelet.go
 * `nodeLeaseRenewIntervalFraction`), while it re-posts the Ready condition's heartbeat only on a change or every
 * `nodeStatusReportFrequency` (5 minutes: pkg/kubelet/apis/config/v1beta1 defaults). So the Lease is what shows a
 * kubelet alive soon after our work; the heartbeat alone could keep a healthy node waiting five minutes.
 */
export async function nodeLeaseRenewTime(api: NodeApi, name: string): Promise<string | undefined> {
  const r = await api.request(
    "GET",
    `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(name)}`,
  );
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw apiError(`reading the Lease kube-node-lease/${name}`, r);
  return str(get(r.body, "spec", "renewTime")) ?? "";
}

/**
 * Waits until the node is Ready and its kubelet is shown alive after our work: its node Lease renewed after the wait
 * began (the work is over by then: after a restart only the new kubelet can renew it), or, on a node without a Lease,
 * a Ready heartbeat newer than `heartbeatBefore` (read before the work).
 */
export async function waitForFreshReady(
  api: NodeApi,
  name: string,
  heartbeatBefore: string,
  o: { timeoutMs: number; pollMs: number; after: string },
): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const leaseMark = await nodeLeaseRenewTime(api, name);
  for (;;) {
    const { ready } = await readNode(api, name);
    const lease = await nodeLeaseRenewTime(api, name);
    const alive =
      lease !== undefined ? leaseMark === undefined || lease > leaseMark : (ready.heartbeat ?? "") > heartbeatBefore;
    if (ready.status === "True" && alive) return;
    if (Date.now() + o.pollMs > deadline)
      throw new Error(
        `not Ready with a live kubelet within ${Math.round(o.timeoutMs / 1000)}s after ${o.after} (Ready=${ready.status ?? "unknown"}, ${lease !== undefined ? `node Lease last renewed ${lease || "never"}` : `last heartbeat ${ready.heartbeat ?? "none"}`}); it stays cordoned`,
      );
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}
