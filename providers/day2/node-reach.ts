/**
 * How a day-2 operation reaches one Windows node over SSH, decided from the node's API object and the stack's
 * `nodeAccess` settings: user (WMCO's rule for MachineSet nodes, the `windows-instances` entry for BYOH nodes),
 * address (WMCO's choice), the host key to verify (WMCO's own pin on the Node, a configured pin, or one recorded at
 * first contact), and the path (direct, jump host, through the cluster). Pure.
 */
import { BYOH_NODE_LABEL, SSH_PORT } from "../../facts/wmco";
import { machineSetNodeUser } from "../../facts/day2";
import { hostKeyMatches } from "../ssh/host-key";
import { ClusterTunnel, SshConnection } from "../ssh/types";
import { WindowsNode } from "./inventory";

/** Serializable settings (they travel as a dynamic resource's inputs). */
export interface NodeReachSettings {
  /** The cluster's platform (`AWS`, `Azure`, …): decides the MachineSet node user. */
  platform: string;
  /** The WMCO private key (a secret input). */
  privateKey: string;
  /** BYOH entries: address → username. */
  byohUsers: Record<string, string>;
  /** Configured pins: Node name or address → key line or `SHA256:` fingerprint (nodeAccess.hostKeys, byoh[].hostKey). */
  hostKeys: Record<string, string>;
  /** Keys recorded at first contact by an earlier run, by Node name. */
  recordedHostKeys: Record<string, string>;
  trustOnFirstUse: boolean;
  connectTimeoutSeconds: number;
  /** Set with `via: jumpHost`. */
  jumpHost?: SshConnection;
  /** Set with `via: cluster`. */
  cluster?: ClusterTunnel;
}

export type ReachResult = { connection: SshConnection; hostKey?: string } | { problem: string };

export function reachNode(node: WindowsNode, s: NodeReachSettings): ReachResult {
  const address = node.address;
  if (!address) return { problem: "has no InternalIP or InternalDNS address (IPv4), the way WMCO reaches nodes" };
  let user: string;
  if (node.labels[BYOH_NODE_LABEL] === "true") {
    const entry = Object.keys(s.byohUsers).find((a) => a.toLowerCase() === address.toLowerCase());
    if (!entry)
      return {
        problem: `is a BYOH node at ${address} that windows-estate:byoh does not list; add it there (its username) or leave it out with reboot.nodeSelector`,
      };
    user = s.byohUsers[entry];
  } else user = machineSetNodeUser(s.platform);

  const configured = s.hostKeys[node.name] ?? s.hostKeys[address];
  let hostKey: string | undefined;
  if (node.wmcoHostKey) {
    // WMCO's pin is what WMCO itself will accept; a configured pin that disagrees is a problem to look at, not to
    // choose between silently.
    const blob = Buffer.from(node.wmcoHostKey.split(" ")[1] ?? "", "base64");
    if (configured && !hostKeyMatches(configured, blob))
      return {
        problem: `the host key configured for it (nodeAccess.hostKeys / byoh hostKey) differs from the one WMCO pinned on the Node; check which is right before going on`,
      };
    hostKey = node.wmcoHostKey;
  } else hostKey = configured ?? s.recordedHostKeys[node.name];
  if (!hostKey && !s.trustOnFirstUse)
    return {
      problem: `has no host key to verify: WMCO pinned none on the Node (WMCO before 4.20) and none is configured; set windows-estate:nodeAccess.hostKeys.${node.name} (or trustOnFirstUse: true)`,
    };
  return {
    connection: {
      host: address,
      port: SSH_PORT,
      user,
      privateKey: s.privateKey,
      ...(hostKey ? { hostKey } : { trustOnFirstUse: true }),
      connectTimeoutSeconds: s.connectTimeoutSeconds,
      ...(s.jumpHost ? { proxy: s.jumpHost } : {}),
      ...(s.cluster ? { cluster: s.cluster } : {}),
    },
    ...(hostKey ? { hostKey } : {}),
  };
}
