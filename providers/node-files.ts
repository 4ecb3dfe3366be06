import * as pulumi from "@pulumi/pulumi";
import type { SshConnection } from "./ssh/types";
import { dynamicResource, pick } from "./dynamic-resource";

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
export class NodeFiles extends dynamicResource("NodeFiles", {
  inputs: (args: NodeFilesArgs) => ({
    connection: pulumi.secret(args.connection),
    ...pick(args, ["directory", "files", "hostGone"]),
  }),
  outputs: ["checksums", "hostKey", "hostKeyFingerprint"],
  secretOutputs: ["connection"],
}) {
  /** Relative path → sha256 of the file on the host. */
  declare readonly checksums: pulumi.Output<Record<string, string>>;
  /** The host key in use (recorded at first contact with trust-on-first-use). */
  declare readonly hostKey: pulumi.Output<string>;
  declare readonly hostKeyFingerprint: pulumi.Output<string>;
}
