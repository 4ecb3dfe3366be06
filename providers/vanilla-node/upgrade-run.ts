/**
 * The upgrades of one `pulumi up`, as its dynamic-provider process sees them: which nodes of a stack hold an upgrade
 * slot now, and which of them failed while out of service. The engine converges a stack's VanillaNodes at once in one
 * process (the host loads each provider once: providers/host-loader.js), so this module's state is that run's; a
 * later `up` is a new process and starts with none.
 *
 * Why it exists: a node whose upgrade fails stays cordoned, marked upgrading-to, and keeps its slot (renewed while the
 * run lasts), so with `maxUnavailable` 1 a sibling waiting for that slot would wait its whole `waitMinutes` and the run
 * would hang on it. Instead a sibling that finds every slot held by such nodes gives up at once, naming them, with
 * nothing changed on it. One that finds a free slot goes on (within `maxUnavailable`, as the engine lets an operation
 * already under way finish after another failed), and one waiting for a healthy holder's slot keeps waiting.
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

/** The converge at `target` failed; if its node held a slot, it stays out of service and the stack's rollout stops. */
export function convergeFailed(stack: string | undefined, target: string): void {
  const r = run(stack);
  const node = r.inSlot.get(target);
  if (node === undefined) return;
  r.inSlot.delete(target);
  r.failed.set(target, node);
}

/**
 * Why node `node` (at `target`), waiting for an upgrade slot, should stop waiting: every slot is held by a node of this
 * stack whose upgrade failed in this run (`holders`: the nodes holding them, undefined for a holder that is not one
 * of ours), and those keep their slots until the run ends. Undefined while any slot is held by someone else, who may
 * still free it.
 */
export function rolloutStopped(
  stack: string | undefined,
  target: string,
  node: string,
  holders: readonly (string | undefined)[],
): string | undefined {
  const failed = new Set([...run(stack).failed].filter(([t]) => t !== target).map(([, n]) => n));
  if (holders.length === 0 || !holders.every((h) => h !== undefined && failed.has(h))) return undefined;
  const names = [...new Set(holders)].join(", node ");
  return `node ${node}: not taken out of service: every upgrade slot is held by a node whose upgrade failed in this run (node ${names}: its error says why), which stays cordoned and keeps its slot until this run ends. Nothing was changed on ${node}; once that node is fixed, run pulumi up again: it finishes that upgrade first, then this one`;
}
