/**
 * Which Machines of a Windows MachineSet still run an older image than the set's template, and how the replacement
 * proceeds (day2-facts §3.5: a MachineSet edit "will not affect existing Machines"; replace them one batch at a time).
 * Pure: reads API objects as JSON, Nodes as decoded (inventory.ts).
 */
import { get, objects, str, stringMap } from "../../lib/json";
import { DELETE_MACHINE_ANNOTATION, MACHINESET_LABEL, OLD_DELETE_MACHINE_ANNOTATION } from "../../facts/day2";
import { WMCO_DESIRED_VERSION_ANNOTATION, WMCO_VERSION_ANNOTATION } from "../../facts/day2";
import type { NodeFields } from "./inventory";

/**
 * The image a providerSpec boots, by platform (machine-api providerSpec types in openshift/api): AWS `ami`, Azure and
 * Nutanix `image`, vSphere `template`, GCP the boot disk's `image`. One canonical string, compared as a whole.
 */
export function machineImage(providerSpecValue: unknown): string {
  const disks = objects(get(providerSpecValue, "disks"));
  const boot = disks.find((d) => get(d, "boot") === true) ?? disks[0];
  return JSON.stringify(
    canonical({
      ami: get(providerSpecValue, "ami") ?? null,
      image: get(providerSpecValue, "image") ?? null,
      template: get(providerSpecValue, "template") ?? null,
      disk: get(boot, "image") ?? null,
    }),
  );
}

/** Keys sorted at every level: the API server returns fields in its own order, our builder in another. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== undefined && x !== "")
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, canonical(x)]),
    );
  return v;
}

export interface MachineState {
  name: string;
  image: string;
  /** Set once deletion has begun (machine-api drains, deletes the VM and the Node, then drops the finalizer). */
  deleting: boolean;
  /**
   * Carries the delete-machine annotation (either spelling, any non-empty value): the MachineSet controller deletes
   * it before any healthy unmarked Machine on a scale-down (delete_policy.go).
   */
  marked: boolean;
  phase: string;
  /** `status.nodeRef.name`, once the Machine has a Node. */
  node?: string;
}

/** The Machines of one MachineSet (by its label), with the image each boots. */
export function machinesOf(machineList: unknown, machineSet: string): MachineState[] {
  return objects(get(machineList, "items"))
    .filter((m) => stringMap(get(m, "metadata", "labels"))[MACHINESET_LABEL] === machineSet)
    .map((m) => ({
      name: str(get(m, "metadata", "name")) ?? "",
      image: machineImage(get(m, "spec", "providerSpec", "value")),
      deleting: get(m, "metadata", "deletionTimestamp") !== undefined,
      marked: isMarked(get(m, "metadata", "annotations")),
      phase: str(get(m, "status", "phase")) ?? "",
      ...(str(get(m, "status", "nodeRef", "name")) ? { node: str(get(m, "status", "nodeRef", "name")) } : {}),
    }))
    .filter((m) => m.name !== "")
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** delete_policy.go tests `annotations[DeleteNodeAnnotation] != ""` (and the old key): presence alone is not enough. */
export function isMarked(annotations: unknown): boolean {
  const a = stringMap(annotations);
  return Boolean(a[DELETE_MACHINE_ANNOTATION] || a[OLD_DELETE_MACHINE_ANNOTATION]);
}

/** Why a Machine on the wanted image does not serve yet, in messages. */
export function notServing(m: MachineState): string {
  return m.node
    ? `${m.name} (Node ${m.node} not yet Ready and configured by WMCO)`
    : `${m.name} (phase ${m.phase || "none yet"}, no Node)`;
}

/** Machines on another image than `desired` and not already being deleted, in name order. */
export function staleMachines(machines: readonly MachineState[], desired: string): string[] {
  return machines.filter((m) => m.image !== desired && !m.deleting).map((m) => m.name);
}

/** How many Machines one batch may delete: `maxUnavailable`, leaving at least one of `replicas` serving. */
export function batchSize(maxUnavailable: number, replicas: number): number {
  return Math.max(0, Math.min(maxUnavailable, replicas - 1));
}

/**
 * Whether a Node is serving as WMCO configured it: Ready, and WMCO's version annotation equal to its desired version
 * (pkg/metadata `VersionAnnotation`, `DesiredVersionAnnotation`: WMCO sets the first once it has configured the node).
 */
export function configuredByWmco({ annotations, ready }: Pick<NodeFields, "annotations" | "ready">): boolean {
  const version = annotations[WMCO_VERSION_ANNOTATION];
  return ready.status === "True" && !!version && version === annotations[WMCO_DESIRED_VERSION_ANNOTATION];
}
