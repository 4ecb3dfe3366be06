import * as pulumi from "@pulumi/pulumi";
import type { SshConnection } from "./ssh/types";
import { dynamicResource, pick } from "./dynamic-resource";
import { AccessArgs, kubeWait } from "./kube-wait/resources";

export interface WmcoKeyAdoptedArgs extends AccessArgs {
  /** The WMCO public key (`authorized_keys` line without comment) now in `cloud-private-key`. */
  publicKey: pulumi.Input<string>;
}

/**
 * Completes once WMCO has adopted the key (it may take `timeoutSeconds`, default 1200): BYOH nodes' `pub-key-hash` and
 * `windows-user-data` carry it.
 */
export class WmcoKeyAdopted extends kubeWait<WmcoKeyAdoptedArgs>("WmcoKeyAdopted", ["publicKey"], 1200) {}

export interface RetiredWmcoKeysArgs {
  /** Access with the new WMCO key (stored as a secret). */
  connection: pulumi.Input<SshConnection>;
  /** The host key WindowsHost recorded for the host. */
  hostKey: pulumi.Input<string>;
  /** The new WMCO public key, which stays. */
  keep: pulumi.Input<string>;
  /** Earlier WMCO public keys to remove (WindowsHost's `retiringKeys`). */
  retire: pulumi.Input<string[]>;
}

/** Removes earlier WMCO keys from a BYOH host; declare it after `WmcoKeyAdopted`. */
export class RetiredWmcoKeys extends dynamicResource("RetiredWmcoKeys", {
  inputs: (args: RetiredWmcoKeysArgs) => ({
    connection: pulumi.secret(args.connection),
    ...pick(args, ["hostKey", "keep", "retire"]),
  }),
  outputs: ["retired"],
  secretOutputs: ["connection"],
}) {
  declare readonly retired: pulumi.Output<number>;
}
