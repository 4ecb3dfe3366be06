/**
 * Pure decisions for the join wait: given the Nodes, the Machines and WMCO's Events, has every Windows node this
 * stack expects joined and been configured by the running WMCO, is one still on its way (and where), or has WMCO
 * reported a failure for one? No I/O here, so every situation is tested with recorded objects.
 *
 * WMCO's own signals (openshift/windows-machine-config-operator, release-4.18 … release-4.22):
 * - success: a Node, `Ready`, whose `version` annotation equals its `desired-version` (pkg/metadata/metadata.go
 *   `VersionAnnotation`, `DesiredVersionAnnotation`; nodeconfig sets the desired one, WICD copies it once done), and
 *   whose semver part is the running operator's (the value is `<semver>-<git sha>[-dirty]`, build/build.sh), not
 *   cordoned, without the `upgrading` label (controllers/controllers.go `markNodeAsUpgrading`);
 * - BYOH failure: a Warning `InstanceSetupFailure` Event on the `windows-instances` ConfigMap, message
 *   `error configuring host with address <key>: <cause>` (controllers/configmap_controller.go `reconcileNodes`,
 *   `ensureInstancesAreUpToDate`). The same Event carries `Cannot mark node … as upgrading` while a node waits for its
 *   turn in a WMCO upgrade (controllers/errors.go `UpgradeLimitExceededError`): that is waiting, not failing;
 * - Machine failure: a Warning `MachineSetupFailure` Event on the Machine, `Machine <name> authentication failure` (the
 *   Machine is then deleted) or `… configuration failure` (controllers/windowsmachine_controller.go `Reconcile`). The
 *   latter also fires while a node waits its turn in an upgrade, so it counts only when no Windows node is upgrading.
 */
import { z } from "zod";
import { fields, itemsOf, text } from "../../lib/decode";
import { get, objects, str, stringMap } from "../../lib/json";
import { decodeNodes, NodeObject } from "../day2/inventory";
import {
  MACHINESET_LABEL,
  WMCO_DESIRED_VERSION_ANNOTATION,
  WMCO_UPGRADING_LABEL,
  WMCO_VERSION_ANNOTATION,
} from "../../facts/day2";
import { BYOH_NODE_LABEL } from "../../facts/wmco";
import type { Fetched, Verdict } from "./conditions";

/** What one join wait expects. */
export interface JoinTarget {
  /** WMCO's namespace: where `windows-instances` and its Events live. */
  namespace: string;
  /** The `windows-instances` keys of this stack's BYOH hosts. */
  byoh: string[];
  /** This stack's Windows MachineSets and how many Machines each should run. */
  machineSets: { name: string; replicas: number }[];
  /** The installed CSV's `spec.version` (e.g. `10.22.1`): nodes configured by another WMCO are not done yet. */
  operatorVersion: string;
}

/** One wait's view of the cluster. */
export interface JoinSnapshot {
  nodes: Fetched;
  machines: Fetched;
  /** Events in WMCO's namespace and in `openshift-machine-api`. */
  events: Fetched[];
  /** The `windows-instances` ConfigMap (for when it was last written), if BYOH hosts are expected. */
  instances?: Fetched;
  /**
   * The Events as the wait's first look found them (`eventStamps`): one unchanged since then was WMCO's word before
   * this update began (perhaps on a problem since fixed), so it counts only once WMCO says it again (count or time).
   */
  before?: ReadonlyMap<string, string>;
}

export interface JoinOutputs {
  /** The joined nodes' names, sorted. */
  nodes: string[];
}

export const INSTANCE_SETUP_FAILURE = "InstanceSetupFailure";
export const MACHINE_SETUP_FAILURE = "MachineSetupFailure";
/** controllers/errors.go `UpgradeLimitExceededError.Error`. */
const WAITING_FOR_UPGRADE_TURN = /Cannot mark node \S+ as upgrading/;
/** controllers/configmap_controller.go `ensureInstancesAreUpToDate`. */
const HOST_FAILURE = /^error configuring host with address (\S+?): /;

/** What still keeps a Node from counting as configured by this WMCO, or undefined when nothing does. */
export function notConfigured(node: NodeObject, operatorVersion: string): string | undefined {
  const { labels, annotations: a } = node;
  const version = a[WMCO_VERSION_ANNOTATION];
  const desired = a[WMCO_DESIRED_VERSION_ANNOTATION];
  if (labels[WMCO_UPGRADING_LABEL] === "true") return "WMCO upgrading";
  if (!version) return "WMCO configuring";
  if (desired !== undefined && version !== desired) return `WMCO reconfiguring (${version} → ${desired})`;
  const semver = version.split("-")[0];
  if (operatorVersion && semver !== operatorVersion)
    return `configured by WMCO ${semver}, waiting for WMCO ${operatorVersion}`;
  if (node.ready.status !== "True") return "not Ready";
  if (node.unschedulable) return "cordoned";
  return undefined;
}

/** Text that reads as "" when absent or of another type. */
const said = z.string().catch("");

/** An Event's latest occurrence, in whichever field the recorder filled (core/v1 or events.k8s.io/v1 series). */
const event = fields({
  metadata: fields({ uid: text, namespace: said, name: said }),
  involvedObject: fields({ kind: said, name: said, uid: said }),
  series: fields({ lastObservedTime: text, count: z.unknown().optional() }),
  lastTimestamp: text,
  eventTime: text,
  firstTimestamp: text,
  count: z.unknown().optional(),
  reason: said,
  message: said,
}).transform(({ metadata, involvedObject, series, reason, message, ...e }) => {
  const time = series.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? "";
  const at = Date.parse(time);
  const count = Number(series.count ?? e.count ?? 1) || 1;
  return {
    ...involvedObject,
    reason,
    message,
    count,
    time,
    /** The Event object's uid (else namespace/name), and its occurrence: `count@time`. */
    id: metadata.uid ?? `${metadata.namespace}/${metadata.name}`,
    stamp: `${count}@${time}`,
    /** Milliseconds since the epoch of its latest occurrence, 0 when the Event carries no time. */
    at: Number.isNaN(at) ? 0 : at,
  };
});
type EventSeen = z.output<typeof event>;

/** The Events of `lists` (EventLists as read), decoded once per look. */
export function eventsOf(lists: Fetched[]): EventSeen[] {
  return lists.flatMap((l) => itemsOf(event).parse(l).items);
}

/** Each Event's occurrence stamp by id (Events as `eventsOf` decodes them): what a wait's first look saw (`JoinSnapshot.before`). */
export function eventStamps(events: readonly EventSeen[]): Map<string, string> {
  return new Map(events.map((e) => [e.id, e.stamp]));
}

const isNew = (e: EventSeen, before: ReadonlyMap<string, string> | undefined) =>
  before === undefined || before.get(e.id) !== e.stamp;

/**
 * When `windows-instances` was last written (its newest managedFields entry, else its creation): WMCO's Events
 * about it from before then speak of an older list. Server time, second precision, as the Events'.
 */
export function lastWritten(instances: Fetched): number {
  const times = objects(get(instances, "metadata", "managedFields")).flatMap((f) => str(f.time) ?? []);
  const created = str(get(instances, "metadata", "creationTimestamp"));
  const all = [...times, ...(created ? [created] : [])].map((t) => Date.parse(t)).filter((t) => !Number.isNaN(t));
  return all.length > 0 ? Math.max(...all) : 0;
}

const nameOf = (o: unknown) => str(get(o, "metadata", "name")) ?? "";

function quote(e: EventSeen, on: string): string {
  const times = e.count > 1 ? `, ${e.count} times` : "";
  return `WMCO's Event ${e.reason} on ${on} (${e.time}${times}): "${e.message}"`;
}

/**
 * The latest `InstanceSetupFailure` written since `windows-instances` last changed, unless it is a node waiting its
 * turn in an upgrade: WMCO then neither configures the hosts after the failing one nor deconfigures removed ones
 * (`reconcileNodes` returns before `deconfigureInstances`).
 */
export function hostFailure(
  events: readonly EventSeen[],
  instances: Fetched,
  before?: ReadonlyMap<string, string>,
): { host: string | undefined; event: EventSeen } | undefined {
  const written = lastWritten(instances);
  const latest = events
    .filter(
      (e) =>
        isNew(e, before) &&
        e.reason === INSTANCE_SETUP_FAILURE &&
        e.kind === "ConfigMap" &&
        e.at >= written &&
        !WAITING_FOR_UPGRADE_TURN.test(e.message),
    )
    .sort((a, b) => b.at - a.at)[0];
  return latest ? { host: HOST_FAILURE.exec(latest.message)?.[1], event: latest } : undefined;
}

/** A host failure quoted, as the waits report it. */
export function describeHostFailure(f: { host: string | undefined; event: EventSeen }, namespace: string): string {
  return `host ${f.host ?? "(unnamed)"} in windows-instances: ${quote(f.event, `ConfigMap ${namespace}/windows-instances`)}`;
}

/** The verdict of one look at the cluster. */
export function joinVerdict(t: JoinTarget, s: JoinSnapshot): Verdict<JoinOutputs> {
  const nodes = decodeNodes(s.nodes);
  const machines = objects(get(s.machines, "items"));
  const events = eventsOf(s.events);
  const upgrading = nodes.filter((n) => n.labels[WMCO_UPGRADING_LABEL] === "true");
  const joined: string[] = [];
  const pending: string[] = [];
  const failures: string[] = [];

  // BYOH: the Node whose addresses include the host's key exactly (pkg/wiparser `GetNodeUsername` matches so).
  for (const key of t.byoh) {
    const node = nodes.find((n) => n.labels[BYOH_NODE_LABEL] === "true" && n.addresses.some((a) => a.address === key));
    const why = node ? notConfigured(node, t.operatorVersion) : "no Node yet";
    if (node && !why) {
      joined.push(node.name);
      continue;
    }
    pending.push(`${key}: ${why}`);
  }
  // WMCO configures the listed hosts in turn and stops at the first failure: whichever host the Event names, the
  // ones not yet joined wait on it.
  if (t.byoh.length > joined.length) {
    const f = hostFailure(events, s.instances, s.before);
    if (f) {
      const ours = f.host !== undefined && t.byoh.includes(f.host);
      failures.push(
        ours
          ? `BYOH host ${f.host}: ${quote(f.event, `ConfigMap ${t.namespace}/windows-instances`)}`
          : `${describeHostFailure(f, t.namespace)}; WMCO configures the hosts one after another and stops at the first that fails`,
      );
    }
  }

  // MachineSets: as many configured nodes behind Machines of the set as its replicas.
  for (const set of t.machineSets) {
    const own = machines.filter((m) => stringMap(get(m, "metadata", "labels"))[MACHINESET_LABEL] === set.name);
    let done = 0;
    const waiting: string[] = [];
    for (const m of own) {
      const machine = nameOf(m);
      const nodeName = str(get(m, "status", "nodeRef", "name"));
      const node = nodeName ? nodes.find((n) => n.name === nodeName) : undefined;
      const why = node
        ? notConfigured(node, t.operatorVersion)
        : `Machine ${str(get(m, "status", "phase")) ?? "created"}`;
      if (node && !why && get(m, "metadata", "deletionTimestamp") === undefined) {
        done++;
        joined.push(node.name);
        continue;
      }
      waiting.push(`${machine}: ${why ?? "being deleted"}`);
      const uid = str(get(m, "metadata", "uid")) ?? "";
      const failed = events
        .filter(
          (e) =>
            isNew(e, s.before) &&
            e.reason === MACHINE_SETUP_FAILURE &&
            e.kind === "Machine" &&
            e.name === machine &&
            (e.uid === "" || e.uid === uid) &&
            // "configuration failure" also means "waiting for its turn" while another node upgrades.
            (upgrading.length === 0 || /authentication failure/.test(e.message)),
        )
        .sort((a, b) => b.at - a.at)[0];
      if (failed) failures.push(`Machine ${machine} of MachineSet ${set.name}: ${quote(failed, `Machine ${machine}`)}`);
    }
    if (done < set.replicas)
      pending.push(
        `MachineSet ${set.name}: ${done} of ${set.replicas} configured${waiting.length ? ` (${waiting.join(", ")})` : ""}`,
      );
  }

  if (failures.length > 0 && pending.length > 0) return { state: "failed", message: failures.join("; ") };
  const expected = t.byoh.length + t.machineSets.reduce((n, s) => n + s.replicas, 0);
  if (pending.length === 0) return { state: "done", outputs: { nodes: [...new Set(joined)].sort() } };
  const upgradeNote =
    upgrading.length > 0 ? `; WMCO is upgrading ${upgrading.map((n) => n.name).join(", ")} (one node at a time)` : "";
  return {
    state: "waiting",
    reason: `${Math.min(joined.length, expected)} of ${expected} Windows nodes joined; ${pending.join("; ")}${upgradeNote}`,
  };
}
