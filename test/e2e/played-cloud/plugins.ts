import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { LabInfo } from "../../../lab/record";
import { exampleConfig, Stack } from "../project";

/** The Azure admin password the example stacks get in the tests (a secret config value, as a user sets it). */
export const EXAMPLE_ADMIN_PASSWORD = "an-Azure-admin-password-0123";

/**
 * A folder with `pulumi-resource-aws` and `pulumi-resource-azure-native` executables that start the played cloud
 * provider (provider.ts); put it first on PATH and the real CLI uses them, as it does the lab's kubernetes plugin.
 */
export function playedCloudPlugins(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "played-cloud-"));
  const provider = path.join(__dirname, "provider.ts");
  const tsNode = require.resolve("ts-node/register/transpile-only");
  for (const pkg of ["aws", "azure-native"]) {
    const file = path.join(dir, `pulumi-resource-${pkg}`);
    fs.writeFileSync(
      file,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -r ${JSON.stringify(tsNode)} ${JSON.stringify(provider)} ${pkg} "$@"\n`,
      { mode: 0o755 },
    );
  }
  return dir;
}

/**
 * A stack of the project in `dir` made from the example `byoh-aws` or `byoh-azure` (their hosts kept), on the played
 * cloud plugins: the Azure admin password set again as this stack's secret (the example's is encrypted with its own
 * passphrase); with `pinAmi`, the AWS entry gets an AMI, so nothing is looked up (PinnedAmi calls EC2 itself).
 */
export function playedCloudStack(
  dir: string,
  example: "byoh-aws" | "byoh-azure",
  lab: LabInfo,
  o: { stackName?: string; env?: NodeJS.ProcessEnv; pinAmi?: boolean } = {},
): Stack {
  const config = exampleConfig(dir, `stacks/examples/Pulumi.${example}.yaml`, true);
  if (o.pinAmi && example === "byoh-aws") {
    const [entry] = config["windows-estate:byoh"] as { aws: Record<string, unknown> }[];
    entry.aws.ami = "ami-0123456789abcdef0";
  }
  delete config["windows-estate:byohAdminPassword"];
  const stack = new Stack(dir, o.stackName ?? example, lab, {
    PATH: `${playedCloudPlugins()}:${lab.env.PATH}`,
    ...o.env,
  });
  stack.init(config);
  if (example === "byoh-azure") {
    const set = stack.pulumi(["config", "set", "--secret", "windows-estate:byohAdminPassword", EXAMPLE_ADMIN_PASSWORD]);
    if (set.status !== 0) throw new Error(`pulumi config set failed: ${set.stderr}`);
  }
  return stack;
}
