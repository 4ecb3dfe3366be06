import * as pulumi from "@pulumi/pulumi";
import type { SshConnection } from "./ssh/types";
import { thinProvider } from "./thin";

export interface NodeFilesArgs {
  /** How to reach the host. Always stored as a secret: it holds the private key or password. */
  connection: pulumi.Input<SshConnection>;
  /**
   * The directory this resource owns on the host, e.g. `C:\k\containerd\registries`. Files in it that are not
   * declared are removed on update; delete removes the directory.
   */
  directory: pulumi.Input<string>;
  /** Relative path (use `/` or `\`) → file text, e.g. `{"quay.io/hosts.toml": "server = …"}`. */
  files: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * The host will never answer (its node is removed with `forceRemove`): nothing is done on it, and deleting this
   * resource only forgets it. Default false.
   */
  hostGone?: pulumi.Input<boolean>;
}

/**
 * Files on a host over SSH/SFTP, with real drift detection: `pulumi refresh` reads the checksums on the host,
 * `pulumi up` rewrites what differs and removes what is not declared. Outputs carry checksums, never contents of
 * secret inputs or credentials.
 */
export class NodeFiles extends pulumi.dynamic.Resource {
  /** Relative path → sha256 of the file on the host. */
  declare readonly checksums: pulumi.Output<Record<string, string>>;
  /** The host key in use (recorded at first contact with trust-on-first-use). */
  declare readonly hostKey: pulumi.Output<string>;
  declare readonly hostKeyFingerprint: pulumi.Output<string>;

  constructor(name: string, args: NodeFilesArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("NodeFiles"),
      name,
      {
        connection: pulumi.secret(args.connection),
        directory: args.directory,
        files: args.files,
        hostGone: args.hostGone,
        checksums: undefined,
        hostKey: undefined,
        hostKeyFingerprint: undefined,
      },
      { ...opts, additionalSecretOutputs: ["connection"] },
      "windows-estate",
      "NodeFiles",
    );
  }
}
