import { FakeKube, RouteRequest } from "./fake-kube";
import { FakeNodes, mergePatch } from "./fake-nodes";

/**
 * The Machine API of one Windows MachineSet behind the local API stand-in, played as openshift/machine-api-operator
 * plays it, one step per Machine list read (the stand-in has no clock of its own; state changes come from requests):
 *
 * - The MachineSet controller (pkg/controller/machineset/controller.go `syncReplicas`): counts the set's Machines not
 *   being deleted (`shouldExcludeMachine`), creates Machines from the template when there are fewer than
 *   `spec.replicas`, and deletes the surplus when there are more, highest priority first by `spec.deletePolicy`
 *   (delete_policy.go: `randomDeletePolicy`, the default, ranks a Machine being deleted 100, one annotated with
 *   `DeleteNodeAnnotation` or its old spelling, or failed, 50, one without a Node 40, any other 20;
 *   `oldestDeletePriority`/`newestDeletePriority` rank annotated or failed ones 100 and the rest by age). Ties go by
 *   name here; the real sort is not stable.
 * - The machine controller (pkg/controller/machine/controller.go, deleting branch): a Machine with a
 *   deletionTimestamp is not gone at once. Its Node is cordoned and drained first (`drainReads` steps, or for as long
 *   as `holdDeletion` says, like a PodDisruptionBudget refusing evictions), then the VM and the Node are deleted and
 *   the finalizer dropped, so the Machine disappears a step later.
 * - A new Machine is `Provisioning`, gets its Node (nodeRef, `Running`) the next step, and WMCO configures that Node
 *   (version = desired-version) `configureReads` steps later (never with `neverConfigure`).
 *
 * Every change is recorded in `events` in order: `delete <m>` (API), `mark <m>`, `scale <n>`, `create <m>`,
 * `controller deletes <m>`, `drain <m>`, `gone <m>`, `configured <m>`.
 */
export interface FakeMachine {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp: string;
    deletionTimestamp?: string;
    finalizers?: string[];
  };
  spec: { providerSpec: { value: Record<string, unknown> } };
  status: { phase: string; nodeRef?: { kind: string; name: string }; errorReason?: string };
}

export interface FakeMachineSet {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    replicas: number;
    deletePolicy?: "Random" | "Oldest" | "Newest";
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { providerSpec: { value: Record<string, unknown> } };
    };
  };
}

const NS = "openshift-machine-api";
const API = "machine.openshift.io/v1beta1";
const SET_LABEL = "machine.openshift.io/cluster-api-machineset";
const BASE = Date.parse("2026-11-23T00:00:00Z");
/** New Machines are numbered across instances, so names never repeat within a test file. */
let created = 0;
const at = (step: number) => new Date(BASE + step * 1000).toISOString().replace(/\.\d+Z$/, "Z");

export class FakeMachineApi {
  readonly machines = new Map<string, FakeMachine>();
  readonly events: string[] = [];
  /** Every PATCH's query string, to check the field manager. */
  readonly patchQueries: string[] = [];
  readonly machineSet: FakeMachineSet;
  /** Steps a deleting Machine's drain takes before its VM and Node are deleted. */
  drainReads = 2;
  /** Steps from a new Node to WMCO's version annotation. */
  configureReads = 2;
  neverConfigure = false;
  /** While true for a deleting Machine, its drain does not finish (a PodDisruptionBudget holding an eviction). */
  holdDeletion: (machine: string) => boolean = () => false;
  /** The fewest Nodes serving (Machine not deleting, Node not cordoned and configured by WMCO) seen at any step. */
  fewestServing = Infinity;
  /** The most replicas the set was ever scaled to. */
  mostReplicas = 0;
  private step = 0;
  /** Per Machine: steps left in its drain, or until WMCO configures its Node. */
  private readonly countdown = new Map<string, number>();

  constructor(
    private readonly kube: FakeKube,
    private readonly nodes: FakeNodes,
    readonly setName: string,
    private readonly wmcoVersion: string,
  ) {
    this.machineSet = {
      apiVersion: API,
      kind: "MachineSet",
      metadata: { name: setName, namespace: NS, labels: {} },
      spec: {
        replicas: 0,
        selector: { matchLabels: { [SET_LABEL]: setName } },
        template: {
          metadata: { labels: { [SET_LABEL]: setName, "machine.openshift.io/os-id": "Windows" } },
          spec: { providerSpec: { value: {} } },
        },
      },
    };
    kube.route(`/apis/${API}/namespaces/${NS}/machines`, (_n, req) => this.list(req));
    kube.route(`/apis/${API}/namespaces/${NS}/machinesets/${setName}`, (_n, req) => this.set(req));
  }

  /** The set's template boots this providerSpec value from now on (the MachineSet's image edit). */
  template(value: Record<string, unknown>): void {
    this.machineSet.spec.template.spec.providerSpec.value = value;
  }

  /** Existing Machines, each with a configured Node, on `value`; the set's replicas become their count. */
  seed(names: string[], value: Record<string, unknown>): void {
    for (const name of names) {
      this.add(name, value);
      this.node(name, true);
      const m = this.get(name);
      m.status = { phase: "Running", nodeRef: { kind: "Node", name } };
    }
    this.machineSet.spec.replicas = this.active().length;
    this.mostReplicas = this.machineSet.spec.replicas;
  }

  /** Machines not being deleted, in name order. */
  active(): FakeMachine[] {
    return [...this.machines.values()]
      .filter((m) => !m.metadata.deletionTimestamp)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  private get(name: string): FakeMachine {
    const m = this.machines.get(name);
    if (!m) throw new Error(`no Machine ${name}`);
    return m;
  }

  private add(name: string, value: Record<string, unknown>): void {
    this.machines.set(name, {
      apiVersion: API,
      kind: "Machine",
      metadata: {
        name,
        namespace: NS,
        labels: { ...this.machineSet.spec.template.metadata.labels },
        creationTimestamp: at(this.step),
        finalizers: ["machine.machine.openshift.io"],
      },
      spec: { providerSpec: { value: JSON.parse(JSON.stringify(value)) } },
      status: { phase: "Provisioning" },
    });
    this.kube.route(`/apis/${API}/namespaces/${NS}/machines/${name}`, (_n, req) => this.one(name, req));
  }

  private node(name: string, configured: boolean): void {
    this.nodes.add(name, {
      address: `10.0.3.${this.nodes.nodes.size + 10}`,
      annotations: {
        "windowsmachineconfig.openshift.io/desired-version": this.wmcoVersion,
        ...(configured ? { "windowsmachineconfig.openshift.io/version": this.wmcoVersion } : {}),
      },
    });
  }

  private list(req: RouteRequest) {
    if (req.method !== "GET") return { status: 405 };
    this.tick();
    const selector = new URLSearchParams(req.query).get("labelSelector");
    const items = [...this.machines.values()]
      .filter((m) => selector === null || selector === `${SET_LABEL}=${m.metadata.labels[SET_LABEL]}`)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    return { status: 200, body: { apiVersion: API, kind: "MachineList", metadata: {}, items: clone(items) } };
  }

  private set(req: RouteRequest) {
    if (req.method === "GET") return { status: 200, body: clone(this.machineSet) };
    if (req.method !== "PATCH") return { status: 405 };
    this.patchQueries.push(req.query);
    const before = this.machineSet.spec.replicas;
    Object.assign(this.machineSet, mergePatch(this.machineSet, req.body));
    if (this.machineSet.spec.replicas !== before) this.events.push(`scale ${this.machineSet.spec.replicas}`);
    this.mostReplicas = Math.max(this.mostReplicas, this.machineSet.spec.replicas);
    return { status: 200, body: clone(this.machineSet) };
  }

  private one(name: string, req: RouteRequest) {
    const m = this.machines.get(name);
    if (!m) return { status: 404 };
    if (req.method === "GET") return { status: 200, body: clone(m) };
    if (req.method === "DELETE") {
      this.markDeleted(m);
      this.events.push(`delete ${name}`);
      return { status: 200, body: clone(m) };
    }
    if (req.method === "PATCH") {
      this.patchQueries.push(req.query);
      const was = m.metadata.annotations?.["machine.openshift.io/delete-machine"];
      Object.assign(m, mergePatch(m, req.body));
      if (!was && m.metadata.annotations?.["machine.openshift.io/delete-machine"]) this.events.push(`mark ${name}`);
      return { status: 200, body: clone(m) };
    }
    return { status: 405 };
  }

  private markDeleted(m: FakeMachine): void {
    if (m.metadata.deletionTimestamp) return;
    m.metadata.deletionTimestamp = at(this.step);
    this.countdown.set(m.metadata.name, this.drainReads);
  }

  /** One step of the machine controller, then of the MachineSet controller, then of WMCO. */
  private tick(): void {
    this.step++;
    for (const m of [...this.machines.values()]) {
      const name = m.metadata.name;
      if (m.metadata.deletionTimestamp) {
        m.status.phase = "Deleting";
        const node = m.status.nodeRef ? this.nodes.nodes.get(m.status.nodeRef.name) : undefined;
        if (node && !node.spec.unschedulable) {
          node.spec.unschedulable = true;
          this.events.push(`drain ${name}`);
        }
        const left = this.countdown.get(name) ?? 0;
        if (this.holdDeletion(name)) continue;
        if (left > 0) {
          this.countdown.set(name, left - 1);
          continue;
        }
        if (m.status.nodeRef) this.nodes.nodes.delete(m.status.nodeRef.name);
        this.machines.delete(name);
        this.countdown.delete(name);
        this.events.push(`gone ${name}`);
      } else if (!m.status.nodeRef && m.status.phase === "Provisioning" && !m.status.errorReason) {
        // The instance boots and its Node registers (node link: nodeRef); WMCO has yet to configure it.
        m.status = { phase: "Running", nodeRef: { kind: "Node", name } };
        this.node(name, false);
        this.countdown.set(name, this.neverConfigure ? Infinity : this.configureReads);
      } else if (this.countdown.has(name) && m.status.nodeRef) {
        const left = (this.countdown.get(name) ?? 0) - 1;
        if (left > 0) this.countdown.set(name, left);
        else {
          const n = this.nodes.nodes.get(name);
          if (n) n.metadata.annotations["windowsmachineconfig.openshift.io/version"] = this.wmcoVersion;
          this.countdown.delete(name);
          this.events.push(`configured ${name}`);
        }
      }
    }
    this.syncReplicas();
    this.fewestServing = Math.min(this.fewestServing, this.serving());
  }

  /** Machines not being deleted whose Node is schedulable and configured by WMCO. */
  serving(): number {
    return this.active().filter((m) => {
      const n = m.status.nodeRef ? this.nodes.nodes.get(m.status.nodeRef.name) : undefined;
      return (
        n !== undefined &&
        !n.spec.unschedulable &&
        n.metadata.annotations["windowsmachineconfig.openshift.io/version"] === this.wmcoVersion
      );
    }).length;
  }

  /** WMCO configures the Nodes it was holding back at the next step. */
  configureNow(): void {
    this.neverConfigure = false;
    for (const [name, left] of this.countdown) if (left === Infinity) this.countdown.set(name, 1);
  }

  /** controller.go `syncReplicas` over the Machines not being deleted. */
  private syncReplicas(): void {
    const active = this.active();
    const diff = active.length - this.machineSet.spec.replicas;
    for (let i = 0; i < -diff; i++) {
      const name = `${this.setName}-new-${++created}`;
      this.add(name, this.machineSet.spec.template.spec.providerSpec.value);
      this.events.push(`create ${name}`);
    }
    if (diff > 0) {
      const policy = this.machineSet.spec.deletePolicy ?? "Random";
      const victims = [...active].sort((a, b) => this.priority(policy, b) - this.priority(policy, a)).slice(0, diff);
      for (const m of victims) {
        this.markDeleted(m);
        this.events.push(`controller deletes ${m.metadata.name}`);
      }
    }
  }

  /** delete_policy.go's priorities (see the class comment). */
  private priority(policy: string, m: FakeMachine): number {
    const a = m.metadata.annotations ?? {};
    const marked = Boolean(
      a["machine.openshift.io/delete-machine"] || a["machine.openshift.io/cluster-api-delete-machine"],
    );
    const failed = Boolean(m.status.errorReason);
    if (m.metadata.deletionTimestamp) return 100;
    const ageSeconds = (BASE + this.step * 1000 - Date.parse(m.metadata.creationTimestamp)) / 1000;
    const oldest = 50 * (1 - Math.exp(-Math.max(ageSeconds, 0) / 8_640_000));
    if (policy === "Oldest") return marked || failed ? 100 : oldest;
    if (policy === "Newest") return marked || failed ? 100 : 100 - oldest;
    if (marked || failed) return 50;
    return m.status.nodeRef ? 20 : 40;
  }
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}
