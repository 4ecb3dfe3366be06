import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { expandHome } from "../../lib/paths";
import { SshConnection } from "../../providers/ssh/types";

/** Reads a private key file a config key names (`~` expanded); a clear error naming that key when it cannot. */
export function readKeyFile(file: string, configKey: string): string {
  const abs = path.resolve(expandHome(file));
  try {
    return fs.readFileSync(abs, "utf8");
  } catch {
    throw new pulumi.RunError(`windows-estate:${configKey} ${abs} cannot be read`);
  }
}

/**
 * The credential of a host's first connection (BYOH hosts, vanilla nodes): its bootstrap key file, else its
 * bootstrap password (a secret config key), else the stack's own key. A secret Output.
 */
export function bootstrapCredential(
  bootstrap: { privateKeyPath?: string; passwordSecret?: string } | undefined,
  stackKey: pulumi.Input<string>,
  configKey: string,
): pulumi.Output<Pick<SshConnection, "privateKey" | "password">> {
  const config = new pulumi.Config("windows-estate");
  const password = bootstrap?.passwordSecret ? config.requireSecret(bootstrap.passwordSecret) : undefined;
  return pulumi.secret(
    pulumi.all([stackKey, password]).apply(([key, pw]) => {
      if (bootstrap?.privateKeyPath)
        return { privateKey: readKeyFile(bootstrap.privateKeyPath, `${configKey}.bootstrap.privateKeyPath`) };
      return pw ? { password: pw } : { privateKey: key };
    }),
  );
}
