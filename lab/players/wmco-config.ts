/**
 * How WMCO turns an instance into a node and back, shared by BYOH instances and Machines: controllers/controllers.go
 * `ensureInstanceIsUpToDate` (up to date → nothing; configured by another version → `markNodeAsUpgrading`,
 * deconfigure, configure), pkg/nodeconfig/nodeconfig.go `Configure` (cordon, bootstrap through WICD so the kubelet
 * registers the Node, labels and annotations, `desired-version`, wait for WICD to report `version`, uncordon, drop
 * the `upgrading` label) and `Deconfigure` (cordon, drain, WICD cleanup). Names are pkg/metadata/metadata.go's and
 * pkg/nodeconfig's. Played: the SSH session (an address in an RFC 5737 TEST-NET, or one the NetworkPolicies of WMCO's
 * namespace keep its pod from, lab/players/network.ts, is unreachable and fails at once with WMCO's error, where WMCO
 * retries for 10 minutes), WICD (it writes `version` = `desired-version` right away), the
 * host's files and services. Not played: the SSH host key pin annotations, the services ConfigMap, reboots.
 */
import { get, objects, str } from "../../lib/json";
import { errText, JsonObject, Kube, metaOf, resourcePath, say } from "./kube";
import { Informer } from "./informer";
import { Recorder } from "./events";
import { Kubelets, WINDOWS_OS_ID_LABEL } from "./kubelet";
import { authorizedKey, pubKeyHash } from "./wmco-keys";
import { operatorMayReach } from "./network";

export const PLAYER = "wmco";
export const MACHINE_API_NAMESPACE = "openshift-machine-api";
export const CLUSTER_API_NAMESPACE = "openshift-cluster-api";
/** pkg/secrets/secrets.go */
export const PRIVATE_KEY_SECRET = "cloud-private-key";
export const PRIVATE_KEY_DATA = "private-key.pem";
export const USER_DATA_SECRET = "windows-user-data";
/** pkg/metadata/metadata.go, pkg/nodeconfig/nodeconfig.go, controllers/configmap_controller.go */
export const VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/version";
export const DESIRED_VERSION_ANNOTATION = "windowsmachineconfig.openshift.io/desired-version";
export const UPGRADING_LABEL = "windowsmachineconfig.openshift.io/upgrading";
export const PUB_KEY_HASH_ANNOTATION = "windowsmachineconfig.openshift.io/pub-key-hash";
export const USERNAME_ANNOTATION = "windowsmachineconfig.openshift.io/username";
export const BYOH_LABEL = "windowsmachineconfig.openshift.io/byoh";
export const WORKER_LABEL = "node-role.kubernetes.io/worker";
/** controllers/windowsmachine_controller.go `MachineOSLabel`, `IgnoreLabel` */
export const MACHINE_OS_LABEL = "machine.openshift.io/os-id";
export const IGNORE_LABEL = "windowsmachineconfig.openshift.io/ignore";
/** controllers/controllers.go `MaxParallelUpgrades` */
const MAX_PARALLEL_UPGRADES = 1;

/** The running operator: its namespace (OwnNamespace) and `version.Get()`, `<semver>-<commit>`. */
export interface Operator {
  namespace: string;
  version: string;
}

export interface Signer {
  pem: Buffer;
  authorizedKey: string;
  hash: string;
}

export interface WmcoContext {
  kube: Kube;
  recorder: Recorder;
  kubelets: Kubelets;
  nodes: Informer;
  machines: Informer;
  keySecrets: Informer;
  userDataSecrets: Informer;
  instanceMaps: Informer;
  deconfigureDelayMs: number;
  /** Static names for hosts the lab's resolver does not know (`--resolve name=ip`). */
  hosts: Map<string, string>;
  operator(): Operator | undefined;
  platform(): Promise<string>;
}

/** An instance to configure (pkg/instance/instance.go `Info`) plus what the kubelet will register. */
export interface Instance {
  address: string;
  ipv4: string;
  username: string;
  node?: JsonObject;
  nodeName: string;
  addresses: { type: string; address: string }[];
  providerID?: string;
  windowsBuild: string;
}

export class UpgradeLimitExceededError extends Error {}

export const annotationsOf = (o: unknown) => metaOf(o).annotations;
const nodePath = (name: string) => resourcePath("v1", "nodes", undefined, name);

/** signer.Create → secrets.GetPrivateKey + ssh.ParsePrivateKey, their errors wrapped in the caller's `context`. */
export function signerFor(w: WmcoContext, op: Operator, context: string): Signer {
  try {
    const secret = w.keySecrets.get(PRIVATE_KEY_SECRET, op.namespace);
    if (!secret) throw new Error(`secrets "${PRIVATE_KEY_SECRET}" not found`);
    const data = str(get(secret, "data", PRIVATE_KEY_DATA));
    if (!data) throw new Error(`cloud-private-key missing 'private-key.pem' secret`);
    const pem = Buffer.from(data, "base64");
    const line = authorizedKey(pem);
    return { pem, authorizedKey: line, hash: pubKeyHash(line) };
  } catch (e) {
    throw new Error(`${context}: ${errText(e)}`);
  }
}

/** RFC 5737 documentation ranges: the lab's unreachable hosts. */
export function unreachable(ipv4: string): boolean {
  return /^(192\.0\.2|198\.51\.100|203\.0\.113)\./.test(ipv4);
}

export function sshFailure(inst: { address: string; ipv4: string }): Error {
  return new Error(
    `failed to create new nodeconfig: error instantiating Windows instance from VM: unable to setup VM ${inst.address} ` +
      `sshConnectivity: unable to connect to Windows VM ${inst.ipv4}: timed out waiting for the condition`,
  );
}

/** pkg/metadata `ApplyLabelsAndAnnotations` (WMCO sends a JSON patch of `add`s; a merge patch does the same here). */
export async function applyMetadata(
  w: WmcoContext,
  name: string,
  labels: Record<string, string | null>,
  annotations: Record<string, string | null>,
): Promise<void> {
  const metadata: JsonObject = {};
  if (Object.keys(labels).length) metadata.labels = labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  await w.kube.patch(nodePath(name), { metadata });
}

/** kubectl drain's `RunCordonOrUncordon`. */
export const cordon = (w: WmcoContext, name: string, on: boolean) =>
  w.kube.patch(nodePath(name), { spec: { unschedulable: on ? true : null } });

/**
 * drain.Helper with Force, IgnoreAllDaemonSets, DeleteEmptyDirData (nodeconfig.go `newDrainHelper`): evicts every
 * pod on the node but DaemonSet and mirror pods; returns how many such pods are still there.
 */
export async function drain(w: WmcoContext, name: string): Promise<number> {
  const list = await w.kube.request("GET", `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`);
  const pods = objects(get(list, "items")).filter(
    (p) =>
      !metaOf(p).ownerReferences.some((o) => o.kind === "DaemonSet") &&
      !("kubernetes.io/config.mirror" in metaOf(p).annotations),
  );
  for (const p of pods.filter((x) => !metaOf(x).deleting)) {
    const m = metaOf(p);
    try {
      await w.kube.create(resourcePath("v1", "pods", m.namespace, m.name, "eviction"), {
        apiVersion: "policy/v1",
        kind: "Eviction",
        metadata: { name: m.name, namespace: m.namespace },
      });
      say(PLAYER, `evicted pod ${m.namespace}/${m.name} from ${name}`);
    } catch (e) {
      say(PLAYER, `evicting pod ${m.namespace}/${m.name} from ${name} failed: ${errText(e)}`);
    }
  }
  return pods.length;
}

/** Nodes this process labelled `upgrading` and has not finished. */
const claimedUpgrades = new Set<string>();

/** controllers.go `markNodeAsUpgrading`: at most MaxParallelUpgrades Windows nodes carry the upgrading label. */
async function markNodeAsUpgrading(w: WmcoContext, node: JsonObject): Promise<void> {
  const name = metaOf(node).name;
  // WMCO holds `controllerLocker` while it lists and labels; here the check and the claim happen in one synchronous
  // step, and claims not yet in the cache count too.
  const upgrading = new Set([
    ...w.nodes
      .list()
      .filter((n) => metaOf(n).labels[UPGRADING_LABEL] === "true")
      .map((n) => metaOf(n).name),
    ...claimedUpgrades,
  ]);
  if (upgrading.has(name)) return;
  if (upgrading.size >= MAX_PARALLEL_UPGRADES)
    throw new UpgradeLimitExceededError(
      `cannot upgrade node ${name}: ${[...upgrading].join(", ")} already upgrading, the limit is ${MAX_PARALLEL_UPGRADES}`,
    );
  claimedUpgrades.add(name);
  await applyMetadata(w, name, { [UPGRADING_LABEL]: "true" }, {});
  say(PLAYER, `node ${name} upgrading`);
}

/**
 * nodeconfig.go `Deconfigure` as an upgrade runs it: cordon, drain, WICD cleanup (services stop, so the kubelet stops
 * and WICD removes the `version` annotation, pkg/daemon/cleanup/cleanup.go).
 */
async function deconfigureForUpgrade(w: WmcoContext, name: string): Promise<void> {
  await cordon(w, name, true);
  await drain(w, name);
  w.kubelets.halt(name, "WICD cleanup");
  await applyMetadata(w, name, {}, { [VERSION_ANNOTATION]: null });
  say(PLAYER, `deconfigured ${name} for an upgrade`);
}

/**
 * controllers.go `ensureInstanceIsUpToDate` + nodeconfig.go `Configure`. Returns whether it configured anything.
 * Throws `UpgradeLimitExceededError` when another node is upgrading.
 */
export async function ensureInstanceIsUpToDate(
  w: WmcoContext,
  op: Operator,
  signer: Signer,
  inst: Instance,
  labels: Record<string, string>,
  annotations: () => Record<string, string>,
): Promise<boolean> {
  const current = inst.node ? annotationsOf(inst.node)[VERSION_ANNOTATION] : undefined;
  if (inst.node && current === op.version) return false;
  if (unreachable(inst.ipv4) || !(await operatorMayReach(w.kube, op.namespace, inst.ipv4))) throw sshFailure(inst);
  if (inst.node && current !== undefined) {
    await markNodeAsUpgrading(w, inst.node);
    await deconfigureForUpgrade(w, metaOf(inst.node).name);
  }
  const name = inst.node ? metaOf(inst.node).name : inst.nodeName;
  if (inst.node) await cordon(w, name, true);
  say(PLAYER, `configuring ${inst.address} as node ${name}`);
  // WICD bootstrap starts containerd and kubelet: the kubelet registers the Node (setNode finds it by address).
  await w.kubelets.register({
    name,
    addresses: inst.addresses,
    labels: { [WINDOWS_OS_ID_LABEL]: "Windows" },
    providerID: inst.providerID,
    windowsBuild: inst.windowsBuild,
  });
  await cordon(w, name, true);
  await applyMetadata(w, name, labels, { [PUB_KEY_HASH_ANNOTATION]: signer.hash, ...annotations() });
  await applyMetadata(w, name, {}, { [DESIRED_VERSION_ANNOTATION]: op.version });
  // WICD's controller (pkg/daemon/controller/controller.go) reconciles the services of the desired version and then
  // reports it in `version`; `WaitForVersionAnnotation` waits for the two to match.
  await applyMetadata(w, name, {}, { [VERSION_ANNOTATION]: op.version });
  await cordon(w, name, false);
  await applyMetadata(w, name, { [UPGRADING_LABEL]: null }, {});
  claimedUpgrades.delete(name);
  say(PLAYER, `instance ${inst.address} has been configured as worker node ${name}, version ${op.version}`);
  return true;
}

/** The node's addresses as Go's `%v` prints a []NodeAddress (for the InstanceTeardown event). */
export function goAddresses(node: JsonObject): string {
  return `[${objects(get(node, "status", "addresses"))
    .map((a) => `{${str(a.type) ?? ""} ${str(a.address) ?? ""}}`)
    .join(" ")}]`;
}

/** controllers.go `GetAddress`: the first InternalIP or InternalDNS that is not IPv6. */
export function usableAddress(node: JsonObject): string | undefined {
  return objects(get(node, "status", "addresses"))
    .filter((a) => a.type === "InternalIP" || a.type === "InternalDNS")
    .map((a) => str(a.address) ?? "")
    .find((a) => a && !a.includes(":"));
}
