/**
 * The vanilla upgrade slots: `maxUnavailable` Leases in kube-system (providers/day2/leases.ts takes them), one per node
 * out of service for its upgrade, and who holds them. Pure: the provider reads the Leases and Nodes and asks here.
 */
import { slotFree, Unleased } from "../day2/leases";
import { holderIdentity, holderStack } from "../day2/day2-lock";
import { UPGRADING_TO_ANNOTATION } from "../../facts/day2";
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

/** The node a slot holder names (either of slotHolder's forms), or undefined for a holder that is not a node's. */
export function slotNode(holder: string): string | undefined {
  const prefix = slotHolder(holderStack(holder), "");
  return holder.startsWith(prefix) && holder.length > prefix.length ? holder.slice(prefix.length) : undefined;
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

/**
 * The nodes out of service for an upgrade that holds no slot now: marked upgrading-to (an upgrade begun and not
 * finished: a run failed on it) while no slot live at `nowMs` names them, other than `self`. Each still counts against
 * `maxUnavailable`, so each takes one of the free slots from whoever asks (leases.ts `unleased`), until its stack's
 * next up takes a slot back and finishes it. Each is named as a slot holder without a stack (slotNode reads it), and
 * its text says what to do if no stack ever finishes it.
 */
export function unleasedUpgrades(
  nodes: readonly { name: string; annotations: Record<string, string> }[],
  leaseList: unknown,
  self: string,
  nowMs: number,
): Unleased[] {
  const leased = new Set(liveSlots(leaseList, nowMs).map((l) => slotNode(str(get(l, "spec", "holderIdentity")) ?? "")));
  return nodes
    .filter((n) => n.name !== self && n.annotations[UPGRADING_TO_ANNOTATION] !== undefined && !leased.has(n.name))
    .map((n) => ({
      holder: slotHolder(undefined, n.name),
      text: `node ${n.name} (out of service: its upgrade to ${n.annotations[UPGRADING_TO_ANNOTATION]} was begun and not finished; its stack's next up finishes it, or, if no stack manages it any more, uncordon it and remove its ${UPGRADING_TO_ANNOTATION} annotation)`,
    }));
}
