import * as pulumi from "@pulumi/pulumi";
import type { NodeReachSettings } from "./day2/node-reach";
import type { SshConnection } from "./ssh/types";
import { DrainArgs, drainInputs } from "./day2/drain";
import { thinProvider } from "./thin";
import type { WuaProxy } from "./day2/patch-scripts";
import type { Blocker } from "./day2/blockers";
import type { MaintenanceWindow } from "./day2/maintenance-window";

/** Drain options (`force`, `deleteEmptyDirData`, `gracePeriodSeconds`, `podSelector`): default kubectl drain as OCP runs it. */
export interface WindowsPatchingArgs extends DrainArgs {
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
  /** Delete pods instead of evicting them, ignoring PodDisruptionBudgets. Default false. */
  disableEviction?: pulumi.Input<boolean>;
  /** Drain deadline per node, seconds. Default 600. */
  drainTimeoutSeconds?: pulumi.Input<number>;
  /** How long a node may take to be Ready again, seconds. Default 900. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** How long Windows Update may run on one node, minutes. Default 120. */
  installTimeoutMinutes?: pulumi.Input<number>;
  /** The proxy Windows Update goes through (IUpdateSession.WebProxy, set in the SYSTEM task). Stored as a secret. */
  proxy?: pulumi.Input<WuaProxy>;
  /** How long a host may take to answer SSH again after its restart, seconds. Default 600. */
  restartTimeoutSeconds?: pulumi.Input<number>;
  /** Pause between checks, seconds. Default 5. */
  pollSeconds?: pulumi.Input<number>;
  /**
   * How many Windows nodes may be out of service at once, counting nodes already NotReady or cordoned: a number or a
   * percentage of the Windows nodes (`"25%"`, rounded down, at least 1). Default: the largest planned batch.
   */
  maxUnavailable?: pulumi.Input<number | string>;
  /** Pods that hold the job back while they run (on the node about to go, or anywhere). Default none. */
  blockers?: pulumi.Input<pulumi.Input<Blocker>[]>;
  /** Kubeconfig content or path; stored only as a secret. Default: KUBECONFIG, ~/.kube/config. */
  kubeconfig?: pulumi.Input<string>;
  context?: pulumi.Input<string>;
  /** When batches may start (days, times, time zone; `{ start: "22:00", end: "04:00" }` is daily in UTC). Default: any time. */
  window?: pulumi.Input<MaintenanceWindow>;
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
export class WindowsPatching extends pulumi.dynamic.Resource {
  declare readonly batches: pulumi.Output<string[][]>;
  declare readonly patched: pulumi.Output<string[]>;
  /** Per managed node, as last read over SSH (up, refresh): boot time, uptime hours, pending restart. */
  declare readonly hostStatus: pulumi.Output<Record<string, unknown>>;

  constructor(name: string, args: WindowsPatchingArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("WindowsPatching"),
      name,
      {
        minimumUpdateRevision: args.minimumUpdateRevision,
        categories: args.categories ?? [],
        batches: args.batches,
        belowNotPatched: args.belowNotPatched ?? [],
        managedNodes: args.managedNodes ?? [],
        disableEviction: args.disableEviction ?? false,
        drainTimeoutSeconds: args.drainTimeoutSeconds ?? 600,
        ...drainInputs(args),
        readyTimeoutSeconds: args.readyTimeoutSeconds ?? 900,
        installTimeoutMinutes: args.installTimeoutMinutes ?? 120,
        proxy: args.proxy === undefined ? undefined : pulumi.secret(args.proxy),
        restartTimeoutSeconds: args.restartTimeoutSeconds ?? 600,
        pollSeconds: args.pollSeconds ?? 5,
        maxUnavailable: args.maxUnavailable,
        blockers: args.blockers ?? [],
        kubeconfig: args.kubeconfig === undefined ? undefined : pulumi.secret(args.kubeconfig),
        context: args.context,
        // The cluster-wide day-2 lock's holder names this stack (providers/day2/day2-lock.ts).
        lockStack: `${pulumi.getProject()}/${pulumi.getStack()}`,
        window: args.window,
        reach: args.reach === undefined ? undefined : pulumi.secret(args.reach),
        connections: args.connections === undefined ? undefined : pulumi.secret(args.connections),
        patched: undefined,
        stoppedFor: undefined,
        hostStatus: undefined,
        recordedHostKeys: undefined,
      },
      { ...opts, additionalSecretOutputs: ["reach", "connections", "kubeconfig", "proxy"] },
      "windows-estate",
      "WindowsPatching",
    );
  }
}
