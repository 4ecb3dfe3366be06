/**
 * The Machine API for Windows MachineSets (openshift/machine-api-operator): the MachineSet controller
 * (pkg/controller/machineset/controller.go `reconcile`, `syncReplicas`, `createMachine`, `shouldExcludeMachine`,
 * `adoptOrphan`; delete_policy.go; status.go `calculateStatus`, `updateMachineSetStatus`), the machine controller with
 * a played actuator (lab/players/machine-actuator.ts) and the node link controller (pkg/controller/nodelink/
 * nodelink_controller.go: a Node is matched to its Machine by providerID, else by internal IP; the Machine gets
 * `nodeRef`, the Node gets `machine.openshift.io/machine` and the Machine's `spec.metadata` labels, annotations and
 * taints). Only MachineSets whose template carries `machine.openshift.io/os-id: Windows` are played; every other
 * MachineSet (the seeded Linux workers) is left alone.
 */
import { get, obj, objects, str, stringMap } from "../../lib/json";
import { canonical, JsonObject, Kube, metaOf, Player, resourcePath, say } from "./kube";
import { Informer } from "./informer";
import { Queue } from "./queue";
import { Recorder } from "./events";
import {
  isWindowsMachine,
  MACHINE_API,
  MACHINE_NAMESPACE,
  MachineState,
  OS_ID_LABEL,
  PLAYER,
  reconcileMachine,
} from "./machine-actuator";

const isWindowsSet = (ms: JsonObject) =>
  stringMap(get(ms, "spec", "template", "metadata", "labels"))[OS_ID_LABEL] === "Windows";
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const controllerOf = (o: JsonObject) => metaOf(o).ownerReferences.find((r) => r.controller === true);

/** A Node's Ready condition and since when (status.go `IsNodeReady`, `IsNodeAvailable`). */
function readiness(node: JsonObject | undefined): { ready: boolean; since: number } {
  const c = objects(get(node, "status", "conditions")).find((x) => x.type === "Ready");
  return { ready: c?.status === "True", since: Date.parse(str(c?.lastTransitionTime) ?? "") || 0 };
}

/** delete_policy.go `randomDeletePolicy` (the default), `newestDeletePriority`, `oldestDeletePriority`. */
function deletePriority(policy: string, m: JsonObject): number {
  const meta = metaOf(m);
  const marked = Boolean(
    meta.annotations["machine.openshift.io/delete-machine"] ||
    meta.annotations["machine.openshift.io/cluster-api-delete-machine"],
  );
  const failed = Boolean(get(m, "status", "errorReason") || get(m, "status", "errorMessage"));
  if (meta.deleting) return 100;
  const age = Date.now() - Date.parse(str(get(m, "metadata", "creationTimestamp")) ?? "");
  const oldest = 50 * (1 - Math.exp(-Math.max(age, 0) / 1000 / 8_640_000));
  if (policy === "Oldest") return marked || failed ? 100 : oldest;
  if (policy === "Newest") return marked || failed ? 100 : 100 - oldest;
  if (marked || failed) return 50;
  return get(m, "status", "nodeRef") ? 20 : 40;
}

export class MachinesPlayer implements Player {
  readonly name = PLAYER;
  private informers: Informer[] = [];
  private queues: Queue[] = [];
  private s?: MachineState & { sets: Informer };
  private readonly readyCache = new Map<string, boolean>();

  constructor(private readonly kube: Kube) {}

  async start(): Promise<void> {
    const kube = this.kube;
    const setQ = new Queue(PLAYER, "MachineSet", (n) => this.reconcileSet(n));
    const machineQ = new Queue(PLAYER, "Machine", (n) => reconcileMachine(this.state(), n), 10_000);
    const linkQ = new Queue(PLAYER, "Node link", (n) => this.link(n));
    this.queues = [setQ, machineQ, linkQ];
    const sets = new Informer(
      kube,
      PLAYER,
      resourcePath(MACHINE_API, "machinesets", MACHINE_NAMESPACE),
      {},
      (_v, ms) => {
        if (isWindowsSet(ms)) setQ.add(metaOf(ms).name);
      },
    );
    // MachineToMachineSets: a Machine wakes its controller, or every set whose selector it matches.
    const machines = new Informer(
      kube,
      PLAYER,
      resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE),
      {},
      (_v, m) => {
        if (!isWindowsMachine(m)) return;
        machineQ.add(metaOf(m).name);
        const owner = controllerOf(m);
        if (owner?.kind === "MachineSet") setQ.add(str(owner.name) ?? "");
        else
          for (const ms of sets.list())
            if (matches(stringMap(get(ms, "spec", "selector", "matchLabels")), metaOf(m).labels))
              setQ.add(metaOf(ms).name);
        for (const n of nodes.list()) if (this.machineFor(n)?.name === metaOf(m).name) linkQ.add(metaOf(n).name);
      },
    );
    const nodes = new Informer(
      kube,
      PLAYER,
      resourcePath("v1", "nodes"),
      { labelSelector: "kubernetes.io/os=windows" },
      (_v, n) => linkQ.add(metaOf(n).name),
    );
    this.informers = [sets, machines, nodes];
    this.s = { kube, recorder: new Recorder(kube, PLAYER), machines, nodes, sets };
    for (const i of this.informers) i.start();
    await Promise.all(this.informers.map((i) => i.ready));
    for (const q of this.queues) q.release();
  }

  stop(): void {
    for (const i of this.informers) i.stop();
    for (const q of this.queues) q.stop();
  }

  private state() {
    if (!this.s) throw new Error("machines player not started");
    return this.s;
  }

  /** One pass of the MachineSet controller for a Windows MachineSet. */
  private async reconcileSet(name: string): Promise<number | void> {
    const s = this.state();
    const ms = s.sets.get(name, MACHINE_NAMESPACE);
    if (!ms || !isWindowsSet(ms) || metaOf(ms).deleting) return;
    const replicas = get(ms, "spec", "replicas");
    if (typeof replicas !== "number")
      throw new Error(`the Replicas field in Spec for machineset ${name} is nil, this should not be allowed`);
    const selector = stringMap(get(ms, "spec", "selector", "matchLabels"));
    const template = obj(get(ms, "spec", "template")) ?? {};
    const templateLabels = stringMap(get(template, "metadata", "labels"));
    if (!matches(selector, templateLabels))
      throw new Error(`failed validation on MachineSet "${name}" label selector, cannot match any machines `);
    const uid = metaOf(ms).uid;
    const ref = { apiVersion: MACHINE_API, kind: "MachineSet", name, uid, controller: true, blockOwnerDeletion: true };
    const owned: JsonObject[] = [];
    for (const m of s.machines.list(MACHINE_NAMESPACE)) {
      const owner = controllerOf(m);
      if ((owner && owner.uid !== uid) || metaOf(m).deleting || !matches(selector, metaOf(m).labels)) continue;
      if (!owner) {
        await s.kube.patch(resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE, metaOf(m).name), {
          metadata: { ownerReferences: [...metaOf(m).ownerReferences, ref] },
        });
        say(PLAYER, `MachineSet ${name} adopted Machine ${metaOf(m).name}`);
      }
      owned.push(m);
    }
    owned.sort((a, b) => metaOf(a).name.localeCompare(metaOf(b).name));

    const diff = owned.length - replicas;
    const made: string[] = [];
    if (diff < 0) {
      for (let i = 0; i < -diff; i++) {
        const created = await s.kube.create(resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE), {
          apiVersion: MACHINE_API,
          kind: "Machine",
          metadata: {
            generateName: `${name}-`,
            namespace: MACHINE_NAMESPACE,
            labels: templateLabels,
            annotations: stringMap(get(template, "metadata", "annotations")),
            ownerReferences: [ref],
          },
          spec: obj(template.spec) ?? {},
        });
        say(
          PLAYER,
          `MachineSet ${name} created Machine ${metaOf(created).name} (${i + 1} of ${-diff}, want ${replicas})`,
        );
        made.push(metaOf(created).name);
      }
      // `waitForMachineCreation`: the next pass must see them, or it would create them again.
      await this.settle(() => made.every((n) => s.machines.get(n, MACHINE_NAMESPACE)));
    } else if (diff > 0) {
      const policy = str(get(ms, "spec", "deletePolicy")) ?? "Random";
      const victims = [...owned]
        .sort(
          (a, b) =>
            deletePriority(policy, b) - deletePriority(policy, a) || metaOf(a).name.localeCompare(metaOf(b).name),
        )
        .slice(0, diff);
      for (const m of victims) {
        await s.kube.remove(resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE, metaOf(m).name));
        say(PLAYER, `MachineSet ${name} deleted Machine ${metaOf(m).name} (want ${replicas})`);
      }
      // `waitForMachineDeletion`: gone or marked for deletion in the cache.
      await this.settle(() =>
        victims.every((m) => {
          const now = s.machines.get(metaOf(m).name, MACHINE_NAMESPACE);
          return !now || metaOf(now).deleting;
        }),
      );
    }

    // calculateStatus over the Machines this pass started from.
    const minReady = Number(get(ms, "spec", "minReadySeconds") ?? 0);
    let fullyLabeled = 0;
    let ready = 0;
    let available = 0;
    for (const m of owned) {
      if (matches(templateLabels, metaOf(m).labels)) fullyLabeled++;
      const nodeName = str(get(m, "status", "nodeRef", "name"));
      const r = readiness(nodeName ? s.nodes.get(nodeName) : undefined);
      if (!r.ready) continue;
      ready++;
      if (minReady === 0 || r.since + minReady * 1000 <= Date.now()) available++;
    }
    const status = {
      replicas: owned.length,
      fullyLabeledReplicas: fullyLabeled,
      readyReplicas: ready,
      availableReplicas: available,
      labelSelector: Object.entries(selector)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
      observedGeneration: metaOf(ms).generation,
    };
    const old = obj(ms.status) ?? {};
    // status.labelSelector is pruned by the Default CRD's schema (only the scale subresource names it): not compared.
    const same = Object.entries(status)
      .filter(([k]) => k !== "labelSelector")
      .every(([k, v]) => canonical(old[k] ?? (typeof v === "number" ? 0 : "")) === canonical(v));
    if (!same) {
      await s.kube.patch(resourcePath(MACHINE_API, "machinesets", MACHINE_NAMESPACE, name, "status"), { status });
      say(PLAYER, `MachineSet ${name} status: replicas ${status.replicas}, ready ${ready}, available ${available}`);
    }
    if (diff !== 0) return 1_000;
    if (minReady > 0 && ready === replicas && available !== replicas) return minReady * 1000;
  }

  /** Polls the cache every 100 ms for up to 10 s (controller.go `stateConfirmationInterval`/`Timeout`). */
  private async settle(done: () => boolean): Promise<void> {
    for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
    if (!done()) throw new Error("timed out waiting for the machine cache to reflect the changes");
  }

  /** nodelink_controller.go `findMachineFromNode`: by providerID, else by an InternalIP. */
  private machineFor(node: JsonObject): { name: string; machine: JsonObject } | undefined {
    const machines = this.state().machines.list(MACHINE_NAMESPACE).filter(isWindowsMachine);
    const pid = str(get(node, "spec", "providerID"));
    const ips = objects(get(node, "status", "addresses"))
      .filter((a) => a.type === "InternalIP")
      .map((a) => a.address);
    const m =
      (pid ? machines.find((x) => get(x, "spec", "providerID") === pid) : undefined) ??
      machines.find((x) =>
        objects(get(x, "status", "addresses")).some((a) => a.type === "InternalIP" && ips.includes(a.address)),
      );
    return m ? { name: metaOf(m).name, machine: m } : undefined;
  }

  /** nodelink_controller.go `Reconcile` for a Windows Node. */
  private async link(nodeName: string): Promise<void> {
    const s = this.state();
    const node = s.nodes.get(nodeName);
    if (!node) return void this.readyCache.delete(nodeName);
    const found = this.machineFor(node);
    if (!found) return;
    const { name, machine } = found;
    const nm = metaOf(node);
    if (nm.deleting) return void this.readyCache.delete(nodeName);
    // updateNodeRef: set when missing, refreshed when the node's readiness changes.
    const ready = readiness(node).ready;
    const refOk = get(machine, "status", "nodeRef", "uid") === nm.uid;
    if (!refOk || this.readyCache.get(nodeName) !== ready) {
      await s.kube.patch(resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE, name, "status"), {
        status: {
          nodeRef: { kind: "Node", name: nodeName, uid: nm.uid },
          lastUpdated: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
        },
      });
      this.readyCache.set(nodeName, ready);
      if (!refOk) say(PLAYER, `linked Node ${nodeName} to Machine ${name}`);
    }
    const labels = { ...stringMap(get(machine, "spec", "metadata", "labels")) };
    const annotations = {
      "machine.openshift.io/machine": `${MACHINE_NAMESPACE}/${name}`,
      ...stringMap(get(machine, "spec", "metadata", "annotations")),
    };
    const taints = objects(get(node, "spec", "taints"));
    for (const t of objects(get(machine, "spec", "taints")))
      if (!taints.some((x) => x.key === t.key && x.effect === t.effect)) taints.push(t);
    const needs =
      Object.entries(labels).some(([k, v]) => nm.labels[k] !== v) ||
      Object.entries(annotations).some(([k, v]) => nm.annotations[k] !== v) ||
      taints.length !== objects(get(node, "spec", "taints")).length;
    if (!needs) return;
    await s.kube.patch(resourcePath("v1", "nodes", undefined, nodeName), {
      metadata: { labels, annotations },
      spec: { taints },
    });
  }
}
