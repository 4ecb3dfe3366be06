import * as fs from "fs";
import * as os from "os";
import * as path from "path";

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
