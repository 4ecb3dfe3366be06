/**
 * The bench's baseline: the same Kubernetes objects synth rendered, declared directly with @pulumi/kubernetes under
 * the same mock runtime, with no config, validation, components or rendering.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";

async function main(): Promise<void> {
  const dir = path.join(process.argv[2], "1-manifest");
  await pulumi.runtime.setMocks(
    { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: () => ({}) },
    "bare",
    "bench",
    true,
  );
  const provider = new k8s.Provider("cluster", {});
  for (const f of fs.readdirSync(dir)) {
    const obj: { apiVersion: string; kind: string; metadata: { name: string } } = parse(
      fs.readFileSync(path.join(dir, f), "utf8"),
    );
    new k8s.apiextensions.CustomResource(f, obj, { provider });
  }
  await pulumi.runtime.disconnect();
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
