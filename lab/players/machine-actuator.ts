/**
 * What a cloud provider's machine controller does for a Machine, played: machine-api-operator runs for real in the lab
 * (the MachineSet controller and the webhooks, lab/machine-api.ts), but the machine controller ships with each cloud's
 * actuator in other repositories and talks to cloud APIs this lab has none of. So this player is the machine
 * controller (openshift/machine-api-operator pkg/controller/machine/controller.go `Reconcile`, which every provider
 * links) with a played cloud actuator in the shape of openshift/machine-api-provider-aws (pkg/actuators/machine/
 * actuator.go `Create`/`Delete` events, reconciler.go `create`, machine_scope.go `getUserData`,
 * `setProviderStatus`), and the node link controller (machine-api-operator pkg/controller/nodelink/
 * nodelink_controller.go, a separate program in a cluster): the instance, providerID, providerStatus, addresses,
 * the phases and nodeRef. Nothing here creates or deletes Machines for a MachineSet: the real controller does.
 *
 * The machine controller: finalizer first, phase `Provisioning`, then an instance whose creation needs the provider
 * spec's `userDataSecret` (missing → Warning `FailedCreate`, retried), then `providerID`, addresses and
 * `InstanceExists`, phase `Provisioned` until the node link sets `nodeRef`, then `Running`. Deleting: phase
 * `Deleting`, cordon, pre-terminate hooks respected, instance removed, Node deleted, finalizer removed. Only Machines
 * labelled `machine.openshift.io/os-id: Windows` are played (the seeded Linux MachineSet's Machines, which the real
 * MachineSet controller makes, stay without a phase: no actuator runs for them). Lab conventions: addresses come from
 * 10.0.128.0/17 in order, the instance "exists" once the Machine has a providerID, the Node name is the Machine's
 * `Hostname` address (AWS: `ip-a-b-c-d.<region>.compute.internal` / `ec2.internal`; elsewhere the Machine's name).
 *
 * The node link: a Node is matched to its Machine by providerID, else by internal IP; the Machine gets `nodeRef`
 * (refreshed when the Node's readiness changes), the Node gets `machine.openshift.io/machine` and the Machine's
 * `spec.metadata` labels, annotations and taints.
 *
 * The key an instance authorizes: elsewhere the one in its user data at creation (WMCO's script writes it:
 * pkg/secrets/secrets.go `generateUserDataWithPubKey`); on vSphere the one in its template, since Windows never reads
 * vSphere user data (WMCO docs/vsphere-golden-image.md). Lab conventions: the played vCenter's templates are the
 * ConfigMap `lab-vsphere-templates` in `openshift-machine-api` (data key: the template with every character outside
 * `[-._a-zA-Z0-9]` as `_`; value: authorized_keys lines); a template first used without an entry was built with the
 * key of the user data then, and is recorded so. The instance's keys go on the Machine as
 * `lab.windows-estate/authorized-key-hashes` (WMCO's `pub-key-hash` of each, comma-separated) for the WMCO player.
 */
import { createHash } from "crypto";
import { get, obj, objects, str, stringMap } from "../../lib/json";
import { JsonObject, Kube, metaOf, now, Player, resourcePath, say, withCondition } from "./kube";
import { Informer } from "./informer";
import { Queue, startSynced, stopAll } from "./queue";
import { Recorder } from "./events";
import { pubKeyHash } from "./wmco-keys";

export const PLAYER = "machine-actuator";
export const MACHINE_API = "machine.openshift.io/v1beta1";
export const MACHINE_NAMESPACE = "openshift-machine-api";
export const OS_ID_LABEL = "machine.openshift.io/os-id";
/** machinev1.MachineFinalizer */
const FINALIZER = "machine.machine.openshift.io";

export interface MachineState {
  kube: Kube;
  recorder: Recorder;
  machines: Informer;
  nodes: Informer;
}

export const isWindowsMachine = (m: JsonObject) => metaOf(m).labels[OS_ID_LABEL] === "Windows";
const machinePath = (name: string, sub?: string) => resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE, name, sub);
const hex = (seed: string, n: number) => createHash("sha256").update(seed).digest("hex").slice(0, n);

/** Addresses handed out by this process (creations may run side by side before the cache shows them). */
const handedOut = new Set<string>();

/** The next free lab address (10.0.128.10 onwards) not used by another Machine. */
function nextAddress(s: MachineState): string {
  const used = new Set(
    s.machines.list().flatMap((m) => objects(get(m, "status", "addresses")).map((a) => str(a.address) ?? "")),
  );
  for (let i = 10; i < 32768; i++) {
    const ip = `10.0.${128 + (i >> 8)}.${i & 255}`;
    if ((i & 255) === 0 || (i & 255) === 255 || used.has(ip) || handedOut.has(ip)) continue;
    handedOut.add(ip);
    return ip;
  }
  throw new Error("the lab's machine network 10.0.128.0/17 is full");
}

/** What the played cloud reports for a new instance of this Machine (per provider spec kind). */
function instanceFor(s: MachineState, m: JsonObject) {
  const name = metaOf(m).name;
  const spec = obj(get(m, "spec", "providerSpec", "value")) ?? {};
  const ip = nextAddress(s);
  const kind = str(spec.kind) ?? "";
  const id = hex(metaOf(m).uid || name, 17);
  const uuid = `${hex(name, 8)}-${hex(name + "1", 4)}-4${hex(name + "2", 3)}-8${hex(name + "3", 3)}-${hex(name + "4", 12)}`;
  const labels: Record<string, string> = {};
  // The labels each actuator sets on its Machines from the provider spec.
  const placed = (type: unknown, region: unknown, zone: unknown) =>
    Object.assign(labels, {
      "machine.openshift.io/instance-type": str(type) ?? "",
      "machine.openshift.io/region": str(region) ?? "",
      "machine.openshift.io/zone": str(zone) ?? "",
    });
  /** The instance as reported; `dns` (AWS) is its InternalDNS name and Hostname, else the Hostname is the Machine's. */
  const instance = (providerID: string, statusKind: string, extra: JsonObject = {}, dns?: string) => ({
    providerID,
    addresses: [
      { type: "InternalIP", address: ip },
      ...(dns ? [{ type: "InternalDNS", address: dns }] : []),
      { type: "Hostname", address: dns ?? name },
    ],
    providerStatus: { apiVersion: "machine.openshift.io/v1beta1", kind: statusKind, ...extra },
    labels,
  });
  if (kind === "AWSMachineProviderConfig") {
    const region = str(get(spec, "placement", "region")) ?? "us-east-1";
    const zone = str(get(spec, "placement", "availabilityZone")) ?? `${region}a`;
    const host = `ip-${ip.replace(/\./g, "-")}.${region === "us-east-1" ? "ec2.internal" : `${region}.compute.internal`}`;
    placed(spec.instanceType, region, zone);
    const status = { instanceId: `i-${id}`, instanceState: "running" };
    return instance(`aws:///${zone}/i-${id}`, "AWSMachineProviderStatus", status, host);
  }
  if (kind === "AzureMachineProviderSpec") {
    placed(spec.vmSize, spec.location, spec.zone);
    const rg = str(spec.resourceGroup) ?? "lab-rg";
    return instance(
      `azure:///subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachines/${name}`,
      "AzureMachineProviderStatus",
      { vmId: uuid, vmState: "Running" },
    );
  }
  if (kind === "GCPMachineProviderSpec") {
    placed(spec.machineType, spec.region, spec.zone);
    const status = { instanceId: name, instanceState: "RUNNING" };
    return instance(
      `gce://${str(spec.projectID) ?? "lab"}/${str(spec.zone) ?? "zone"}/${name}`,
      "GCPMachineProviderStatus",
      status,
    );
  }
  if (kind === "VSphereMachineProviderSpec")
    return instance(`vsphere://${uuid}`, "VSphereMachineProviderStatus", {
      instanceId: uuid,
      instanceState: "poweredOn",
    });
  if (kind === "NutanixMachineProviderConfig")
    return instance(`nutanix://${uuid}`, "NutanixMachineProviderStatus", { vmUUID: uuid });
  return instance(`lab:///${name}`, "LabMachineProviderStatus");
}

const instanceExists = (m: JsonObject) =>
  withCondition(get(m, "status", "conditions"), { type: "InstanceExists", status: "True", severity: "" });

async function setStatus(s: MachineState, m: JsonObject, patch: JsonObject): Promise<void> {
  await s.kube.patch(machinePath(metaOf(m).name, "status"), { status: { ...patch, lastUpdated: now() } });
}

async function setPhase(s: MachineState, m: JsonObject, phase: string, extra: JsonObject = {}): Promise<void> {
  if (get(m, "status", "phase") === phase && Object.keys(extra).length === 0) return;
  await setStatus(s, m, { phase, ...extra });
  if (get(m, "status", "phase") !== phase) say(PLAYER, `Machine ${metaOf(m).name} ${phase}`);
}

export const TEMPLATES_CONFIGMAP = "lab-vsphere-templates";
export const AUTHORIZED_KEYS_ANNOTATION = "lab.windows-estate/authorized-key-hashes";
const KEY_LINE = /(?:ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)) AAAA[A-Za-z0-9+/]+=*/g;
export const templateDataKey = (template: string) => template.replace(/[^-._a-zA-Z0-9]/g, "_");

/** The authorized_keys lines a new instance of this Machine accepts (see the file's comment). */
async function authorizedKeys(s: MachineState, m: JsonObject, userData: string): Promise<string[]> {
  const fromUserData = userData.match(KEY_LINE) ?? [];
  const spec = obj(get(m, "spec", "providerSpec", "value")) ?? {};
  const template = str(spec.template);
  if (str(spec.kind) !== "VSphereMachineProviderSpec" || !template) return fromUserData;
  const path = resourcePath("v1", "configmaps", MACHINE_NAMESPACE, TEMPLATES_CONFIGMAP);
  const key = templateDataKey(template);
  const held = str(get(await s.kube.get(path), "data", key));
  if (held !== undefined) return held.match(KEY_LINE) ?? [];
  const record = { data: { [key]: fromUserData.join("\n") } };
  await s.kube.patch(path, record).catch(() =>
    s.kube.create(resourcePath("v1", "configmaps", MACHINE_NAMESPACE), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: TEMPLATES_CONFIGMAP },
      ...record,
    }),
  );
  say(PLAYER, `vSphere template ${template} holds the key it was first used with`);
  return fromUserData;
}

/** The actuator's `Create`: reads the user data, "launches" the instance, reports it. */
async function create(s: MachineState, m: JsonObject): Promise<void> {
  const name = metaOf(m).name;
  const secretName = str(get(m, "spec", "providerSpec", "value", "userDataSecret", "name"));
  let userData = "";
  if (secretName) {
    const secret = await s.kube.get(resourcePath("v1", "secrets", MACHINE_NAMESPACE, secretName));
    userData = Buffer.from(str(get(secret, "data", "userData")) ?? "", "base64").toString("utf8");
    const err = !secret
      ? `secrets "${secretName}" not found`
      : !str(get(secret, "data", "userData"))
        ? `secret ${MACHINE_NAMESPACE}/${secretName} missing userData key`
        : undefined;
    if (err) {
      const message = `${name}: reconciler failed to Create machine: failed to get user data: ${err}`;
      await s.recorder.event("awscontroller", m, "Warning", "FailedCreate", message);
      throw new Error(message);
    }
  }
  const keys = await authorizedKeys(s, m, userData);
  const inst = instanceFor(s, m);
  await s.kube.patch(machinePath(name), {
    metadata: {
      labels: inst.labels,
      annotations: {
        "machine.openshift.io/instance-state": "running",
        [AUTHORIZED_KEYS_ANNOTATION]: keys.map(pubKeyHash).join(","),
      },
    },
    spec: { providerID: inst.providerID },
  });
  await setStatus(s, m, {
    addresses: inst.addresses,
    providerStatus: {
      ...inst.providerStatus,
      conditions: [
        {
          type: "MachineCreation",
          status: "True",
          reason: "MachineCreationSucceeded",
          message: "Machine successfully created",
          lastTransitionTime: now(),
        },
      ],
    },
    conditions: instanceExists(m),
  });
  say(PLAYER, `created instance for Machine ${name}: ${inst.providerID} at ${inst.addresses[0].address}`);
  await s.recorder.event("awscontroller", m, "Normal", "Create", `Created Machine ${name}`);
}

/** controller.go `Reconcile` for one Windows Machine; returns a delay when it should look again. */
export async function reconcileMachine(s: MachineState, name: string): Promise<number | void> {
  const m = s.machines.get(name, MACHINE_NAMESPACE);
  if (!m || !isWindowsMachine(m)) return;
  const meta = metaOf(m);
  if (!meta.deleting && !meta.finalizers.includes(FINALIZER)) {
    await s.kube.patch(machinePath(name), { metadata: { finalizers: [...meta.finalizers, FINALIZER] } });
    return;
  }
  if (meta.deleting) {
    await setPhase(s, m, "Deleting");
    if (!meta.finalizers.includes(FINALIZER)) return;
    const nodeName = str(get(m, "status", "nodeRef", "name"));
    // The drain controller (drain_controller.go) cordons and drains before the instance goes.
    if (nodeName)
      await s.kube
        .patch(resourcePath("v1", "nodes", undefined, nodeName), { spec: { unschedulable: true } })
        .catch(() => undefined);
    if (objects(get(m, "spec", "lifecycleHooks", "preTerminate")).length > 0) {
      say(PLAYER, `Machine ${name}: not deleting, lifecycle blocked by pre-terminate hook`);
      return;
    }
    if (get(m, "spec", "providerID"))
      await s.recorder.event("awscontroller", m, "Normal", "Delete", `Deleted machine ${name}`);
    if (nodeName && (await s.kube.remove(resourcePath("v1", "nodes", undefined, nodeName))))
      say(PLAYER, `deleted Node ${nodeName} of Machine ${name}`);
    await s.kube.patch(machinePath(name), { metadata: { finalizers: meta.finalizers.filter((f) => f !== FINALIZER) } });
    say(PLAYER, `Machine ${name} deleted`);
    return;
  }
  const phase = str(get(m, "status", "phase")) ?? "";
  if (phase === "Failed") return;
  if (str(get(m, "spec", "providerID"))) {
    if (!get(m, "status", "nodeRef"))
      return setPhase(s, m, "Provisioned", phase === "Provisioned" ? {} : { conditions: instanceExists(m) });
    return setPhase(s, m, "Running");
  }
  if (phase === "") {
    return setPhase(s, m, "Provisioning", {
      conditions: withCondition(get(m, "status", "conditions"), {
        type: "InstanceExists",
        status: "False",
        reason: "InstanceNotCreated",
        message: "Instance has not been created",
        severity: "Warning",
      }),
    });
  }
  await create(s, m);
  return 1_000;
}

/** A Node's Ready condition (machine-api-operator pkg/controller/machineset/status.go `IsNodeReady`). */
function nodeReady(node: JsonObject | undefined): boolean {
  return objects(get(node, "status", "conditions")).find((x) => x.type === "Ready")?.status === "True";
}

/** The machine controller with a played cloud actuator, and the node link controller, for Windows Machines. */
export class MachineActuatorPlayer implements Player {
  readonly name = PLAYER;
  private informers: Informer[] = [];
  private queues: Queue[] = [];
  private s?: MachineState;
  private readonly readyCache = new Map<string, boolean>();

  constructor(private readonly kube: Kube) {}

  async start(): Promise<void> {
    const kube = this.kube;
    const machineQ = new Queue(PLAYER, "Machine", (n) => reconcileMachine(this.state(), n), 10_000);
    const linkQ = new Queue(PLAYER, "Node link", (n) => this.link(n));
    this.queues = [machineQ, linkQ];
    const machines = new Informer(
      kube,
      PLAYER,
      resourcePath(MACHINE_API, "machines", MACHINE_NAMESPACE),
      {},
      (_v, m) => {
        if (!isWindowsMachine(m)) return;
        machineQ.add(metaOf(m).name);
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
    this.informers = [machines, nodes];
    this.s = { kube, recorder: new Recorder(kube, PLAYER), machines, nodes };
    await startSynced(this.informers, this.queues);
  }

  stop(): void {
    stopAll(this.informers, this.queues);
  }

  private state(): MachineState {
    if (!this.s) throw new Error("machine-actuator player not started");
    return this.s;
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
    const ready = nodeReady(node);
    const refOk = get(machine, "status", "nodeRef", "uid") === nm.uid;
    if (!refOk || this.readyCache.get(nodeName) !== ready) {
      await s.kube.patch(machinePath(name, "status"), {
        status: {
          nodeRef: { kind: "Node", name: nodeName, uid: nm.uid },
          lastUpdated: now(),
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
