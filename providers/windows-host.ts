import * as pulumi from "@pulumi/pulumi";
import type { SshConnection } from "./ssh/types";
import { dynamicResource, secretIf } from "./dynamic-resource";

export interface WindowsHostArgs {
  /** The first way in: address, user, host key (or trust on first use), and a bootstrap password or key. Stored as a secret. */
  connection: pulumi.Input<SshConnection>;
  /** The WMCO public key (`authorized_keys` line), from the key component. */
  wmcoPublicKey: pulumi.Input<string>;
  /** The WMCO private key: used for every access after preparation, and to prove the login works. Stored as a secret. */
  wmcoPrivateKey?: pulumi.Input<string>;
  /** The Windows Server version the host must run (`byoh[i].windowsServer`). Default: not checked. */
  expectedWindowsServer?: pulumi.Input<"2019" | "2022" | "2025">;
  /**
   * The Node name WMCO gives the host where it is not the hostname: on AWS the instance's private DNS name (WMCO's
   * kubelet takes its metadata `local-hostname`). The PTR check compares the record with it. Default: the hostname.
   */
  nodeName?: pulumi.Input<string>;
}

/**
 * A bring-your-own Windows host prepared for WMCO over SSH: the WMCO key authorized for administrators with the
 * right ACL, key-only sshd, firewall open on 22, 10250 and 9182; and checked for an RFC 1123 hostname, no
 * pre-installed containerd and a supported OS build; and against WMCO's BYOH prerequisites it can see (a PTR record for
 * its address, `DeviceLessNicDisabled` on a static address). `pulumi refresh` probes the host again and shows drift.
 */
export class WindowsHost extends dynamicResource("WindowsHost", {
  inputs: (args: WindowsHostArgs) => ({
    connection: pulumi.secret(args.connection),
    wmcoPublicKey: args.wmcoPublicKey,
    wmcoPrivateKey: secretIf(args.wmcoPrivateKey),
    expectedWindowsServer: args.expectedWindowsServer,
    ...(args.nodeName === undefined ? {} : { nodeName: args.nodeName }),
  }),
  outputs: [
    "hostname",
    "osBuild",
    "windowsServer",
    "hostKey",
    "hostKeyFingerprint",
    "unreachable",
    "retiringKeys",
    "prerequisiteWarnings",
  ],
  secretOutputs: ["connection", "wmcoPrivateKey"],
}) {
  declare readonly connection: pulumi.Output<SshConnection>;
  declare readonly hostname: pulumi.Output<string>;
  declare readonly osBuild: pulumi.Output<string>;
  declare readonly windowsServer: pulumi.Output<string>;
  declare readonly hostKey: pulumi.Output<string>;
  declare readonly hostKeyFingerprint: pulumi.Output<string>;
  /** Set when the last refresh could not reach the host (why); the other outputs are then the last known state. */
  declare readonly unreachable: pulumi.Output<string | undefined>;
  /** Earlier WMCO public keys still authorized until WMCO has adopted the current one. */
  declare readonly retiringKeys: pulumi.Output<string[] | undefined>;
  /** WMCO's BYOH prerequisites the host does not meet that do not refuse it (a PTR record); each is also warned. */
  declare readonly prerequisiteWarnings: pulumi.Output<string[] | undefined>;

  constructor(name: string, args: WindowsHostArgs, opts?: pulumi.CustomResourceOptions) {
    super(name, args, opts);
    // Shown at up (and at preview for a host whose state is unchanged), on this resource: the finding names the host.
    this.prerequisiteWarnings.apply((ws) => {
      for (const w of ws ?? []) pulumi.log.warn(`BYOH prerequisite: ${w}`, this);
    });
  }
}
