/**
 * Checks that a change of the WMCO key can complete, before anything touches the cluster.
 *
 * - vSphere: a Windows VM never reads its vSphere user data (WMCO renames the host itself because "we don't have an
 *   equivalent of ignition in Windows": controllers/windowsmachine_controller.go), so the key a new Machine authorizes
 *   is the one in the golden template (docs/vsphere-golden-image.md, "This public key must correspond to private key
 *   present in the secret"). On a key change WMCO deletes every Machine whose Node's `pub-key-hash` is stale; the
 *   Machine API re-creates it from the template, WMCO's SSH login fails (`MachineSetupFailure` "Machine <name>
 *   authentication failure") and it deletes the Machine again, for ever (same file, `Reconcile`). WMCO's own rotation
 *   test skips vSphere for this reason (test/e2e/secrets_test.go `testPrivateKeyChange`).
 * - BYOH: on a key change WMCO re-annotates each BYOH Node with the username it finds under one of the Node's
 *   `status.addresses` in `windows-instances`, by exact match (pkg/wiparser `GetNodeUsername`), and returns on the first
 *   miss before it rewrites `windows-user-data` (controllers/secret_controller.go `updateUserData`): a host whose key is
 *   a DNS name that is not one of its Node's addresses stops the rotation for every node.
 *
 * Pure, apart from `resolveIpv4` and `rotationIssues`, which resolve names (the key WMCO uses now comes from discovery).
 */
import { promises as dns } from "dns";
import { isIPv4 } from "net";
import { ConfigIssue } from "../../stacks/config-issue";
import type { ParsedKey } from "../../stacks/key";
import type { MachineSetConfig } from "../../stacks/schema/machinesets";
import type { ByohHostConfig } from "../../stacks/schema/byoh";
import { hostKeyMatches, isUsablePin, keyBlob } from "../../providers/ssh/host-key";
import { fingerprint } from "../../lib/ssh-wire";
import type { NodeObject } from "../../providers/day2/inventory";
import { BYOH_NODE_LABEL, MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { messageOf } from "../../lib/errors";
import { wmcoUpgradeRefusal, wmcoUpgradingNodes } from "../../providers/day2/wmco-upgrade";

const KEY_LINE = /\b((?:ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(?:256|384|521)) AAAA[A-Za-z0-9+/]+=*)/;

/**
 * The public key WMCO wrote into `windows-user-data` (`userData`, a PowerShell script that writes the key into
 * `administrators_authorized_keys`: pkg/secrets/secrets.go `generateUserDataWithPubKey`), as `<type> <base64>`.
 */
export function userDataPublicKey(userData: string): string | undefined {
  return KEY_LINE.exec(userData)?.[1];
}

/** A change of the WMCO key: the key WMCO uses now (read from the cluster) and the stack's. */
interface KeyChange {
  from: string;
  to: string;
}

/** The change of key this update makes, or undefined when there is none or either side is unknown. */
export function keyChange(current: string | undefined, next: ParsedKey | undefined): KeyChange | undefined {
  const blob = current === undefined ? undefined : keyBlob(current);
  const from = blob && fingerprint(blob);
  if (!from || !next || from === next.fingerprint) return undefined;
  return { from, to: next.fingerprint };
}

const UNREADABLE =
  "is neither an OpenSSH public-key line nor a SHA256 fingerprint: give the key line of the template's administrators_authorized_keys, or `ssh-keygen -lf <key.pub>`'s SHA256:… value";

/**
 * From the config alone: every `machineSets[i].vsphere.templateKeys` entry is readable, and the stack's WMCO key is one
 * of them, since a template without it makes every new Machine of the set fail WMCO's login. Without the key (synth
 * with an encrypted key) only the entries' form is checked.
 */
export function templateKeyIssues(sets: readonly MachineSetConfig[], key: ParsedKey | undefined): ConfigIssue[] {
  return sets.flatMap((set, i): ConfigIssue[] => {
    const keys = set.vsphere?.templateKeys;
    if (!keys) return [];
    const at = `machineSets[${i}].vsphere.templateKeys`;
    const unreadable = keys.flatMap((k, j) => (isUsablePin(k) ? [] : [{ path: `${at}[${j}]`, message: UNREADABLE }]));
    if (unreadable.length > 0 || !key) return unreadable;
    const blob = keyBlob(key.publicKey) ?? Buffer.alloc(0);
    if (keys.some((k) => hostKeyMatches(k, blob))) return [];
    return [
      {
        path: at,
        message:
          `the template ${set.vsphere?.template} holds other keys than the stack's WMCO key ${key.fingerprint}: a vSphere ` +
          "Machine gets its key from the template, never from user data, so WMCO's login to every new Machine of this set " +
          'would fail ("authentication failure") and WMCO would delete it, in a loop. Put the key into the template (or ' +
          `use one that holds it) and add ${key.fingerprint} here, or set privateKey back to a key the template holds`,
      },
    ];
  });
}

/** An issue at `machineSets[i].vsphere.templateKeys` for each vSphere set that does not state what its template holds. */
function unstatedSets(sets: readonly MachineSetConfig[], message: (template: string) => string): ConfigIssue[] {
  return sets.flatMap((set, i) =>
    set.vsphere && !set.vsphere.templateKeys
      ? [{ path: `machineSets[${i}].vsphere.templateKeys`, message: message(set.vsphere.template) }]
      : [],
  );
}

/**
 * Without discovery (`cluster.discovery: false`, or render mode) the program never reads the key WMCO uses now, so it
 * cannot refuse a key change for a vSphere set that does not say what its template holds (vsphereRotationIssues needs
 * the cluster): warned, from the config alone, for each such set. `discovery` is the stack's own setting at
 * preview/up (synth judges the stack, not its own offline run). The stack's fingerprint is named when known.
 */
export function unstatedTemplateKeys(
  sets: readonly MachineSetConfig[],
  key: ParsedKey | undefined,
  discovery: boolean,
): ConfigIssue[] {
  if (discovery) return [];
  const fingerprint = key?.fingerprint ?? "SHA256:<fingerprint of the key the template holds>";
  return unstatedSets(
    sets,
    (template) =>
      `is not set, and with discovery off the program cannot see a change of the WMCO key: a vSphere Machine ` +
      `gets its key from the template ${template}, so a new key the template lacks would make WMCO ` +
      "replace this set's Machines in a loop, unrefused. Once the template holds the stack's key, say so: " +
      `templateKeys: ["${fingerprint}"] (docs/day2.md#vsphere-templates-and-key-rotation)`,
  );
}

/**
 * At preview/up, when the key is changing: each vSphere set must state (templateKeys, checked above to hold the new
 * key) that its template holds the new key; otherwise the rotation would replace its Machines for ever.
 */
export function vsphereRotationIssues(sets: readonly MachineSetConfig[], change: KeyChange | undefined): ConfigIssue[] {
  if (!change) return [];
  return unstatedSets(
    sets,
    (template) =>
      `is needed for a key rotation: the WMCO key changes from ${change.from} (in ${MACHINE_API_NAMESPACE}/${USER_DATA_SECRET}) ` +
      `to ${change.to}, and a vSphere Machine gets its key from the template ${template}, not from user data. ` +
      "WMCO would delete each Machine of this set for its stale pub-key-hash, and every replacement would fail " +
      "authentication and be deleted again. Build a template that holds the new key, then set templateKeys to " +
      `["${change.to}"] (docs/day2.md#vsphere-templates-and-key-rotation), or keep the previous privateKey`,
  );
}

/** A BYOH Node (label `windowsmachineconfig.openshift.io/byoh=true`) and its `status.addresses`. */
type ByohNode = Pick<NodeObject, "name" | "addresses">;

/** The BYOH Nodes among the Windows Nodes. */
export function byohNodes(nodes: readonly NodeObject[]): ByohNode[] {
  return nodes.filter((n) => n.labels[BYOH_NODE_LABEL] === "true");
}

/**
 * Each BYOH host given by address whose address is not one of its Node's addresses. Its Node is the one with the
 * address the host resolves to (WMCO resolves each key to IPv4 and matches that: pkg/wiparser `Parse`,
 * pkg/nodeutil `FindByAddress`); a host without a Node yet, or whose name did not resolve, is left alone. An error
 * when the key is changing, else a warning that a later rotation would not complete.
 */
export function byohKeyIssues(
  hosts: readonly ByohHostConfig[],
  nodes: readonly ByohNode[],
  resolved: Readonly<Record<string, string | undefined>>,
  change: KeyChange | undefined,
): ConfigIssue[] {
  return hosts.flatMap((h, i): ConfigIssue[] => {
    const key = h.address;
    if (!key) return [];
    const ip = isIPv4(key) ? key : resolved[key];
    const node = ip ? nodes.find((n) => n.addresses.some((a) => a.address === ip)) : undefined;
    if (!node || node.addresses.some((a) => a.address === key)) return [];
    const internal = node.addresses.find((a) => a.type === "InternalIP")?.address ?? ip;
    const hostname = node.addresses.find((a) => a.type === "Hostname")?.address;
    const listed = node.addresses.map((a) => `${a.type} ${a.address}`).join(", ");
    const what = change
      ? `the WMCO key change (${change.from} to ${change.to}) would never complete`
      : "a later change of the WMCO key would never complete";
    return [
      {
        path: `byoh[${i}].address`,
        message:
          `${key} is not one of Node ${node.name}'s addresses (${listed}): WMCO finds a BYOH Node's user by an exact ` +
          `address match in windows-instances before it rewrites ${USER_DATA_SECRET}, so ${what}. Set it to ` +
          `${internal} (the Node's InternalIP)${hostname && hostname !== internal ? ` or ${hostname} (its Hostname, if that name resolves from the WMCO pod)` : ""}` +
          (change ? ", in an up before the key change" : ""),
      },
    ];
  });
}

/**
 * A key change while WMCO rebuilds nodes (its `upgrading` label) would have WMCO re-key nodes it is deconfiguring and
 * delete Machines mid-upgrade: refused like our other node operations (providers/day2/wmco-upgrade.ts).
 */
export function upgradeRotationIssues(
  nodes: readonly { name: string; labels: Record<string, string> }[],
  change: KeyChange | undefined,
): ConfigIssue[] {
  const refusal = change ? wmcoUpgradeRefusal(nodes, `WMCO key change (${change.from} to ${change.to})`) : undefined;
  return refusal ? [{ path: "privateKey", message: refusal }] : [];
}

/** Resolves each name (IPv4 literals as themselves) as WMCO would (`ResolveIPAddr("ip4")`), from here. */
export async function resolveIpv4(
  names: readonly string[],
  timeoutMs = 5_000,
): Promise<Record<string, string | undefined>> {
  const entries = await Promise.all(
    names.map(async (name): Promise<[string, string | undefined]> => {
      if (isIPv4(name)) return [name, name];
      const lookup = dns.lookup(name, { family: 4 }).then(
        (r) => r.address,
        () => undefined,
      );
      const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref());
      return [name, await Promise.race([lookup, late])];
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Every rotation check at preview/up: reads the key WMCO uses now, resolves the BYOH addresses that are names, and
 * checks the vSphere sets and BYOH hosts against the key change (errors) or a later one (warnings).
 */
export async function rotationIssues(
  cfg: {
    privateKey: { parsed?: ParsedKey };
    machineSets: readonly MachineSetConfig[];
    byoh: readonly ByohHostConfig[];
  },
  windowsNodes: readonly NodeObject[],
  /** The public key in `windows-user-data` now, read by discovery (machinesets/discover.ts `wmcoPublicKey`). */
  currentWmcoKey: () => Promise<string | undefined>,
): Promise<{ errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const upgrading = wmcoUpgradingNodes(windowsNodes).length > 0;
  // Only vSphere sets, BYOH hosts and a WMCO upgrade can keep a rotation from completing; other stacks read nothing
  // more.
  if (!cfg.machineSets.some((s) => s.vsphere) && cfg.byoh.length === 0 && !upgrading)
    return { errors: [], warnings: [] };
  let current: string | undefined;
  try {
    current = await currentWmcoKey();
  } catch (e) {
    const message =
      `could not read ${MACHINE_API_NAMESPACE}/${USER_DATA_SECRET} to tell whether the WMCO key changes (${messageOf(e)}): ` +
      "grant the account read access to that Secret, or set discovery: false";
    return { errors: [{ path: "cluster.discovery", message }], warnings: [] };
  }
  const change = keyChange(current, cfg.privateKey.parsed);
  const nodes = byohNodes(windowsNodes);
  const names = nodes.length > 0 ? cfg.byoh.flatMap((h) => (h.address ? [h.address] : [])) : [];
  const byoh = byohKeyIssues(cfg.byoh, nodes, await resolveIpv4(names), change);
  return {
    errors: [
      ...upgradeRotationIssues(windowsNodes, change),
      ...vsphereRotationIssues(cfg.machineSets, change),
      ...(change ? byoh : []),
    ],
    warnings: change ? [] : byoh,
  };
}
