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

/**
 * `maxUnavailable` as a count of nodes: a number as given, a percentage of `total` rounded down and at least 1, as a
 * Deployment resolves its own (kubernetes pkg/controller/deployment/util/deployment_util.go `ResolveFenceposts`:
 * intstr `GetScaledValueFromIntOrPercent` rounding down for maxUnavailable, and 1 when both fenceposts would be 0).
 */
export function resolveMaxUnavailable(value: number | string, total: number): number {
  if (typeof value === "number") return value;
  const pct = Number(value.replace(/%$/, ""));
  return Math.max(1, Math.floor((total * pct) / 100));
}

/** A Windows node as the next batch's choice sees it, read from the API just before the batch. */
export interface NodeAvailability {
  name: string;
  ready: boolean;
  unschedulable: boolean;
  /** Why WMCO is working on it now, if it is. */
  wmcoBusy?: string;
}

/**
 * The next batch: nodes from the front of the queue, as many as fit. A node that is NotReady, cordoned, or being
 * changed by WMCO is out of service whether or not we took it out, and counts against `allowed` (as a Deployment's
 * maxUnavailable counts pods that are unavailable for any reason); while there are two or more Windows nodes, one
 * always keeps serving (the Machine rollout's rule). A queued node WMCO is working on is never taken. When nothing
 * fits, `waitFor` says why. Pure.
 */
export function nextBatch(
  queue: readonly string[],
  cluster: readonly NodeAvailability[],
  allowed: number,
): { take: string[]; waitFor?: string } {
  const byName = new Map(cluster.map((n) => [n.name, n]));
  const outNow = cluster.filter((n) => !n.ready || n.unschedulable || n.wmcoBusy);
  const out = new Set(outNow.map((n) => n.name));
  const take: string[] = [];
  const why = (n: NodeAvailability) =>
    n.wmcoBusy ? n.wmcoBusy : !n.ready ? "NotReady" : n.unschedulable ? "cordoned" : "";
  for (const name of queue) {
    const node = byName.get(name);
    if (node?.wmcoBusy) {
      if (take.length === 0) return { take, waitFor: `node ${name}: ${node.wmcoBusy}` };
      break;
    }
    const after = new Set([...out, ...take, name]);
    if (after.size > allowed) {
      if (take.length === 0)
        return {
          take,
          waitFor: `${outNow.length} Windows node(s) already out of service (${outNow.map((n) => `${n.name}: ${why(n)}`).join(", ")}) and maxUnavailable is ${allowed}`,
        };
      break;
    }
    if (cluster.length >= 2 && cluster.every((n) => after.has(n.name))) {
      if (take.length === 0)
        return {
          take,
          waitFor: `taking ${name} out would leave no Windows node serving (${outNow.map((n) => `${n.name}: ${why(n)}`).join(", ") || "every other node is in this batch"})`,
        };
      break;
    }
    take.push(name);
  }
  return { take };
}
