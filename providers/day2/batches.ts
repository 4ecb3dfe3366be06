/**
 * Rolling operations over Windows nodes in batches of `maxUnavailable` (WMCO changes one node at a time:
 * `MaxParallelUpgrades = 1`). Nodes already done for this token are not touched again, so a run that stopped on a
 * failure resumes where it stopped. Pure.
 */
import { createHash } from "crypto";

/** The token as it is recorded on Nodes: a short digest (any string may be a token; annotations stay small). */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 16);
}

export interface RolloutNode {
  name: string;
  /** The token this node was last rebooted (or patched) for; equal to the wanted token when it is done. */
  doneFor?: string;
}

export interface RolloutPlan {
  batches: string[][];
  /** Nodes that were already done for this token. */
  skipped: string[];
}

export function planRollout(nodes: readonly RolloutNode[], token: string, maxUnavailable: number): RolloutPlan {
  if (!Number.isInteger(maxUnavailable) || maxUnavailable < 1)
    throw new Error(`maxUnavailable must be a whole number of at least 1, not ${maxUnavailable}`);
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const todo = sorted.filter((n) => n.doneFor !== token).map((n) => n.name);
  const batches: string[][] = [];
  for (let i = 0; i < todo.length; i += maxUnavailable) batches.push(todo.slice(i, i + maxUnavailable));
  return { batches, skipped: sorted.filter((n) => n.doneFor === token).map((n) => n.name) };
}

/** What preview says: which nodes in which batches. */
export function describeRollout(plan: RolloutPlan): string {
  if (plan.batches.length === 0)
    return `nothing to do${plan.skipped.length ? ` (${plan.skipped.length} node(s) already done)` : ""}`;
  const lines = plan.batches.map((b, i) => `batch ${i + 1}/${plan.batches.length}: ${b.join(", ")}`);
  if (plan.skipped.length) lines.push(`already done: ${plan.skipped.join(", ")}`);
  return lines.join("\n");
}
