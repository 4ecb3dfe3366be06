import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { WindowsServer } from "../../stacks/schema/machinesets";
import { buildRuntimeClass } from "./runtime-class";

export interface WindowsRuntimeClassesArgs {
  /** Windows Server versions in use; one RuntimeClass each (`windows2022`, …). */
  versions: readonly WindowsServer[];
}

/** RuntimeClasses for every Windows build the estate runs, so workloads can target a build by name. */
export class WindowsRuntimeClasses extends pulumi.ComponentResource {
  /** Their names, e.g. `["windows2022"]`. */
  readonly names: pulumi.Output<string[]>;

  constructor(name: string, args: WindowsRuntimeClassesArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsRuntimeClasses", name, {}, opts);
    const versions = [...new Set(args.versions)].sort();
    const created = versions.map(
      (v) => new k8s.node.v1.RuntimeClass(`${name}-${v}`, buildRuntimeClass(v), { parent: this }),
    );
    this.names = pulumi.all(created.map((rc) => rc.metadata.name));
    this.registerOutputs({ names: this.names });
  }
}
