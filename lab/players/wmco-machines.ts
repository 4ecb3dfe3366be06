/**
 * WMCO's Machine controller (controllers/windowsmachine_controller.go `Reconcile`): a Windows Machine
 * (`machine.openshift.io/os-id: Windows`, not `windowsmachineconfig.openshift.io/ignore: "true"`) that is
 * `Provisioned`, or `Running` without a current `version`, is configured over SSH once `windows-user-data` matches
 * the key (`validateUserData`); a `Running` Machine whose node carries a stale `pub-key-hash` is deleted so the Machine
 * API recreates it with the new user data, one unhealthy Machine per MachineSet at a time (`isAllowedDeletion`,
 * `maxUnhealthyCount` 1). Events: `MachineSetup`, `MachineSetupFailure`, `MachineDeleted`,
 * `MachineDeletionRestricted`. The user is `capi` on Azure and `Administrator` elsewhere (`getDefaultUsername`); on
 * vSphere and Nutanix WMCO renames the host to the Machine's name (`configureMachine`). Lab convention: the Node is
 * named after the Machine's `Hostname` address, which the played actuator sets (lab/players/machine-actuator.ts). An
 * instance that does not accept the current key (the actuator's `lab.windows-estate/authorized-key-hashes`: on vSphere
 * the template's key) is WMCO's `AuthErr`: Warning `MachineSetupFailure` "Machine <name> authentication failure", and
 * the Machine is deleted, so a rotation with a template of the old key loops as it does upstream.
 */
import { get, objects, str } from "../../lib/json";
import { errText, JsonObject, metaOf, resourcePath, say } from "./kube";
import { WINDOWS_BUILD_LABEL } from "./kubelet";
import {
  annotationsOf,
  ensureInstanceIsUpToDate,
  MACHINE_API_NAMESPACE,
  IGNORE_LABEL,
  MACHINE_OS_LABEL,
  Operator,
  PLAYER,
  PUB_KEY_HASH_ANNOTATION,
  Signer,
  signerFor,
  UpgradeLimitExceededError,
  USER_DATA_SECRET,
  USERNAME_ANNOTATION,
  VERSION_ANNOTATION,
  WmcoContext,
} from "./wmco-config";
import { encryptToJSONString } from "./wmco-keys";
import { userData } from "./wmco-userdata";
import { AUTHORIZED_KEYS_ANNOTATION } from "./machine-actuator";

const MAX_UNHEALTHY = 1;

/** `validateUserData`: the Secret exists and its `userData` is exactly what this key gives. */
async function validateUserData(w: WmcoContext, signer: Signer): Promise<void> {
  const secret = w.userDataSecrets.get(USER_DATA_SECRET, MACHINE_API_NAMESPACE);
  if (!secret)
    throw new Error(
      `could not find Windows userData secret in required namespace: secrets "${USER_DATA_SECRET}" not found`,
    );
  const have = Buffer.from(str(get(secret, "data", "userData")) ?? "", "base64").toString("utf8");
  if (have !== userData(await w.platform(), signer.authorizedKey))
    throw new Error("invalid content for userData secret");
}

/** `isWindowsMachineHealthy`: Running or linked to a node, and that node has a `version`. */
function healthy(w: WmcoContext, m: JsonObject): boolean {
  const ref = str(get(m, "status", "nodeRef", "name"));
  if (get(m, "status", "phase") !== "Running" && !ref) return false;
  const node = ref ? w.nodes.get(ref) : undefined;
  return node !== undefined && VERSION_ANNOTATION in annotationsOf(node);
}

/** `isAllowedDeletion`: always with one replica, else only while no other Machine of the set is unhealthy. */
async function isAllowedDeletion(w: WmcoContext, machine: JsonObject): Promise<boolean> {
  const owner = metaOf(machine).ownerReferences[0];
  if (!owner) throw new Error("machine has no owner reference");
  const setName = str(owner.name) ?? "";
  const set = await w.kube.get(
    resourcePath("machine.openshift.io/v1beta1", "machinesets", MACHINE_API_NAMESPACE, setName),
  );
  if (!set) throw new Error(`cannot get MachineSet: machinesets.machine.openshift.io "${setName}" not found`);
  const replicas = Number(get(set, "spec", "replicas") ?? 0);
  if (replicas === MAX_UNHEALTHY) return true;
  const siblings = w.machines.list(MACHINE_API_NAMESPACE).filter((m) => metaOf(m).ownerReferences[0]?.name === setName);
  const healthyCount = siblings.filter((m) => healthy(w, m) && !metaOf(m).deleting).length;
  return replicas - healthyCount < MAX_UNHEALTHY;
}

/** The Windows Server build a Machine boots: a label set for the node, else the image name, else 2022. */
function windowsBuild(machine: JsonObject): string {
  const label = str(get(machine, "spec", "metadata", "labels", WINDOWS_BUILD_LABEL));
  if (label) return label;
  const image = JSON.stringify(get(machine, "spec", "providerSpec", "value") ?? {});
  return /2019/.test(image) ? "10.0.17763" : /2025/.test(image) ? "10.0.26100" : "10.0.20348";
}

export async function reconcileMachine(w: WmcoContext, name: string): Promise<number | void> {
  const op: Operator | undefined = w.operator();
  if (!op) return;
  const signer = signerFor(w, op, `unable to get signer from secret ${MACHINE_API_NAMESPACE}/${name}`);
  const machine = w.machines.get(name, MACHINE_API_NAMESPACE);
  if (!machine || metaOf(machine).labels[MACHINE_OS_LABEL] !== "Windows") return;
  // The controller's events are about the Machine (windowsmachine_controller.go `r.recorder.Eventf(machine, …)`).
  const event = (type: "Normal" | "Warning", reason: string, message: string) =>
    w.recorder.event("windowsmachine", machine, type, reason, message);
  const phase = str(get(machine, "status", "phase"));
  if (!phase) throw new Error(`could not get the phase associated with machine ${name}`);
  let node: JsonObject | undefined;
  if (phase === "Running") {
    const ref = str(get(machine, "status", "nodeRef", "name"));
    if (!ref) throw new Error(`ready Windows machine ${name} missing NodeRef`);
    node = w.nodes.get(ref) ?? (await w.kube.get(resourcePath("v1", "nodes", undefined, ref)));
    if (!node) {
      say(PLAYER, `the node associated with machine ${name} does not exist, no-op`);
      return;
    }
    const ann = annotationsOf(node);
    if (VERSION_ANNOTATION in ann) {
      if (ann[PUB_KEY_HASH_ANNOTATION] !== signer.hash) {
        if (!(await isAllowedDeletion(w, machine))) {
          await event(
            "Warning",
            "MachineDeletionRestricted",
            `Machine ${name} deletion restricted as the maximum unhealthy machines can\`t exceed ${MAX_UNHEALTHY} count`,
          );
          return 10_000;
        }
        if (metaOf(machine).deleting) return;
        await w.kube.remove(resourcePath("machine.openshift.io/v1beta1", "machines", MACHINE_API_NAMESPACE, name));
        say(PLAYER, `machine ${name} has been remediated by deletion (its node has a stale public key hash)`);
        await event("Normal", "MachineDeleted", `Machine ${name} has been remediated by deleting the Machine object`);
        return;
      }
      if (ann[VERSION_ANNOTATION] === op.version) return;
    }
  } else if (phase !== "Provisioned") return;

  try {
    await validateUserData(w, signer);
  } catch (e) {
    throw new Error(`error validating userData secret: ${errText(e)}`);
  }
  const addresses = objects(get(machine, "status", "addresses")).map((a) => ({
    type: str(a.type) ?? "",
    address: str(a.address) ?? "",
  }));
  const ip = addresses.find((a) => a.type === "InternalIP" && /^\d+\.\d+\.\d+\.\d+$/.test(a.address))?.address;
  if (!ip) throw new Error(`invalid machine ${name}: no IP addresses defined`);
  const providerID = str(get(machine, "spec", "providerID")) ?? "";
  if (!providerID) throw new Error(`empty provider ID associated with machine ${name}`);
  const instanceID = providerID.split("/").pop() ?? "";
  const platform = await w.platform();
  const username = platform === "Azure" ? "capi" : "Administrator";
  const renamed = platform === "VSphere" || platform === "Nutanix";
  const hostname = renamed ? name : (addresses.find((a) => a.type === "Hostname")?.address ?? name);
  say(PLAYER, `processing machine ${name} at ${ip}`);
  // `configureMachine` → an SSH `AuthErr`: not recoverable, the Machine must be re-created (and is deleted at once).
  const accepted = str(get(machine, "metadata", "annotations", AUTHORIZED_KEYS_ANNOTATION));
  if (accepted !== undefined && !accepted.split(",").includes(signer.hash)) {
    await event("Warning", "MachineSetupFailure", `Machine ${name} authentication failure`);
    if (!metaOf(machine).deleting)
      await w.kube.remove(resourcePath("machine.openshift.io/v1beta1", "machines", MACHINE_API_NAMESPACE, name));
    say(PLAYER, `machine ${name} has been remediated by deletion (it does not accept the current key)`);
    return;
  }
  try {
    await ensureInstanceIsUpToDate(
      w,
      op,
      signer,
      {
        address: ip,
        ipv4: ip,
        username,
        node,
        nodeName: hostname,
        addresses: renamed ? addresses.map((a) => (a.type === "Hostname" ? { ...a, address: name } : a)) : addresses,
        providerID,
        windowsBuild: windowsBuild(machine),
      },
      {},
      () => ({ [USERNAME_ANNOTATION]: encryptToJSONString(username, signer.pem) }),
    );
  } catch (e) {
    if (e instanceof UpgradeLimitExceededError) {
      say(PLAYER, e.message);
      return 10_000;
    }
    await event("Warning", "MachineSetupFailure", `Machine ${name} configuration failure`);
    throw new Error(`unable to configure instance ${instanceID}: ${errText(e)}`);
  }
  await event("Normal", "MachineSetup", `Machine ${name} configured successfully`);
}

/** The predicate of the Machine watch (`isValidMachine`, `isWindowsMachine`): phase set and an InternalIP. */
export function isValidWindowsMachine(m: JsonObject): boolean {
  const meta = metaOf(m);
  return (
    meta.labels[MACHINE_OS_LABEL] === "Windows" &&
    meta.labels[IGNORE_LABEL] !== "true" &&
    Boolean(str(get(m, "status", "phase"))) &&
    objects(get(m, "status", "addresses")).some((a) => a.type === "InternalIP")
  );
}
