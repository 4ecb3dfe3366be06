/**
 * Machine rollouts with surge: the image update OpenShift documents for a MachineSet ("Modifying a compute machine
 * set by using the CLI": annotate the old Machines with `machine.openshift.io/delete-machine`, scale the set up so
 * Machines on the new template come up beside them, then scale back so the controller removes the annotated ones).
 * No Machine is lost before its replacement serves.
 *
 * Why the annotation decides which Machines go (openshift/machine-api-operator pkg/controller/machineset/):
 * - controller.go `syncReplicas` deletes `len(machines) - spec.replicas` Machines, chosen by
 *   delete_policy.go `getMachinesToDeletePrioritized` (highest priority first) with the set's `spec.deletePolicy`
 *   (`getDeletePriorityFunc`: Random when unset, Oldest, Newest).
 * - `DeleteNodeAnnotation` is "top priority on all delete policies": `oldestDeletePriority` and
 *   `newestDeletePriority` give an annotated Machine `mustDelete` (100); `randomDeletePolicy` gives it `betterDelete`
 *   (50) against `couldDelete` (20) for a healthy Machine with a Node and `preferDelete` (40) for one without.
 * - Ties: a Machine with `status.errorReason`/`errorMessage` ranks like an annotated one, and under Newest a Machine
 *   whose creationTimestamp is zero or ahead of the controller's clock also reaches 100 (`mustNotDelete` subtracted
 *   from `mustDelete`); the sort is not stable, so ties are arbitrary. This is why the scale-down waits until every
 *   new Machine is configured by WMCO (a failed one never is): then the annotated Machines outrank every other.
 * - controller.go `shouldExcludeMachine` leaves Machines with a deletionTimestamp out of the count, so Machines
 *   already going never make the controller delete one more.
 *
 * What a plain scale-down guarantees without the annotation: nothing about images. Random prefers Machines without a
 * Node and is otherwise arbitrary, Oldest/Newest go by age only, so scaling a half-rolled set down may remove a
 * Machine already on the new image and keep one on the old.
 *
 * Pure: every step is decided from the cluster as read now (annotations, replicas, Machines, Nodes), never from
 * memory, so a run that stopped anywhere is finished by the next one.
 */
import { MachineState, notServing } from "./machine-rollout-plan";

/** The cluster as one look at it shows a MachineSet being rolled. */
export interface SurgeView {
  /** The replicas the stack declares (`machineSets[].replicas`): what the set returns to. */
  declared: number;
  /** The MachineSet's `spec.replicas` now. */
  live: number;
  /** Its Machines (machinesOf). */
  machines: readonly MachineState[];
  /** The image its template boots (machineImage). */
  image: string;
  /** Machines whose Node is Ready and configured by WMCO (configuredByWmco). */
  configured: ReadonlySet<string>;
  /** Machines replaced per round; 0 or less: every Machine on the old image at once (OpenShift's doubling). */
  maxSurge: number;
}

export type SurgeStep =
  /** Nothing on the old image, nothing annotated, nothing of ours still being deleted. */
  | { action: "done" }
  /** Annotate these Machines (on the old image) with delete-machine. */
  | { action: "mark"; machines: string[] }
  /** Patch `spec.replicas`: up by the annotated count (`surge`), or back to the declared value (`restore`). */
  | { action: "scale"; replicas: number; reason: "surge" | "restore" }
  /** New Machines are still coming up: `have` of `want` configured; `waiting` names the others. */
  | { action: "wait-new"; have: number; want: number; waiting: string[] }
  /** Annotated Machines are being deleted (drained, VM and Node removed): wait until they are gone. */
  | { action: "wait-gone"; machines: string[] };

/** What to do next. The steps repeat until `done`: mark, surge, wait-new, restore, wait-gone, then the next round. */
export function surgeStep(v: SurgeView): SurgeStep {
  const active = v.machines.filter((m) => !m.deleting);
  const marked = active.filter((m) => m.marked).map((m) => m.name);
  const stale = active.filter((m) => !m.marked && m.image !== v.image).map((m) => m.name);
  const fresh = active.filter((m) => !m.marked && m.image === v.image);
  if (marked.length > 0) {
    // A round is under way. Scaled up is read from the set itself: the controller excludes nothing annotated from its
    // count, so the set needs `declared + marked` replicas for every marked Machine to have a replacement.
    const surged = v.declared + marked.length;
    if (v.live < surged) return { action: "scale", replicas: surged, reason: "surge" };
    // After the restore the set keeps `declared` unmarked Machines: those on the old image not in this round, and the
    // new ones, which must all serve first.
    const want = Math.max(0, v.declared - stale.length);
    const have = fresh.filter((m) => v.configured.has(m.name)).length;
    if (have < want)
      return {
        action: "wait-new",
        have,
        want,
        waiting: fresh.filter((m) => !v.configured.has(m.name)).map(notServing),
      };
    return { action: "scale", replicas: v.declared, reason: "restore" };
  }
  const going = v.machines.filter((m) => m.deleting && m.marked).map((m) => m.name);
  if (going.length > 0) return { action: "wait-gone", machines: going };
  if (stale.length > 0) return { action: "mark", machines: v.maxSurge > 0 ? stale.slice(0, v.maxSurge) : stale };
  return { action: "done" };
}

/** Whether a surge round is under way on a set: some Machine of it not yet deleting carries delete-machine. */
export function surgeUnderWay(machines: readonly Pick<MachineState, "deleting" | "marked">[]): boolean {
  return machines.some((m) => m.marked && !m.deleting);
}

/**
 * The `spec.replicas` the MachineSet object declares. Normally the stack's value; while a surge round is under way
 * (annotated Machines, the set scaled above the declared value), the live value, so that neither a `pulumi refresh`
 * (which records the surged replicas as drift) nor any other edit of the MachineSet applies the declared value in
 * the middle of the round. That would be a scale-down before the new Machines serve: the controller would delete the
 * annotated Machines at once, exactly the capacity loss surge exists to avoid. The rollout restores the declared
 * value when the round ends.
 */
export function declaredReplicas(
  configured: number,
  live: number | undefined,
  machines: readonly Pick<MachineState, "deleting" | "marked">[],
): number {
  if (live !== undefined && live > configured && surgeUnderWay(machines)) return live;
  return configured;
}
