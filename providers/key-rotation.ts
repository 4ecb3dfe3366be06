import * as pulumi from "@pulumi/pulumi";
import type { SshConnection } from "./ssh/types";
import { thinProvider } from "./thin";

export interface WmcoKeyAdoptedArgs {
  /** The WMCO public key (`authorized_keys` line without comment) now in `cloud-private-key`. */
  publicKey: pulumi.Input<string>;
  /** Kubeconfig content or path; stored only as a secret. */
  kubeconfig?: pulumi.Input<string>;
  context?: pulumi.Input<string>;
  /** How long WMCO may take, seconds. Default 1200. */
  timeoutSeconds?: pulumi.Input<number>;
  /** Seconds between checks. Default 5. */
  intervalSeconds?: pulumi.Input<number>;
}

/** Completes once WMCO has adopted the key: BYOH nodes' `pub-key-hash` and `windows-user-data` carry it. */
export class WmcoKeyAdopted extends pulumi.dynamic.Resource {
  constructor(name: string, args: WmcoKeyAdoptedArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("WmcoKeyAdopted"),
      name,
      {
        publicKey: args.publicKey,
        kubeconfig: args.kubeconfig === undefined ? undefined : pulumi.secret(args.kubeconfig),
        context: args.context,
        timeoutSeconds: args.timeoutSeconds ?? 1200,
        intervalSeconds: args.intervalSeconds ?? 5,
      },
      { ...opts, additionalSecretOutputs: ["kubeconfig"] },
      "windows-estate",
      "WmcoKeyAdopted",
    );
  }
}

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
export class RetiredWmcoKeys extends pulumi.dynamic.Resource {
  declare readonly retired: pulumi.Output<number>;
  constructor(name: string, args: RetiredWmcoKeysArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("RetiredWmcoKeys"),
      name,
      {
        connection: pulumi.secret(args.connection),
        hostKey: args.hostKey,
        keep: args.keep,
        retire: args.retire,
        retired: undefined,
      },
      { ...opts, additionalSecretOutputs: ["connection"] },
      "windows-estate",
      "RetiredWmcoKeys",
    );
  }
}
