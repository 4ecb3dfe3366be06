import * as pulumi from "@pulumi/pulumi";
import type { NodeReachSettings } from "./day2/node-reach";
import { DrainArgs, drainInputs } from "./day2/drain";
import { thinProvider } from "./thin";

/** Drain options (`force`, `deleteEmptyDirData`, `gracePeriodSeconds`, `podSelector`): default kubectl drain as OCP runs it. */
export interface RollingRebootArgs extends DrainArgs {
  /** Any string; a new value asks for a new rolling reboot (`windows-estate:reboot.token`). */
  token: pulumi.Input<string>;
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
  /** Kubeconfig content or path; stored only as a secret. Default: KUBECONFIG, ~/.kube/config. */
  kubeconfig?: pulumi.Input<string>;
  context?: pulumi.Input<string>;
  /** How to reach the nodes over SSH; holds the WMCO private key, so the whole value is stored as a secret. */
  reach: pulumi.Input<Omit<NodeReachSettings, "recordedHostKeys">>;
}

/**
 * A rolling graceful reboot of Windows nodes: cordon, drain (Eviction API), `Restart-Computer -Force`, AWS metadata
 * route, Ready with a fresh heartbeat, uncordon; batch by batch. Runs on create and whenever `token` changes; a
 * failure stops it and the next `pulumi up` resumes (progress is recorded on the Nodes).
 */
export class RollingReboot extends pulumi.dynamic.Resource {
  declare readonly token: pulumi.Output<string>;
  declare readonly batches: pulumi.Output<string[][]>;
  declare readonly rebooted: pulumi.Output<string[]>;

  constructor(name: string, args: RollingRebootArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("RollingReboot"),
      name,
      {
        token: args.token,
        batches: args.batches,
        disableEviction: args.disableEviction ?? false,
        drainTimeoutSeconds: args.drainTimeoutSeconds ?? 600,
        ...drainInputs(args),
        readyTimeoutSeconds: args.readyTimeoutSeconds ?? 900,
        pollSeconds: args.pollSeconds ?? 5,
        kubeconfig: args.kubeconfig === undefined ? undefined : pulumi.secret(args.kubeconfig),
        context: args.context,
        // The cluster-wide day-2 lock's holder names this stack (providers/day2/day2-lock.ts).
        lockStack: `${pulumi.getProject()}/${pulumi.getStack()}`,
        reach: pulumi.secret(args.reach),
        rebooted: undefined,
        recordedHostKeys: undefined,
      },
      { ...opts, additionalSecretOutputs: ["reach", "kubeconfig"] },
      "windows-estate",
      "RollingReboot",
    );
  }
}
