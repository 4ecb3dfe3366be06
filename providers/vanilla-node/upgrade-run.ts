/**
 * The upgrades of one `pulumi up`, as its dynamic-provider process sees them: which nodes of a stack hold an upgrade
 * slot now, and which failed. The engine converges a stack's VanillaNodes at once in one process (the host loads each
 * provider once: providers/host-loader.js), so this module's state is that run's; a later `up` is a new process and
 * starts with none.
 *
 * Why it exists: a node whose upgrade fails stays cordoned, marked upgrading-to, and keeps its slot (renewed while the
 * run lasts), so with `maxUnavailable` 1 a sibling waiting for that slot would wait its whole `waitMinutes` and the run
 * would hang on it. The same goes for a node a failed run left unfinished, which counts as out of service without a
 * slot (upgrade-slots.ts `unleasedUpgrades`), when it fails again in this run before taking one. So a sibling that
 * finds every slot held by nodes that failed in this run gives up at once, naming them, left in service. One that
 * finds a free slot goes on (within `maxUnavailable`, as the engine lets an operation already under way finish after
 * another failed), and one waiting for a slot any healthy holder may free keeps waiting.
 */

/** Per stack ("" without one): the nodes in a slot now and the failed ones, by the host they were reached at. */
const runs = new Map<string, { inSlot: Map<string, string>; failed: Map<string, string> }>();

function run(stack: string | undefined) {
  const key = stack ?? "";
  let r = runs.get(key);
  if (!r) runs.set(key, (r = { inSlot: new Map(), failed: new Map() }));
  return r;
}

/** Node `node` (reached at `target`) took its upgrade slot: it is out of service until `upgradeEnded`. */
export function upgradeBegan(stack: string | undefined, target: string, node: string): void {
  const r = run(stack);
  r.failed.delete(target); // taken back by a run that finishes it
  r.inSlot.set(target, node);
}

/** The upgrade at `target` is finished: its node is back in service and its slot released. */
export function upgradeEnded(stack: string | undefined, target: string): void {
  run(stack).inSlot.delete(target);
}

/**
 * The converge at `target` failed: its node (the one in a slot, else `node`, its registered name when known) will not
 * finish an upgrade nor free a slot in this run.
 */
export function convergeFailed(stack: string | undefined, target: string, node: string | undefined): void {
  const r = run(stack);
  const name = r.inSlot.get(target) ?? node;
  r.inSlot.delete(target);
  if (name !== undefined) r.failed.set(target, name);
}

/**
 * Why node `node` (at `target`), waiting for an upgrade slot, should stop waiting: every slot is held by a node of this
 * stack that failed in this run (`holders`: the nodes holding them, with a Lease or without, undefined for a holder
 * that is not one of ours), so none comes free before the run ends. Undefined while any is held by someone else.
 */
export function rolloutStopped(
  stack: string | undefined,
  target: string,
  node: string,
  holders: readonly (string | undefined)[],
): string | undefined {
  const failed = new Set([...run(stack).failed].filter(([t]) => t !== target).map(([, n]) => n));
  if (holders.length === 0 || !holders.every((h) => h !== undefined && failed.has(h))) return undefined;
  const names = [...new Set(holders)];
  const which = names.length === 1 ? `node ${names[0]}, which failed` : `nodes ${names.join(", ")}, which failed`;
  return `node ${node}: left in service: every upgrade slot is taken by ${which} in this run (${names.length === 1 ? "its error says" : "their errors say"} why) and ${names.length === 1 ? "stays" : "stay"} out of service, so none comes free before this run ends. Once fixed, run pulumi up again: it finishes ${names.length === 1 ? "that upgrade" : "those upgrades"} first, then this one`;
}
