/**
 * The Windows nodes of a cluster as day-2 operations need them, read from the API objects (`kubernetes.io/os=windows`
 * Nodes, the Machines that made them): name, the address WMCO itself uses, Windows build, where the node came from,
 * WMCO's host-key pin and our own progress records. Pure: it parses what the API returned.
 */
import { isIPv6 } from "net";
import { get, objects, str, stringMap } from "../../lib/json";
import { BYOH_NODE_LABEL, WINDOWS_BUILD_LABEL } from "../../facts/wmco";
import {
  MACHINE_ANNOTATION,
  MACHINESET_LABEL,
  REBOOTED_FOR_ANNOTATION,
  WMCO_HOST_KEY_ANNOTATION,
  WMCO_HOST_KEY_TYPE_ANNOTATION,
  WMCO_REBOOT_ANNOTATION,
  WMCO_UPGRADING_LABEL,
} from "../../facts/day2";

export type NodeSource = { kind: "MachineSet"; name: string } | { kind: "BYOH"; address: string } | { kind: "other" };

export interface WindowsNode {
  name: string;
  /** The first InternalIP or InternalDNS that is not IPv6, as WMCO picks it (controllers/controllers.go `GetAddress`). */
  address?: string;
  /** `node.kubernetes.io/windows-build` (`10.0.20348`). */
  build?: string;
  /** `status.nodeInfo.kernelVersion` (`10.0.20348.2700`: build and update revision). */
  kernelVersion?: string;
  /** `status.nodeInfo`: the OS product name, the kubelet's and the container runtime's versions. */
  osImage?: string;
  kubeletVersion?: string;
  containerRuntimeVersion?: string;
  source: NodeSource;
  /** WMCO's pin as an OpenSSH key line (`<type> <base64>`), from the Node's annotations. */
  wmcoHostKey?: string;
  unschedulable: boolean;
  /** The Machine it came from (`<namespace>/<name>`), from the Machine API's Node annotation. */
  machine?: string;
  /** Our record of the token this node was last rebooted for (a digest). */
  rebootedFor?: string;
  /** Why WMCO is working on this node right now (its reboot annotation, its upgrade label), if it is. */
  wmcoBusy?: string;
  labels: Record<string, string>;
}

/** WMCO's address choice: first InternalIP/InternalDNS that is not an IPv6 address. */
export function nodeAddress(node: unknown): string | undefined {
  for (const a of objects(get(node, "status", "addresses"))) {
    const type = str(a.type);
    const address = str(a.address);
    if ((type === "InternalIP" || type === "InternalDNS") && address && !isIPv6(address)) return address;
  }
  return undefined;
}

/** The host key WMCO pinned on the Node, as a key line; undefined when it pinned none (WMCO before 4.20). */
export function wmcoHostKey(annotations: Record<string, string>): string | undefined {
  const key = annotations[WMCO_HOST_KEY_ANNOTATION];
  const type = annotations[WMCO_HOST_KEY_TYPE_ANNOTATION];
  if (!key) return undefined;
  // The annotation is the key's wire format in base64, whose own first field is its type; the type annotation
  // must agree with it.
  const blob = Buffer.from(key, "base64");
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const inner = blob.subarray(4, 4 + len).toString("latin1");
  if (!inner || (type && type !== inner)) return undefined;
  return `${inner} ${key}`;
}

/** Reads the inventory from a NodeList, the Machines of the cluster (optional) and the BYOH addresses declared. */
export function windowsNodes(nodeList: unknown, machineList: unknown, byohAddresses: readonly string[]): WindowsNode[] {
  const machineSetOf = new Map<string, string>();
  for (const m of objects(get(machineList, "items"))) {
    const ns = str(get(m, "metadata", "namespace")) ?? "";
    const name = str(get(m, "metadata", "name"));
    const set = stringMap(get(m, "metadata", "labels"))[MACHINESET_LABEL];
    if (name && set) machineSetOf.set(`${ns}/${name}`, set);
  }
  const byoh = new Set(byohAddresses.map((a) => a.toLowerCase()));
  const out: WindowsNode[] = [];
  for (const n of objects(get(nodeList, "items"))) {
    const name = str(get(n, "metadata", "name"));
    if (!name) continue;
    const labels = stringMap(get(n, "metadata", "labels"));
    const annotations = stringMap(get(n, "metadata", "annotations"));
    const addresses = objects(get(n, "status", "addresses")).flatMap((a) => str(a.address) ?? []);
    const machine = annotations[MACHINE_ANNOTATION];
    let source: NodeSource = { kind: "other" };
    if (machine && machineSetOf.has(machine)) source = { kind: "MachineSet", name: machineSetOf.get(machine) ?? "" };
    else if (labels[BYOH_NODE_LABEL] === "true") {
      const declared = addresses.find((a) => byoh.has(a.toLowerCase()));
      source = { kind: "BYOH", address: declared ?? nodeAddress(n) ?? name };
    }
    const busy =
      annotations[WMCO_REBOOT_ANNOTATION] !== undefined
        ? "WMCO has a reboot pending on it (reboot-required annotation)"
        : labels[WMCO_UPGRADING_LABEL] === "true"
          ? "WMCO is upgrading it (upgrading label)"
          : undefined;
    out.push({
      name,
      address: nodeAddress(n),
      build: labels[WINDOWS_BUILD_LABEL],
      kernelVersion: str(get(n, "status", "nodeInfo", "kernelVersion")),
      osImage: str(get(n, "status", "nodeInfo", "osImage")),
      kubeletVersion: str(get(n, "status", "nodeInfo", "kubeletVersion")),
      containerRuntimeVersion: str(get(n, "status", "nodeInfo", "containerRuntimeVersion")),
      source,
      wmcoHostKey: wmcoHostKey(annotations),
      unschedulable: get(n, "spec", "unschedulable") === true,
      ...(machine ? { machine } : {}),
      rebootedFor: annotations[REBOOTED_FOR_ANNOTATION],
      wmcoBusy: busy,
      labels,
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The Node's Ready condition: status and last heartbeat. */
export function readyCondition(node: unknown): { status?: string; heartbeat?: string } {
  const c = objects(get(node, "status", "conditions")).find((x) => str(x.type) === "Ready");
  return { status: str(c?.status), heartbeat: str(c?.lastHeartbeatTime) };
}

/** The kubelet-reported fields of a node that are set, for the stack's inventory. */
export function nodeInfoOf(n: WindowsNode): {
  kernelVersion?: string;
  osImage?: string;
  kubeletVersion?: string;
  containerRuntimeVersion?: string;
  unschedulable: boolean;
} {
  return {
    ...(n.kernelVersion ? { kernelVersion: n.kernelVersion } : {}),
    ...(n.osImage ? { osImage: n.osImage } : {}),
    ...(n.kubeletVersion ? { kubeletVersion: n.kubeletVersion } : {}),
    ...(n.containerRuntimeVersion ? { containerRuntimeVersion: n.containerRuntimeVersion } : {}),
    unschedulable: n.unschedulable,
  };
}
