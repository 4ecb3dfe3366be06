/**
 * The Windows nodes of a cluster as day-2 operations need them, read from the API objects (`kubernetes.io/os=windows`
 * Nodes, the Machines that made them): name, the address WMCO itself uses, Windows build, where the node came from,
 * WMCO's host-key pin and our own progress records. Pure: it decodes what the API returned (`decodeNodes`, the one
 * reader of Node objects, for discovery at preview/up and for the day-2 providers) and reads fields, not paths.
 */
import { isIPv6 } from "net";
import { z } from "zod";
import { anyText, fields, itemsOf, listOf, stringMap, text } from "../../lib/decode";
import { BYOH_NODE_LABEL, MACHINE_API_NAMESPACE, WINDOWS_BUILD_LABEL } from "../../facts/wmco";
import {
  MACHINE_ANNOTATION,
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

/**
 * A core/v1 Node as the inventory and the checks read it: its name (a Node without one is no Node and is dropped), labels
 * and annotations, `spec.unschedulable`, `status.addresses` (those with an address), `status.nodeInfo` and its Ready
 * condition. A field of another type reads as absent (lib/decode.ts).
 */
const node = fields({
  metadata: fields({ name: text, labels: stringMap, annotations: stringMap }),
  spec: fields({ unschedulable: z.boolean().optional().catch(undefined) }),
  status: fields({
    addresses: listOf(z.object({ type: anyText, address: text })),
    nodeInfo: fields({ kernelVersion: text, osImage: text, kubeletVersion: text, containerRuntimeVersion: text }),
    conditions: listOf(z.object({ type: text, status: text, lastHeartbeatTime: text })),
  }),
}).transform(({ metadata, spec, status }) => {
  const ready = status.conditions.find((c) => c.type === "Ready");
  return {
    name: metadata.name,
    labels: metadata.labels,
    annotations: metadata.annotations,
    unschedulable: spec.unschedulable === true,
    addresses: status.addresses.flatMap((a) => (a.address ? [{ type: a.type ?? "", address: a.address }] : [])),
    nodeInfo: status.nodeInfo,
    ready: { status: ready?.status, heartbeat: ready?.lastHeartbeatTime },
  };
});
/** A Node as decoded: every field present, `name` absent when the object had none. */
export type NodeFields = z.output<typeof node>;
export type NodeObject = NodeFields & { name: string };

/** One Node from the API, decoded (what `readNode` answers). */
export const decodeNode = (o: unknown): NodeFields => node.parse(o);

/** The Nodes of a NodeList from the API, decoded (entries that are not Nodes with a name dropped). */
export function decodeNodes(list: unknown): NodeObject[] {
  return itemsOf(node)
    .parse(list)
    .items.flatMap((n) => (n.name ? [{ ...n, name: n.name }] : []));
}

/** WMCO's address choice: first InternalIP/InternalDNS that is not an IPv6 address. */
export function nodeAddress(n: Pick<NodeObject, "addresses">): string | undefined {
  return n.addresses.find((a) => (a.type === "InternalIP" || a.type === "InternalDNS") && !isIPv6(a.address))?.address;
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

/**
 * The inventory of decoded Nodes, the Machines of `openshift-machine-api` (optional; the Machine API's Node annotation
 * names `<namespace>/<name>`) and the BYOH addresses declared.
 */
export function windowsNodes(
  nodes: readonly NodeObject[],
  machines: readonly { name: string; machineSet: string }[] | undefined,
  byohAddresses: readonly string[],
): WindowsNode[] {
  const machineSetOf = new Map((machines ?? []).map((m) => [`${MACHINE_API_NAMESPACE}/${m.name}`, m.machineSet]));
  const byoh = new Set(byohAddresses.map((a) => a.toLowerCase()));
  const out = nodes.map((n): WindowsNode => {
    const { name, labels, annotations } = n;
    const machine = annotations[MACHINE_ANNOTATION];
    const set = machine ? machineSetOf.get(machine) : undefined;
    let source: NodeSource = { kind: "other" };
    if (set !== undefined) source = { kind: "MachineSet", name: set };
    else if (labels[BYOH_NODE_LABEL] === "true") {
      const declared = n.addresses.find((a) => byoh.has(a.address.toLowerCase()))?.address;
      source = { kind: "BYOH", address: declared ?? nodeAddress(n) ?? name };
    }
    return {
      name,
      address: nodeAddress(n),
      build: labels[WINDOWS_BUILD_LABEL],
      ...n.nodeInfo,
      source,
      wmcoHostKey: wmcoHostKey(annotations),
      unschedulable: n.unschedulable,
      ...(machine ? { machine } : {}),
      rebootedFor: annotations[REBOOTED_FOR_ANNOTATION],
      wmcoBusy: wmcoBusy(n),
      labels,
    };
  });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Why WMCO is working on this node right now (its reboot annotation, its upgrade label), if it is. */
export function wmcoBusy({ labels, annotations }: Pick<NodeFields, "labels" | "annotations">): string | undefined {
  if (annotations[WMCO_REBOOT_ANNOTATION] !== undefined)
    return "WMCO has a reboot pending on it (reboot-required annotation)";
  return labels[WMCO_UPGRADING_LABEL] === "true" ? "WMCO is upgrading it (upgrading label)" : undefined;
}

/** The kubelet-reported fields of a node that are set, for the stack's inventory. */
export function nodeInfoOf(n: WindowsNode): Pick<WindowsNode, keyof NodeFields["nodeInfo"] | "unschedulable"> {
  return {
    ...(n.kernelVersion ? { kernelVersion: n.kernelVersion } : {}),
    ...(n.osImage ? { osImage: n.osImage } : {}),
    ...(n.kubeletVersion ? { kubeletVersion: n.kubeletVersion } : {}),
    ...(n.containerRuntimeVersion ? { containerRuntimeVersion: n.containerRuntimeVersion } : {}),
    unschedulable: n.unschedulable,
  };
}
