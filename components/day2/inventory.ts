/**
 * The stack output `windowsNodeInventory`: every Windows node with its Windows Server version, build, update revision,
 * kubelet and container runtime versions, where it comes from, and its patch level against the declared minimum.
 * Read from the Node objects at preview/up (the kubelet reports the registry's build and UBR: pkg/kubelet/winstats);
 * offline (synth), the hosts the stack declares, with what only the cluster can say marked unknown. Pure.
 */
import type { DiscoveredNode } from "../../stacks/load";
import { belowMinimum, MinimumRevisions, patchLevel } from "../../providers/day2/patch-plan";
import { versionOfBuild } from "../../facts/wmco";

/** What synth shows where only the cluster can answer. */
export const UNKNOWN_UNTIL_PREVIEW = "<unknown: read from the cluster at preview/up>";

export interface InventoryEntry {
  node: string;
  /** `MachineSet <name>`, `BYOH <address>`, `vanilla <address>` or `other`. */
  from: string;
  windowsServer?: string;
  build?: string;
  revision?: number | string;
  osImage?: string;
  kubeletVersion?: string;
  containerRuntimeVersion?: string;
  unschedulable?: boolean;
  /** `ok`, `below: <why>`, `no minimum declared for build <b>`, or unknown. */
  patchLevel: string;
}

export function windowsNodeInventory(
  nodes: readonly DiscoveredNode[],
  minimum: MinimumRevisions | undefined,
): InventoryEntry[] {
  return nodes.map((n) => {
    const level = patchLevel(n.kernelVersion);
    const below = minimum ? belowMinimum(n.kernelVersion, minimum) : undefined;
    const status = !level
      ? "unknown (the kubelet reports no Windows kernelVersion)"
      : below
        ? `below: ${below}`
        : minimum && minimum[level.build] !== undefined
          ? "ok"
          : `no minimum declared for build ${level.build}`;
    return {
      node: n.name,
      from: n.from,
      ...(level
        ? { windowsServer: versionOfBuild(level.build) ?? "unknown", build: level.build, revision: level.revision }
        : {}),
      ...(n.osImage ? { osImage: n.osImage } : {}),
      ...(n.kubeletVersion ? { kubeletVersion: n.kubeletVersion } : {}),
      ...(n.containerRuntimeVersion ? { containerRuntimeVersion: n.containerRuntimeVersion } : {}),
      ...(n.unschedulable !== undefined ? { unschedulable: n.unschedulable } : {}),
      patchLevel: status,
    };
  });
}

/**
 * Offline: one entry per host the stack declares (BYOH hosts, vanilla nodes) or per MachineSet (its nodes do not exist
 * before the cluster makes them), with the build the config implies and the cluster's answers unknown.
 */
export function declaredInventory(
  hosts: readonly { from: string; windowsServer: string; build?: string; node?: string }[],
): InventoryEntry[] {
  return hosts.map((h) => ({
    node: h.node ?? UNKNOWN_UNTIL_PREVIEW,
    from: h.from,
    windowsServer: h.windowsServer,
    ...(h.build ? { build: h.build } : {}),
    revision: UNKNOWN_UNTIL_PREVIEW,
    kubeletVersion: UNKNOWN_UNTIL_PREVIEW,
    containerRuntimeVersion: UNKNOWN_UNTIL_PREVIEW,
    patchLevel: UNKNOWN_UNTIL_PREVIEW,
  }));
}
