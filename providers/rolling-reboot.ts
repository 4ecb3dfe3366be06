import * as pulumi from "@pulumi/pulumi";
import type { NodeReachSettings } from "./day2/node-reach";
import { DrainArgs, drainInputs } from "./day2/drain";
import { dynamicResource, kubeAccess, KubeAccessArgs, lockStack } from "./dynamic-resource";
import type { Blocker } from "./day2/blockers";
import type { MaintenanceWindow } from "./day2/maintenance-window";

/**
 * What every batch job on the Windows nodes takes (RollingReboot, WindowsPatching). Drain options (`force`,
 * `deleteEmptyDirData`, `gracePeriodSeconds`, `podSelector`): default kubectl drain as OCP runs it.
 */
export interface BatchJobArgs extends DrainArgs, KubeAccessArgs {
  /** Node names batch by batch, at most `maxUnavailable` per batch (planned from the cluster's Windows nodes). */
  batches: pulumi.Input<string[][]>;
  /** Delete pods instead of evicting them, ignoring PodDisruptionBudgets. Default false. */
  disableEviction?: pulumi.Input<boolean>;
  /** Drain deadline per node, seconds. Default 600. */
  drainTimeoutSeconds?: pulumi.Input<number>;
  /** How long a node may take to be Ready again, seconds. Default 900. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** Pause between checks, seconds. Default 5. */
  pollSeconds?: pulumi.Input<number>;
  /**
   * How many Windows nodes may be out of service at once, counting nodes already NotReady or cordoned: a number or a
   * percentage of the Windows nodes (`"25%"`, rounded down, at least 1). Default: the largest planned batch.
   */
  maxUnavailable?: pulumi.Input<number | string>;
  /** Pods that hold the job back while they run (on the node about to go, or anywhere). Default none. */
  blockers?: pulumi.Input<pulumi.Input<Blocker>[]>;
  /** When batches may start (days, times, time zone; `{ start: "22:00", end: "04:00" }` is daily in UTC). Default: any time. */
  window?: pulumi.Input<MaintenanceWindow>;
}

/** A batch job's inputs with their defaults, and the holder of the day-2 lock. */
export function batchJobInputs(args: BatchJobArgs): pulumi.Inputs {
  return {
    batches: args.batches,
    disableEviction: args.disableEviction ?? false,
    drainTimeoutSeconds: args.drainTimeoutSeconds ?? 600,
    ...drainInputs(args),
    readyTimeoutSeconds: args.readyTimeoutSeconds ?? 900,
    pollSeconds: args.pollSeconds ?? 5,
    maxUnavailable: args.maxUnavailable,
    blockers: args.blockers ?? [],
    ...kubeAccess(args),
    lockStack: lockStack(),
    window: args.window,
  };
}

export interface RollingRebootArgs extends BatchJobArgs {
  /** Any string; a new value asks for a new rolling reboot (`windows-estate:reboot.token`). */
  token: pulumi.Input<string>;
  /** How to reach the nodes over SSH; holds the WMCO private key, so the whole value is stored as a secret. */
  reach: pulumi.Input<Omit<NodeReachSettings, "recordedHostKeys">>;
}

/**
 * A rolling graceful reboot of Windows nodes: cordon, drain (Eviction API), `Restart-Computer -Force`, AWS metadata
 * route, Ready with a fresh heartbeat, uncordon; batch by batch. Runs on create and whenever `token` changes; a
 * failure stops it and the next `pulumi up` resumes (progress is recorded on the Nodes).
 */
export class RollingReboot extends dynamicResource("RollingReboot", {
  inputs: (args: RollingRebootArgs) => ({
    token: args.token,
    ...batchJobInputs(args),
    reach: pulumi.secret(args.reach),
  }),
  outputs: ["rebooted", "stoppedFor", "recordedHostKeys"],
  secretOutputs: ["reach", "kubeconfig"],
}) {
  declare readonly token: pulumi.Output<string>;
  declare readonly batches: pulumi.Output<string[][]>;
  declare readonly rebooted: pulumi.Output<string[]>;
}
