import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { OpenShiftClusterConfig } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { buildMachineSet } from "./build";
import { awsAmiFilter } from "./images";
import { machineSetName } from "./names";
import { WINDOWS_SERVER } from "../../facts/wmco";
import { PinnedAmi } from "../../providers/aws-ami/resource";

export interface WindowsMachineSetArgs {
  /** Platform, infrastructure ID and region of the cluster (validated, discovery applied). */
  cluster: Pick<OpenShiftClusterConfig, "platform" | "infrastructureId" | "region">;
  /** One validated `windows-estate:machineSets[i]` entry, discovery applied. */
  set: MachineSetConfig;
  /**
   * How to find an AWS AMI the config leaves out: `lookup` pins the newest one at the first `pulumi up` (needs AWS
   * credentials then, never at preview), and `placeholder` (offline synth) writes a marker that says so. Ignored
   * on other platforms.
   */
  amiLookup: "lookup" | "placeholder";
}

/** The marker synth writes where the AMI will be looked up at `pulumi up`. */
export const AMI_PLACEHOLDER = "ami-lookedupatpulumiup";

/**
 * One Windows MachineSet in `openshift-machine-api`. The spec comes whole from `buildMachineSet`; this component
 * only resolves what is known at `pulumi up` (the AMI) and declares the object.
 */
export class WindowsMachineSet extends pulumi.ComponentResource {
  readonly name: pulumi.Output<string>;
  readonly replicas: pulumi.Output<number>;
  readonly windowsBuild: string;

  constructor(name: string, args: WindowsMachineSetArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsMachineSet", name, {}, opts);
    const { cluster, set } = args;
    const ami = cluster.platform === "AWS" && !set.aws?.ami ? this.amiId(name, args) : pulumi.output(set.aws?.ami);
    // Everything but the AMI is known now; apiVersion, kind and metadata must be plain for CustomResource.
    const known = buildMachineSet(cluster, set, { amiId: AMI_PLACEHOLDER });
    const spec = ami.apply((amiId) => buildMachineSet(cluster, set, { amiId }).spec);
    const ms = new k8s.apiextensions.CustomResource(
      `${name}-machineset`,
      { apiVersion: known.apiVersion, kind: known.kind, metadata: known.metadata, spec },
      {
        parent: this,
        // A component's dependsOn does not reach its children: the MachineSet itself must wait for windows-user-data.
        dependsOn: opts?.dependsOn,
      },
    );
    this.name = pulumi.output(known.metadata.name);
    this.replicas = pulumi.output(set.replicas);
    this.windowsBuild = WINDOWS_SERVER[set.windowsServer].buildLabel;
    this.registerOutputs({ name: this.name, replicas: this.replicas, machineSet: ms.id });
  }

  /**
   * The newest Amazon-owned Windows Server Core AMI in the cluster's region, pinned in state at the first
   * `pulumi up` (`PinnedAmi`), or the offline placeholder. No invoke: an AWS provider or `getAmi` would need AWS
   * credentials at every preview (pulumi-aws validates them when it is configured), which pull-request previews
   * and the Pulumi Kubernetes Operator do not have.
   */
  private amiId(name: string, args: WindowsMachineSetArgs): pulumi.Output<string | undefined> {
    if (args.amiLookup === "placeholder") return pulumi.output(AMI_PLACEHOLDER);
    const filter = awsAmiFilter(args.set.windowsServer);
    if (pulumi.runtime.isDryRun()) {
      pulumi.log.info(
        `MachineSet ${machineSetName(args.cluster.platform, args.cluster.infrastructureId, args.set)}: its Windows AMI is looked up at the first \`pulumi up\` and then pinned (set aws.amiRefresh to move to a newer one, or aws.ami to choose one)`,
        this,
      );
    }
    const pin = new PinnedAmi(
      `${name}-ami`,
      {
        region: args.cluster.region ?? "",
        owners: filter.owners,
        nameFilter: filter.nameFilter,
        refresh: args.set.aws?.amiRefresh,
      },
      { parent: this },
    );
    return pin.imageId;
  }
}
