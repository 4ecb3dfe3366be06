import * as pulumi from "@pulumi/pulumi";
import type { NodeReachSettings } from "./day2/node-reach";
import type { SshConnection } from "./ssh/types";
import { dynamicResource, secretIf } from "./dynamic-resource";
import { BatchJobArgs, batchJobInputs } from "./rolling-reboot";
import type { WuaProxy } from "./day2/patch-scripts";

export interface WindowsPatchingArgs extends BatchJobArgs {
  /** Build → the lowest update revision accepted (`windows-estate:patching.minimumUpdateRevision`). */
  minimumUpdateRevision: pulumi.Input<Record<string, number>>;
  /** Every managed node (BYOH, vanilla) by name: uptime and pending restart are read over SSH. Default none. */
  managedNodes?: pulumi.Input<string[]>;
  /** Nodes below the level this rollout does not patch, each with why (read by the policy pack). Default none. */
  belowNotPatched?: pulumi.Input<string[]>;
  /** Windows Update categories to install, by name or ID. Default: every software update. */
  categories?: pulumi.Input<string[]>;
  /** Nodes below the level, batch by batch (at most `maxUnavailable` per batch), planned from the cluster's nodes. */
  batches: pulumi.Input<string[][]>;
  /** How long Windows Update may run on one node, minutes. Default 120. */
  installTimeoutMinutes?: pulumi.Input<number>;
  /** The proxy Windows Update goes through (IUpdateSession.WebProxy, set in the SYSTEM task). Stored as a secret. */
  proxy?: pulumi.Input<WuaProxy>;
  /** How long a host may take to answer SSH again after its restart, seconds. Default 600. */
  restartTimeoutSeconds?: pulumi.Input<number>;
  /** How BYOH nodes are reached (holds the WMCO key: stored as a secret). */
  reach?: pulumi.Input<Omit<NodeReachSettings, "recordedHostKeys">>;
  /** How vanilla nodes are reached, by address (hold the node key: stored as a secret). */
  connections?: pulumi.Input<Record<string, SshConnection>>;
}

/**
 * Patch levels as code for the hosts this stack manages (BYOH, vanilla nodes): every `pulumi up` brings the nodes below
 * the declared update revision up to it in rolling batches: cordon, drain, Windows Update through the WUA API in a
 * SYSTEM task, restart when asked, Ready with a fresh heartbeat, the revision checked, uncordon. A failure stops the
 * rollout with the node cordoned and named with its step and Windows Update result code; the next up resumes.
 */
export class WindowsPatching extends dynamicResource("WindowsPatching", {
  inputs: (args: WindowsPatchingArgs) => ({
    minimumUpdateRevision: args.minimumUpdateRevision,
    categories: args.categories ?? [],
    belowNotPatched: args.belowNotPatched ?? [],
    managedNodes: args.managedNodes ?? [],
    ...batchJobInputs(args),
    installTimeoutMinutes: args.installTimeoutMinutes ?? 120,
    proxy: secretIf(args.proxy),
    restartTimeoutSeconds: args.restartTimeoutSeconds ?? 600,
    reach: secretIf(args.reach),
    connections: secretIf(args.connections),
  }),
  outputs: ["patched", "stoppedFor", "hostStatus", "recordedHostKeys"],
  secretOutputs: ["reach", "connections", "kubeconfig", "proxy"],
}) {
  declare readonly batches: pulumi.Output<string[][]>;
  declare readonly patched: pulumi.Output<string[]>;
  /** Per managed node, as last read over SSH (up, refresh): boot time, uptime hours, pending restart. */
  declare readonly hostStatus: pulumi.Output<Record<string, unknown>>;
}
