/**
 * flannel's backend on a live cluster, as plain functions: which backends Windows flanneld can join at all, the
 * net-conf.json this stack holds, and what changing it does to the Linux nodes already running flanneld.
 */
import { ConfigIssue } from "../../stacks/config-issue";
import { FLANNEL_LINUX_DEFAULTS, FLANNEL_WINDOWS_MAC_PREFIX } from "../../facts/kubernetes";
import { get, isObject } from "../../lib/json";

/** A VXLAN backend's VNI and port as flanneld runs them (Linux defaults filled in where net-conf.json is silent). */
interface VxlanBackend {
  vni: number;
  port: number;
}

/**
 * What the cluster's backend makes impossible for Windows nodes, whatever `flannel.manage` says: this stack never
 * switches backends or drops a VXLAN option under a running cluster, since every Linux node would change with it.
 * Windows flanneld's rules: flannel pkg/backend/vxlan/vxlan_windows.go (`DirectRouting is not supported on Windows`,
 * `GBP is not supported on Windows`, the MacPrefix format); this stack's CNI conf is win-overlay (VXLAN) only.
 */
export function flannelBackendIssues(current: Record<string, unknown>): ConfigIssue[] {
  const backend = get(current, "Backend");
  // No Backend at all runs flannel's UDP backend (flannel pkg/subnet/config.go parseBackendType).
  const type = backend === undefined ? "udp" : get(backend, "Type");
  const at = "kubernetes.flannel";
  if (type !== "vxlan")
    return [
      {
        path: at,
        message: `the cluster's flannel runs the '${String(type)}' backend; Windows nodes joined by this stack need 'vxlan' (win-overlay), and switching backends re-networks every Linux node, so this stack never does it. Move the cluster to vxlan first (flannel Documentation/backends.md), or join Windows nodes to a cluster built with vxlan`,
      },
    ];
  const issues: ConfigIssue[] = [];
  for (const option of ["DirectRouting", "GBP"] as const)
    if (get(backend, option) === true)
      issues.push({
        path: at,
        message: `the cluster's flannel VXLAN backend has ${option}: true, which Windows flanneld refuses (vxlan_windows.go: "${option} is not supported on Windows"); turning it off changes every Linux node's routing, so this stack leaves that to you: remove ${option} from kube-flannel/kube-flannel-cfg's net-conf.json and restart kube-flannel-ds`,
      });
  const mac = get(backend, "MacPrefix");
  if (mac !== undefined && (typeof mac !== "string" || !FLANNEL_WINDOWS_MAC_PREFIX.test(mac)))
    issues.push({
      path: at,
      message: `the cluster's flannel VXLAN backend has MacPrefix ${JSON.stringify(mac)}, which Windows flanneld refuses (vxlan_windows.go: the format xx-xx, e.g. 0E-2A); fix it in kube-flannel/kube-flannel-cfg's net-conf.json`,
    });
  return issues;
}

/** The VXLAN settings a net-conf.json runs with on Linux (vxlan.go's defaults where it is silent). */
export function runningVxlan(current: Record<string, unknown>): VxlanBackend {
  const backend = get(current, "Backend");
  const vni = get(backend, "VNI");
  const port = get(backend, "Port");
  return {
    vni: typeof vni === "number" && vni > 0 ? vni : FLANNEL_LINUX_DEFAULTS.vni,
    port: typeof port === "number" && port > 0 ? port : FLANNEL_LINUX_DEFAULTS.port,
  };
}

/** net-conf.json as this stack holds it, and whether that changes what the cluster's flanneld runs. */
interface NetConfPlan {
  /** The whole file: the cluster's own settings kept, the VXLAN VNI and port Windows needs. */
  text: string;
  /** Set when the backend changes under running Linux flanneld: from what, to what. */
  change?: { from: VxlanBackend; to: VxlanBackend };
}

/**
 * The net-conf.json to hold: the cluster's current file with only the VXLAN VNI and port set. Its text is the same
 * on every run once applied (key order kept), so the patch stays declared and unchanged: dropping it would make
 * pulumi-kubernetes relinquish the field, and server-side apply removes a field nobody owns.
 */
export function planNetConf(current: Record<string, unknown>, want: VxlanBackend): NetConfPlan {
  const backend = get(current, "Backend");
  const b = isObject(backend) ? backend : {};
  const text =
    JSON.stringify({ ...current, Backend: { ...b, Type: "vxlan", VNI: want.vni, Port: want.port } }, null, 2) + "\n";
  const from = runningVxlan(current);
  return from.vni === want.vni && from.port === want.port ? { text } : { text, change: { from, to: want } };
}

/**
 * What the preview says when the backend changes on a live cluster. Linux flanneld reads net-conf.json only when it
 * starts (flannel pkg/subnet/kube/kube.go `NewSubnetManager` reads the file once), so this stack restarts kube-flannel-ds after the patch; its pods
 * roll one node at a time, and until every node runs the new VNI, pods on restarted and not yet restarted nodes cannot
 * reach each other. The old device (`flannel.<old VNI>`, vxlan.go) stays until the node restarts.
 */
export function netConfChangeWarning(change: NonNullable<NetConfPlan["change"]>, linuxNodes?: number): string {
  const nodes =
    linuxNodes === undefined ? "every Linux node" : `${linuxNodes} Linux node${linuxNodes === 1 ? "" : "s"}`;
  return `flannel's VXLAN backend changes from VNI ${change.from.vni} / port ${change.from.port} to VNI ${change.to.vni} / port ${change.to.port}, which Windows needs: kube-flannel-ds restarts on ${nodes}, one at a time, and until the roll finishes pods on nodes with different VNIs cannot reach each other. Run this in a maintenance window, or give the cluster VNI ${change.to.vni} and port ${change.to.port} when you create it; each Linux node keeps its old flannel.${change.from.vni} device until it restarts`;
}
