/**
 * WMCO's ConfigMap controller for BYOH hosts (controllers/configmap_controller.go `Reconcile` → `reconcileNodes`):
 * `windows-instances` in the operator's namespace is parsed all or nothing (pkg/wiparser/wiparser.go `Parse`,
 * `extractUsername`; a missing ConfigMap reads as empty), every listed host is configured in turn stopping at the
 * first failure (`ensureInstancesAreUpToDate`, Warning `InstanceSetupFailure` on the ConfigMap, Normal
 * `InstanceSetup` per host), and BYOH nodes no longer listed are deconfigured and deleted (`deconfigureInstances`,
 * `hasAssociatedInstance`, controllers.go `deconfigureInstance`, Normal `InstanceTeardown`). A parse error is only
 * returned (controller-runtime logs it and retries with backoff): WMCO records no event for it.
 *
 * Lab conventions: a host's Node is named after the first label of its DNS name, lower-cased (the kubelet's
 * hostname), or `win-a-b-c-d` for an IPv4 address; the kubelet registers InternalIP = the resolved IPv4 (WMCO passes
 * `--node-ip` on platform None) and Hostname = the node name. Names resolve through `--resolve name=ip`, then the
 * system resolver (ip4 only, as `net.ResolveIPAddr("ip4", ...)`). Deconfiguring takes `--deconfigure-delay-ms` (a
 * requeue, not a sleep) standing for drain, WICD cleanup and file removal. Not played: reverse DNS (PTR) matching
 * of DNS entries, username decryption before deconfiguring.
 */
import * as dns from "dns";
import * as net from "net";
import { get, objects, stringMap } from "../../lib/json";
import { errText, JsonObject, metaOf, say } from "./kube";
import { WINDOWS_BUILD_LABEL } from "./kubelet";
import {
  annotationsOf,
  applyMetadata,
  BYOH_LABEL,
  cordon,
  drain,
  ensureInstanceIsUpToDate,
  goAddresses,
  Instance,
  PLAYER,
  signerFor,
  sshFailure,
  unreachable,
  UpgradeLimitExceededError,
  usableAddress,
  USERNAME_ANNOTATION,
  VERSION_ANNOTATION,
  WmcoContext,
  WORKER_LABEL,
} from "./wmco-config";
import { encryptToJSONString } from "./wmco-keys";
import { operatorMayReach } from "./network";

/** pkg/wiparser/wiparser.go `InstanceConfigMap` */
export const INSTANCES_CONFIGMAP = "windows-instances";

/** `extractUsername`: `strings.SplitN(value, "=", 2)`, first part exactly `username`, nothing trimmed. */
function extractUsername(value: string): string {
  const i = value.indexOf("=");
  const first = i < 0 ? value : value.slice(0, i);
  if (first !== "username") throw new Error("data has an incorrect format");
  // A bare `username` passes the check and then indexes past the slice: WMCO panics (controller-runtime recovers).
  if (i < 0) throw new Error("panic: runtime error: index out of range [1] with length 1 [recovered]");
  return value.slice(i + 1);
}

/** `net.ResolveIPAddr("ip4", address)`. */
async function resolveIPv4(w: WmcoContext, address: string): Promise<string> {
  if (net.isIPv4(address)) return address;
  if (net.isIPv6(address)) throw new Error(`address ${address}: no suitable address found`);
  const known = w.hosts.get(address.toLowerCase());
  if (known) return known;
  try {
    return (await dns.promises.lookup(address, { family: 4 })).address;
  } catch {
    throw new Error(`lookup ${address}: no such host`);
  }
}

export const nodeNameFor = (address: string) =>
  net.isIPv4(address) ? `win-${address.replace(/\./g, "-")}` : address.split(".")[0].toLowerCase();

/** `Parse`: every entry or an error; each instance with the BYOH node that has its IPv4 (`nodeutil.FindByAddress`). */
async function parse(w: WmcoContext, data: Record<string, string>, nodes: JsonObject[]): Promise<Instance[]> {
  const out: Instance[] = [];
  for (const [address, value] of Object.entries(data)) {
    let username: string;
    try {
      username = extractUsername(value);
    } catch (e) {
      throw new Error(`unable to get username for ${address}: ${errText(e)}`);
    }
    const ipv4 = await resolveIPv4(w, address);
    const node = nodes.find((n) => objects(get(n, "status", "addresses")).some((a) => a.address === ipv4));
    const nodeName = nodeNameFor(address);
    out.push({
      address,
      ipv4,
      username,
      node,
      nodeName,
      addresses: [
        { type: "InternalIP", address: ipv4 },
        { type: "Hostname", address: nodeName },
      ],
      windowsBuild: (node && metaOf(node).labels[WINDOWS_BUILD_LABEL]) || "10.0.20348",
    });
  }
  return out;
}

/** `hasAssociatedInstance`: a node address equal to an entry's address or its IPv4 (the PTR lookup is not played). */
function hasAssociatedInstance(node: JsonObject, instances: Instance[]): boolean {
  const addresses = objects(get(node, "status", "addresses")).map((a) => a.address);
  return addresses.some((a) => instances.some((i) => a === i.address || a === i.ipv4));
}

/** Nodes being deconfigured, and since when (the staged stand-in for drain + WICD cleanup + file removal). */
const deconfiguring = new Map<string, number>();

/**
 * `deconfigureInstance`: needs the username annotation and an address, reaches the host, cordons and drains, waits
 * for the cleanup, then deletes the Node. Returns "done" or when to look again.
 */
async function deconfigureInstance(w: WmcoContext, node: JsonObject): Promise<"done" | number> {
  const name = metaOf(node).name;
  if (!annotationsOf(node)[USERNAME_ANNOTATION])
    throw new Error("unable to create instance object from node: node is missing valid username annotation");
  const address = usableAddress(node);
  if (!address) throw new Error("unable to create instance object from node: no usable address");
  const ns = w.operator()?.namespace;
  if (unreachable(address) || (ns !== undefined && !(await operatorMayReach(w.kube, ns, address))))
    throw sshFailure({ address, ipv4: address });
  const started = deconfiguring.get(name);
  if (started === undefined) {
    deconfiguring.set(name, Date.now());
    say(PLAYER, `deconfiguring node ${name} (${address} is no longer in ${INSTANCES_CONFIGMAP})`);
    await cordon(w, name, true);
    await drain(w, name);
    return w.deconfigureDelayMs;
  }
  const left = started + w.deconfigureDelayMs - Date.now();
  if (left > 0) return left;
  if ((await drain(w, name)) > 0) return 1_000;
  w.kubelets.halt(name, "WICD cleanup");
  await applyMetadata(w, name, {}, { [VERSION_ANNOTATION]: null });
  await w.kube.remove(`/api/v1/nodes/${encodeURIComponent(name)}`);
  deconfiguring.delete(name);
  say(PLAYER, `instance ${address} has been deconfigured and node ${name} deleted`);
  return "done";
}

/** `reconcileNodes` for `windows-instances`. Returns a delay when a deconfiguration is under way. */
export async function reconcileInstances(w: WmcoContext): Promise<number | void> {
  const op = w.operator();
  if (!op) return;
  const signer = signerFor(w, op, "unable to create signer from private key secret");
  const cm = w.instanceMaps.get(INSTANCES_CONFIGMAP, op.namespace);
  // The events of a successful pass go to a ConfigMap WMCO builds from the name alone (no uid).
  const stub: JsonObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: INSTANCES_CONFIGMAP, namespace: op.namespace },
  };
  const normal = (reason: string, message: string) => w.recorder.event("configmap", stub, "Normal", reason, message);
  const nodes = w.nodes
    .list()
    .filter((n) => metaOf(n).labels[BYOH_LABEL] === "true" && metaOf(n).labels["kubernetes.io/os"] === "windows");
  let instances: Instance[];
  try {
    instances = await parse(w, stringMap(get(cm, "data")), nodes);
  } catch (e) {
    throw new Error(`unable to parse instances from ConfigMap: ${errText(e)}`);
  }
  for (const inst of instances) {
    try {
      await ensureInstanceIsUpToDate(w, op, signer, inst, { [BYOH_LABEL]: "true", [WORKER_LABEL]: "" }, () => ({
        [USERNAME_ANNOTATION]: encryptToJSONString(inst.username, signer.pem),
      }));
    } catch (e) {
      if (e instanceof UpgradeLimitExceededError) {
        say(PLAYER, e.message);
        return 10_000;
      }
      const message = `error configuring host with address ${inst.address}: ${errText(e)}`;
      await w.recorder.event("configmap", cm ?? stub, "Warning", "InstanceSetupFailure", message);
      throw new Error(message);
    }
    await normal("InstanceSetup", `Configured instance with address ${inst.address} as a worker node`);
  }
  let again: number | undefined;
  for (const node of nodes) {
    if (hasAssociatedInstance(node, instances)) {
      deconfiguring.delete(metaOf(node).name);
      continue;
    }
    let r: "done" | number;
    try {
      r = await deconfigureInstance(w, node);
    } catch (e) {
      throw new Error(
        `error removing undesired nodes from cluster: unable to deconfigure instance with node ${metaOf(node).name}: ${errText(e)}`,
      );
    }
    if (r === "done") await normal("InstanceTeardown", `Deconfigured node with addresses ${goAddresses(node)}`);
    else again = Math.min(again ?? r, r);
  }
  return again;
}
