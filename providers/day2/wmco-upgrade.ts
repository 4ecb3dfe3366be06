/**
 * A WMCO upgrade in progress, as the Nodes show it. When a new WMCO version starts, every Windows node configured by an
 * older one is deconfigured (cordoned, drained, WMCO's services removed) and configured again in place
 * (controllers/controllers.go `ensureInstanceIsUpToDate`: `UpgradeRequired` → `markNodeAsUpgrading` → `Deconfigure`
 * → `Configure`), one node at a time (`MaxParallelUpgrades` = 1, release-4.18 to master). The node being rebuilt
 * carries `windowsmachineconfig.openshift.io/upgrading=true` (pkg/metadata/metadata.go `UpgradingLabel`) until its
 * configuration completes (pkg/nodeconfig/nodeconfig.go removes it). Our own reboots, patching and Machine rollouts
 * would take further nodes out while WMCO works through them, so they do not start. Pure.
 */
import { WMCO_UPGRADING_LABEL } from "../../facts/day2";

/** A Windows node as far as this check needs it. */
export interface LabelledNode {
  name: string;
  labels: Record<string, string>;
}

/** The Windows nodes WMCO is upgrading now, by name (WMCO sets the label's value to "true"). */
export function wmcoUpgradingNodes(nodes: readonly LabelledNode[]): string[] {
  return nodes
    .filter((n) => n.labels[WMCO_UPGRADING_LABEL] === "true")
    .map((n) => n.name)
    .sort();
}

/** What preview/up says while WMCO is upgrading nodes; undefined when it is not. */
export function wmcoUpgradeNotice(nodes: readonly LabelledNode[]): string | undefined {
  const upgrading = wmcoUpgradingNodes(nodes);
  if (upgrading.length === 0) return undefined;
  return `WMCO is upgrading Windows nodes (${upgrading.join(", ")} labelled ${WMCO_UPGRADING_LABEL}=true): it drains and reconfigures every Windows node, one at a time; rolling reboots, patching and Machine rollouts will not start until no node carries the label`;
}

/**
 * Why an operation of ours must not start now (`operation` names it: "rolling reboot", "patching", …); undefined when
 * no Windows node is being upgraded by WMCO.
 */
export function wmcoUpgradeRefusal(nodes: readonly LabelledNode[], operation: string): string | undefined {
  const upgrading = wmcoUpgradingNodes(nodes);
  if (upgrading.length === 0) return undefined;
  return `the ${operation} did not start; nothing was changed: WMCO is upgrading Windows nodes (${upgrading.map((n) => `node ${n}`).join(", ")}); run again when no node carries ${WMCO_UPGRADING_LABEL}`;
}
