import * as pulumi from "@pulumi/pulumi";
import type { NetworkAgent } from "./vanilla-node/provider";
import type { Download, ProxyEnv } from "./vanilla-node/scripts";
import type { Taint } from "./vanilla-node/identity";
import type { SshConnection } from "./ssh/types";
import { dynamicResource, kubeAccess, KubeAccessArgs, lockStack, pick, secretIf } from "./dynamic-resource";

export interface VanillaNodeArgs {
  /** How to reach the host (address, user, key, host key). Stored as a secret. */
  connection: pulumi.Input<SshConnection>;
  /** Binaries and archives, each with its published checksum and version (from the node plan). */
  downloads: pulumi.Input<Download[]>;
  /** flannel's VXLAN port (4789). */
  vxlanPort: pulumi.Input<number>;
  /** containerd's config file on the node. */
  containerdConfigPath: pulumi.Input<string>;
  /** Where the join file is written for `kubeadm join`; it is removed right after. */
  joinConfigPath: pulumi.Input<string>;
  /** The JoinConfiguration with the bootstrap token. Stored as a secret. */
  joinConfig: pulumi.Input<string>;
  /**
   * Kubeconfig for drain, Ready, identity and removal ("" for the usual loading order); stored as a secret. Undefined
   * skips the API side.
   */
  kubeconfig?: pulumi.Input<string>;
  context?: pulumi.Input<string>;
  /** Pause between checks, seconds. Default 5. */
  pollSeconds?: pulumi.Input<number>;
  /** The Node's name when the stack sets it; default the host's DNS host name in lower case. */
  nodeName?: pulumi.Input<string>;
  /** The config key that names the node (`windows-estate:nodes[<i>].name`): errors about its name point there. */
  nameKey?: string;
  /** Machine-wide proxy variables for containerd and the kubelet; stored as a secret (a URL may hold credentials). */
  proxy?: pulumi.Input<ProxyEnv>;
  /**
   * The Windows Server release declared for the host ("2022", "2025"): another build on the host stops the converge
   * before anything changes there, and refresh reports it.
   */
  windowsServer?: pulumi.Input<string>;
  /** The kubelet's `--node-ip`, which the CNI conf and flanneld use too; a change re-joins the node. */
  nodeIp?: pulumi.Input<string | undefined>;
  /**
   * The host will never answer: its Node is deleted through the API, nothing is tried over SSH, and deleting this
   * resource afterwards only forgets it (`nodes[].forceRemove`). Default false.
   */
  forceRemove?: pulumi.Input<boolean>;
  /** How many nodes an upgrade may disrupt at once, and how long a node waits for a slot (`kubernetes.upgrade`). */
  upgrade?: pulumi.Input<{ maxUnavailable: number; waitMinutes: number }>;
  /** Labels and taints the Node must carry, and whether to set its providerID from the vSphere BIOS serial. */
  identity?: pulumi.Input<{ labels: Record<string, string>; taints: Taint[]; providerIdAuto: boolean }>;
  /**
   * DaemonSets (namespace, `app` label) whose pod on this node runs a downloaded binary: restarted when that binary is
   * upgraded. Default none.
   */
  networkAgents?: NetworkAgent[];
}

/**
 * One Windows node of a vanilla cluster, converged over SSH (`providers/vanilla-node/`): `pulumi refresh` reports the
 * steps that drifted in `pendingSteps`, `pulumi up` runs exactly those; removing it drains, resets and deletes the Node.
 */
export class VanillaNode extends dynamicResource("VanillaNode", {
  inputs: (args: VanillaNodeArgs) => ({
    connection: pulumi.secret(args.connection),
    joinConfig: pulumi.secret(args.joinConfig),
    proxy: secretIf(args.proxy),
    ...kubeAccess(args),
    ...pick(args, ["downloads", "vxlanPort", "containerdConfigPath", "joinConfigPath", "pollSeconds", "upgrade"]),
    ...pick(args, ["identity", "networkAgents", "nodeName", "nameKey", "windowsServer", "nodeIp", "forceRemove"]),
    lockStack: lockStack(),
  }),
  outputs: [
    "leftOnHost",
    "providerId",
    "hostname",
    "osBuild",
    "osRevision",
    "versions",
    "pendingSteps",
    "hostKeyFingerprint",
  ],
  secretOutputs: ["connection", "joinConfig", "kubeconfig", "proxy", "machineProxy"],
}) {
  declare readonly nodeName: pulumi.Output<string>;
  declare readonly hostname: pulumi.Output<string>;
  declare readonly osBuild: pulumi.Output<string>;
  /** The host's update build revision (UBR), as the kubelet reports it in the Node's kernelVersion. */
  declare readonly osRevision: pulumi.Output<number>;
  declare readonly versions: pulumi.Output<Record<string, string>>;
  declare readonly pendingSteps: pulumi.Output<string[]>;
  /** After `forceRemove`: what stays on the host, which nobody could clean up. */
  declare readonly leftOnHost: pulumi.Output<string | undefined>;
  declare readonly hostKeyFingerprint: pulumi.Output<string>;
  // The host key the node was verified with stays in its state (the provider pins it on every later session) and is
  // no property: an output that is not an input is unknown at preview whenever the node is created or updated, so
  // whatever pinned it would be unknown too (reverted 8f2828c). The patch rollout pins the stack's configured key, or
  // records its own at first contact, as NodeFiles does (components/vanilla/declare.ts).
}

export interface BootstrapTokenArgs extends KubeAccessArgs {
  /** Lifetime in hours; replaced once half of it has passed. */
  ttlHours: pulumi.Input<number>;
}

/** A kubeadm bootstrap token (`kube-system/bootstrap-token-<id>`) for joins; `token` is a secret output. */
export class BootstrapToken extends dynamicResource("BootstrapToken", {
  inputs: (args: BootstrapTokenArgs) => ({ ttlHours: args.ttlHours, ...kubeAccess(args) }),
  outputs: ["token", "tokenId", "expiration"],
  secretOutputs: ["token", "kubeconfig"],
}) {
  declare readonly token: pulumi.Output<string>;
  declare readonly tokenId: pulumi.Output<string>;
  declare readonly expiration: pulumi.Output<string>;
}
