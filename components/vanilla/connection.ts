import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { expandHome } from "../../lib/paths";
import type { VanillaNodeConfig } from "../../stacks/schema/kubernetes";
import { SshConnection } from "../../providers/ssh/types";
import { NodePath } from "../node-access/path";

/**
 * How the program reaches a vanilla node: its address and port, the stack's key (or the node's bootstrap key file or
 * password secret), its host key or trust on first use, and the stack's hop (jump host or cluster relay). A secret
 * Output: it holds the credential.
 */
export function nodeConnection(
  n: VanillaNodeConfig,
  stackKeyPem: string,
  config: pulumi.Config,
  hop: NodePath,
): pulumi.Output<SshConnection> {
  const password = n.bootstrap?.passwordSecret ? config.requireSecret(n.bootstrap.passwordSecret) : undefined;
  return pulumi.secret(
    pulumi.output(password).apply((pw): SshConnection => {
      let privateKey: string | undefined = stackKeyPem;
      if (n.bootstrap?.privateKeyPath) {
        const abs = path.resolve(expandHome(n.bootstrap.privateKeyPath));
        try {
          privateKey = fs.readFileSync(abs, "utf8");
        } catch {
          throw new pulumi.RunError(`windows-estate:nodes: bootstrap.privateKeyPath ${abs} cannot be read`);
        }
      } else if (pw) privateKey = undefined;
      return {
        host: n.address,
        port: n.port,
        user: n.username,
        ...(privateKey ? { privateKey } : {}),
        ...(pw && !privateKey ? { password: pw } : {}),
        ...(n.hostKey ? { hostKey: n.hostKey } : { trustOnFirstUse: n.trustOnFirstUse }),
        pathStyle: "windows",
        ...(hop.proxy ? { proxy: hop.proxy } : {}),
        ...(hop.cluster ? { cluster: hop.cluster } : {}),
      };
    }),
  );
}
