import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { OpenShiftClusterConfig } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { buildMachineSet } from "./build";
import { awsAmiFilter } from "./aws";
import { machineSetName } from "./names";
import { WINDOWS_SERVER } from "../../facts/wmco";
import { PinnedAmi } from "../../providers/aws-ami/resource";
import { MachineSetRollout } from "../../providers/machine-rollout";
import { machineImage } from "../../providers/day2/machine-rollout-plan";
import { declaredReplicas } from "../../providers/day2/machine-surge-plan";
import type { ClusterAccess } from "../cluster-access";

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
  /** How the image rollout reaches the API (`set.rollout`); undefined in render mode and offline. */
  access?: ClusterAccess;
  /** The cluster's Machines as discovery read them (which image each boots), for the rollout's preview. */
  machines?: readonly { name: string; machineSet: string; image: string; deleting: boolean; marked?: boolean }[];
  /** `spec.replicas` of the cluster's MachineSets as discovery read them (a surge under way keeps its value). */
  machineSetReplicas?: Readonly<Record<string, number>>;
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
  /** Machines the image rollout will replace, as preview sees them; undefined without `rollout`. */
  readonly replacing?: pulumi.Output<string[]>;
  /** The same, as plain names when the image is known without a lookup (every platform but an AWS AMI lookup). */
  readonly replacingKnown?: string[];

  constructor(name: string, args: WindowsMachineSetArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:WindowsMachineSet", name, {}, opts);
    const { cluster, set } = args;
    const ami = cluster.platform === "AWS" && !set.aws?.ami ? this.amiId(name, args) : pulumi.output(set.aws?.ami);
    const replicas = this.declaredReplicas(args);
    // Everything but the AMI is known now; apiVersion, kind and metadata must be plain for CustomResource.
    const known = buildMachineSet(cluster, set, { amiId: AMI_PLACEHOLDER, replicas });
    const spec = ami.apply((amiId) => buildMachineSet(cluster, set, { amiId, replicas }).spec);
    const ms = new k8s.apiextensions.CustomResource(
      `${name}-machineset`,
      { apiVersion: known.apiVersion, kind: known.kind, metadata: known.metadata, spec },
      {
        parent: this,
        // A component's dependsOn does not reach its children: the MachineSet itself must wait for windows-user-data.
        dependsOn: opts?.dependsOn,
      },
    );
    // An image change touches no running Machine (machine-api FAQ): with `rollout`, replace them after the set changed.
    if (set.rollout && args.access) {
      const setName = known.metadata.name;
      const image = spec.apply((s) => machineImage(s.template.spec.providerSpec.value));
      // What preview can tell: the Machines whose image differs from the template's (unknown while an AMI is looked up).
      const replaced = (want: string) =>
        (args.machines ?? [])
          .filter((m) => m.machineSet === setName && !m.deleting && m.image !== want)
          .map((m) => m.name);
      const planned = image.apply(replaced);
      this.replacing = planned;
      if (!(cluster.platform === "AWS" && !set.aws?.ami))
        this.replacingKnown = replaced(
          machineImage(
            buildMachineSet(cluster, set, { amiId: set.aws?.ami ?? AMI_PLACEHOLDER }).spec.template.spec.providerSpec
              .value,
          ),
        );
      new MachineSetRollout(
        `${name}-rollout`,
        {
          machineSet: setName,
          image,
          replicas: set.replicas,
          // Passed only for surge: a stack on the default keeps its rollout inputs, so its preview shows no change.
          ...(set.rollout.strategy === "surge" ? { strategy: set.rollout.strategy } : {}),
          ...(set.rollout.maxSurge !== undefined ? { maxSurge: set.rollout.maxSurge } : {}),
          maxUnavailable: set.rollout.maxUnavailable,
          readyTimeoutSeconds: set.rollout.readyTimeoutMinutes * 60,
          planned,
          kubeconfig: args.access.kubeconfig,
          context: args.access.context,
        },
        { parent: this, dependsOn: [ms] },
      );
    }
    this.name = pulumi.output(known.metadata.name);
    this.replicas = pulumi.output(set.replicas);
    this.windowsBuild = WINDOWS_SERVER[set.windowsServer].buildLabel;
    this.registerOutputs({ name: this.name, replicas: this.replicas, machineSet: ms.id });
  }

  /**
   * `spec.replicas` for the MachineSet object: the config's, except while a surge rollout round is under way in the
   * cluster, when it is the live value (machine-surge-plan.ts `declaredReplicas`), so this up does not scale the set
   * down before the new Machines serve; the rollout restores the config's value when the round ends.
   */
  private declaredReplicas(args: WindowsMachineSetArgs): number {
    const { cluster, set } = args;
    const setName = machineSetName(cluster.platform, cluster.infrastructureId, set);
    if (set.rollout?.strategy !== "surge" || !setName) return set.replicas;
    const mine = (args.machines ?? [])
      .filter((m) => m.machineSet === setName)
      .map((m) => ({ deleting: m.deleting, marked: m.marked ?? false }));
    const replicas = declaredReplicas(set.replicas, args.machineSetReplicas?.[setName], mine);
    if (replicas !== set.replicas)
      pulumi.log.info(
        `MachineSet ${setName}: a surge rollout round is under way (${replicas} replicas, ${set.replicas} declared): the MachineSet keeps ${replicas} until the rollout scales it back to ${set.replicas}`,
        this,
      );
    return replicas;
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
