/**
 * The start-up benchmark's baseline: the Kubernetes objects our program declared for a stack (read from the JSON
 * file in BENCH_OBJECTS: type, name, inputs), declared directly with @pulumi/kubernetes on one explicit provider,
 * with no config, validation, components, dynamic resources or rendering. Run by the same language host as ours.
 */
import * as k8s from "@pulumi/kubernetes";
import * as fs from "fs";

interface Declared {
  name: string;
  inputs: Record<string, unknown>;
}

const file = process.env.BENCH_OBJECTS;
if (!file) throw new Error("BENCH_OBJECTS must name the objects' JSON file");
const objects: Declared[] = JSON.parse(fs.readFileSync(file, "utf8"));
const provider = new k8s.Provider("cluster", { enableConfigMapMutable: true, enableSecretMutable: true });
for (const o of objects) {
  const { apiVersion, kind, metadata, ...rest } = o.inputs;
  if (typeof apiVersion !== "string" || typeof kind !== "string") continue;
  new k8s.apiextensions.CustomResource(o.name, { apiVersion, kind, metadata: metadata ?? {}, ...rest }, { provider });
}
