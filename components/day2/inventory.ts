/**
 * The stack output `windowsNodeInventory`: every Windows node with its Windows Server version, build, update revision,
 * kubelet and container runtime versions, where it comes from, and its patch level against the declared minimum.
 * Read from the Node objects at preview/up (the kubelet reports the registry's build and UBR: pkg/kubelet/winstats);
 * offline (synth), the hosts the stack declares, with what only the cluster can say marked unknown. Pure.
 */
import type { DiscoveredNode, VanillaEstateConfig } from "../../stacks/load";
import { belowMinimum, MinimumRevisions, patchLevel } from "../../providers/day2/patch-plan";
import { versionOfBuild, WINDOWS_BUILD_LABEL, WindowsServer } from "../../facts/wmco";
import { buildRuntimeClass } from "../scheduling/runtime-class";
import type { RuntimeClassView } from "../cluster-objects";

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
  /** The RuntimeClasses (the cluster's and this stack's) whose node selector picks this node. */
  runtimeClasses?: string[];
}

/**
 * RuntimeClasses against the nodes (pods that name a RuntimeClass only land on nodes its selector picks: k8s
 * RuntimeClass `scheduling.nodeSelector`): which classes pick each node, and the mismatches worth saying: a Windows
 * node no class picks (workloads cannot target its build by RuntimeClass), and a class picking a Windows build no node
 * runs (workloads using it stay Pending, e.g. after a MachineSet moved to a new Windows Server version).
 */
export function runtimeClassFindings(
  nodes: readonly { name: string; labels: Record<string, string> }[],
  classes: readonly RuntimeClassView[],
): { perNode: Record<string, string[]>; warnings: string[] } {
  const picks = (c: RuntimeClassView, labels: Record<string, string>) =>
    Object.entries(c.nodeSelector).every(([k, v]) => labels[k] === v);
  const perNode: Record<string, string[]> = {};
  const warnings: string[] = [];
  for (const n of nodes) {
    perNode[n.name] = classes.filter((c) => picks(c, n.labels)).map((c) => c.name);
    if (perNode[n.name].length === 0 && n.labels[WINDOWS_BUILD_LABEL])
      warnings.push(
        `node ${n.name} (build ${n.labels[WINDOWS_BUILD_LABEL]}) is picked by no RuntimeClass: workloads cannot target its build by runtimeClassName`,
      );
  }
  for (const c of classes) {
    const build = c.nodeSelector[WINDOWS_BUILD_LABEL];
    if (build && nodes.length > 0 && !nodes.some((n) => picks(c, n.labels)))
      warnings.push(
        `RuntimeClass ${c.name} selects Windows build ${build}, which no Windows node here runs: pods using it stay Pending`,
      );
  }
  return { perNode, warnings };
}

export function windowsNodeInventory(
  nodes: readonly DiscoveredNode[],
  minimum: MinimumRevisions | undefined,
  runtimeClasses?: Record<string, string[]>,
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
      ...(runtimeClasses ? { runtimeClasses: runtimeClasses[n.name] ?? [] } : {}),
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

/**
 * A stack's inventory. At preview/up: the discovered nodes, their patch level, and the RuntimeClasses that pick each
 * (the cluster's, and the ones this stack declares for the Windows Server versions it runs), with the mismatches found.
 * Offline (no nodes discovered): the hosts the stack declares.
 */
export function stackInventory(
  cfg: Pick<VanillaEstateConfig, "discovered" | "patching">,
  declaredVersions: readonly WindowsServer[],
  declared: Parameters<typeof declaredInventory>[0],
): { entries: InventoryEntry[]; warnings: string[] } {
  const nodes = cfg.discovered?.windowsNodes;
  if (!nodes) return { entries: declaredInventory(declared), warnings: [] };
  const ours = [...new Set(declaredVersions)].map((v) => buildRuntimeClass(v));
  const classes = [
    ...(cfg.discovered?.runtimeClasses ?? []).filter((c) => !ours.some((o) => o.metadata.name === c.name)),
    ...ours.map((o) => ({ name: o.metadata.name, nodeSelector: o.scheduling.nodeSelector })),
  ];
  const findings = runtimeClassFindings(nodes, classes);
  const entries = windowsNodeInventory(nodes, cfg.patching?.minimumUpdateRevision, findings.perNode);
  return { entries, warnings: findings.warnings };
}
