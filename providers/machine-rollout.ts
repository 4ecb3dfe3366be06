import * as pulumi from "@pulumi/pulumi";
import { dynamicResource, kubeAccess, KubeAccessArgs, lockStack } from "./dynamic-resource";

export interface MachineSetRolloutArgs extends KubeAccessArgs {
  /** The MachineSet's name in openshift-machine-api. */
  machineSet: pulumi.Input<string>;
  /** The image its template boots (`machineImage` of the providerSpec value). */
  image: pulumi.Input<string>;
  /** The set's replicas as the stack declares them (a surge returns the set to this value). */
  replicas: pulumi.Input<number>;
  /** `replace` deletes old Machines first; `surge` creates new ones first (machine-surge-plan.ts). Default `replace`. */
  strategy?: pulumi.Input<"replace" | "surge">;
  /** With `surge`, Machines replaced per round. Default: every Machine on the old image at once. */
  maxSurge?: pulumi.Input<number>;
  /** With `replace`, Machines replaced at once (never more than replicas - 1). Default 1. */
  maxUnavailable?: pulumi.Input<number>;
  /** How long one batch's replacements may take to be configured by WMCO, seconds. Default 2700. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** The Machines preview expects to replace (shown; the run reads the API again). Default none. */
  planned?: pulumi.Input<string[]>;
  /** Pause between checks, seconds. Default 15. */
  pollSeconds?: pulumi.Input<number>;
}

/**
 * Rolls a Windows MachineSet's Machines onto its current image after the image changed. `replace`: deletes the
 * Machines on the old image `maxUnavailable` at a time and waits until the replacements' Nodes are Ready and configured
 * by WMCO before the next batch, so at least one Machine keeps serving. `surge`: marks them with delete-machine, scales
 * the set up, waits for the new Machines to be configured, scales back (the controller deletes the marked ones first)
 * and waits for them to be gone. Both resume from what the cluster shows.
 */
export class MachineSetRollout extends dynamicResource("MachineSetRollout", {
  inputs: (args: MachineSetRolloutArgs) => ({
    machineSet: args.machineSet,
    image: args.image,
    replicas: args.replicas,
    // Only when set: an existing stack's inputs (and so its diff) stay as they were.
    ...(args.strategy !== undefined ? { strategy: args.strategy } : {}),
    ...(args.maxSurge !== undefined ? { maxSurge: args.maxSurge } : {}),
    maxUnavailable: args.maxUnavailable ?? 1,
    readyTimeoutSeconds: args.readyTimeoutSeconds ?? 2700,
    planned: args.planned ?? [],
    pollSeconds: args.pollSeconds ?? 15,
    ...kubeAccess(args),
    lockStack: lockStack(),
  }),
  outputs: ["replaced"],
  secretOutputs: ["kubeconfig"],
}) {
  declare readonly replaced: pulumi.Output<string[]>;
}
