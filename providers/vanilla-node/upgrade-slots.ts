/**
 * The vanilla upgrade slots: `maxUnavailable` Leases in kube-system (providers/day2/leases.ts takes them), one per node
 * out of service for its upgrade, and who holds them. Pure: the provider reads the Leases and Nodes and asks here.
 */
import { slotFree } from "../day2/leases";
import { holderIdentity } from "../day2/day2-lock";
import { get, objects, str } from "../../lib/json";

/** The upgrade slots' Lease names (`<prefix>-<k>` in kube-system) and how long one outlives a holder that stopped. */
export const UPGRADE_SLOT_PREFIX = "windows-estate-upgrade";
export const UPGRADE_SLOT_SECONDS = 300;

/** The slots' Lease names for `maxUnavailable`. */
export const slotNames = (maxUnavailable: number) =>
  Array.from({ length: maxUnavailable }, (_, k) => `${UPGRADE_SLOT_PREFIX}-${k}`);

/** An upgrade slot's holder: the stack's day-2 lock holder and the node (the node alone without a stack). */
export function slotHolder(stack: string | undefined, node: string): string {
  return stack ? `${holderIdentity({ stack, job: "vanilla upgrade" })} node=${node}` : `windows-estate node ${node}`;
}

/** The node a slot holder names (slotHolder's two forms), or undefined for a holder that is not a node's. */
export function slotNode(holder: string): string | undefined {
  return /^windows-estate (?:stack=\S+ job=vanilla upgrade )?node[= ](\S+)$/.exec(holder)?.[1];
}

/** The slot Leases of a LeaseList held now (unexpired, with a holder), at `nowMs`. */
function liveSlots(leaseList: unknown, nowMs: number): unknown[] {
  return objects(get(leaseList, "items")).filter(
    (l) => (str(get(l, "metadata", "name")) ?? "").startsWith(`${UPGRADE_SLOT_PREFIX}-`) && !slotFree(l, "", nowMs),
  );
}

/** Whether one of stack `stack`'s nodes holds a slot now (LeaseList `leaseList` of kube-system). */
export function stackHoldsSlot(leaseList: unknown, stack: string, nowMs: number): boolean {
  const mine = slotHolder(stack, "");
  return liveSlots(leaseList, nowMs).some((l) => (str(get(l, "spec", "holderIdentity")) ?? "").startsWith(mine));
}

/** A node out of service for an upgrade without a slot, and how the wait names it. */
export interface Unleased {
  node: string;
  text: string;
}

/**
 * The nodes out of service for an upgrade that holds no slot now: marked `upgradingTo` (an upgrade begun and not
 * finished: a run failed on it) while no slot live at `nowMs` names them, other than `self`. Each still counts against
 * `maxUnavailable`, so each takes one of the free slots from whoever asks (leases.ts `unleased`), until its stack's
 * next up takes a slot back and finishes it; the text says so, and what to do if no stack ever will.
 */
export function unleasedUpgrades(
  nodes: readonly { name: string; annotations: Record<string, string> }[],
  leaseList: unknown,
  upgradingTo: string,
  self: string,
  nowMs: number,
): Unleased[] {
  const leased = new Set(liveSlots(leaseList, nowMs).map((l) => slotNode(str(get(l, "spec", "holderIdentity")) ?? "")));
  return nodes
    .filter((n) => n.name !== self && n.annotations[upgradingTo] !== undefined && !leased.has(n.name))
    .map((n) => ({
      node: n.name,
      text: `node ${n.name} (out of service: its upgrade to ${n.annotations[upgradingTo]} was begun and not finished; its stack's next up finishes it, or, if no stack manages it any more, uncordon it and remove its ${upgradingTo} annotation)`,
    }));
}
