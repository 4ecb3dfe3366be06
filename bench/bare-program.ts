/**
 * The start-up benchmark's baselines: the Kubernetes objects our program declared for a stack (read from the JSON
 * file in BENCH_OBJECTS: name, inputs), declared directly with @pulumi/kubernetes on one explicit provider, with no
 * config, validation, components or rendering. With BENCH_DYNAMIC (a JSON file of { count, check }), also as many
 * dynamic resources as ours, each with a provider that does nothing (with a check where ours has one): the same
 * resources, none of our work. Run by the same language host as ours.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";

interface Declared {
  name: string;
  inputs: Record<string, unknown>;
}

const file = process.env.BENCH_OBJECTS;
if (!file) throw new Error("BENCH_OBJECTS must name the objects' JSON file");
const objects: Declared[] = JSON.parse(fs.readFileSync(file, "utf8"));
const provider = new k8s.Provider("cluster", { enableConfigMapMutable: true, enableSecretMutable: true });
// A ConfigGroup declares each object as its typed resource (core objects too, which a CustomResource cannot be). It
// orders nothing, so for an `up` (the cost curve) the Namespaces and CRDs are a group the others depend on, as ours
// orders them.
const typed = objects
  .map((o) => o.inputs)
  .filter((i) => typeof i.apiVersion === "string" && typeof i.kind === "string");
const first = (i: Record<string, unknown>) => i.kind === "Namespace" || i.kind === "CustomResourceDefinition";
const foundations = new k8s.yaml.ConfigGroup("foundations", { objs: typed.filter(first) }, { provider });
new k8s.yaml.ConfigGroup("objects", { objs: typed.filter((i) => !first(i)) }, { provider, dependsOn: [foundations] });

const dynamic: { count: number; check: boolean }[] = process.env.BENCH_DYNAMIC
  ? JSON.parse(fs.readFileSync(process.env.BENCH_DYNAMIC, "utf8"))
  : [];
const withCheck: pulumi.dynamic.ResourceProvider = {
  check: async (_olds, news) => ({ inputs: news }),
  create: async () => ({ id: "bare" }),
};
const without: pulumi.dynamic.ResourceProvider = { create: async () => ({ id: "bare" }) };
/** A dynamic resource with a do-nothing provider (the SDK's class is abstract). */
class Bare extends pulumi.dynamic.Resource {}
let n = 0;
for (const d of dynamic)
  for (let i = 0; i < d.count; i++) new Bare(d.check ? withCheck : without, `dynamic-${n++}`, { value: i }, {});
