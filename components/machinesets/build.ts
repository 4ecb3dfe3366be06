import { OpenShiftClusterConfig, Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { awsProviderSpec } from "./aws";
import { azureProviderSpec } from "./azure";
import { buildSkeleton, MachineSetObject } from "./common";
import { gcpProviderSpec } from "./gcp";
import { machineSetName } from "./names";
import { nutanixProviderSpec } from "./nutanix";
import { vsphereProviderSpec } from "./vsphere";
import { resolveAws, resolveGcp, resolveNutanix, resolveVsphere } from "./resolve";

/** Values known only at `pulumi up` (the AWS AMI looked up by name) or read from the cluster. */
export interface Resolved {
  amiId?: string;
  /** `spec.replicas` to declare instead of `set.replicas` (machine-surge-plan.ts `declaredReplicas`, mid-surge). */
  replicas?: number;
}

/**
 * The whole MachineSet for one validated (and, when enabled, discovery-completed) config entry. Validation
 * guarantees every required field is present; a missing one here is a bug, reported as such.
 */
export function buildMachineSet(
  cluster: Pick<OpenShiftClusterConfig, "platform" | "infrastructureId" | "region">,
  set: MachineSetConfig,
  resolved: Resolved = {},
): MachineSetObject {
  const { platform, infrastructureId: infraId } = cluster;
  const name = machineSetName(platform, infraId, set);
  if (!name) throw new Error(`internal: MachineSet name unresolved for platform ${platform}`);
  const built = buildSkeleton(
    infraId,
    name,
    set,
    providerSpecFor(platform, infraId, cluster.region ?? "", set, resolved),
  );
  return resolved.replicas === undefined ? built : { ...built, spec: { ...built.spec, replicas: resolved.replicas } };
}

function providerSpecFor(
  platform: Platform,
  infraId: string,
  region: string,
  set: MachineSetConfig,
  resolved: Resolved,
): Record<string, unknown> {
  switch (platform) {
    case "AWS":
      return awsProviderSpec(
        infraId,
        region,
        set,
        required(resolveAws(set.aws), "aws.availabilityZone"),
        resolved.amiId ?? required(set.aws?.ami, "aws.ami"),
      );
    case "Azure":
      return azureProviderSpec(infraId, region, set, required(set.azure, "azure"));
    case "GCP":
      return gcpProviderSpec(infraId, region, set, required(resolveGcp(set.gcp), "gcp.projectID/zone"));
    case "VSphere":
      return vsphereProviderSpec(required(resolveVsphere(set.vsphere), "vsphere workspace and network"));
    case "Nutanix":
      return nutanixProviderSpec(required(resolveNutanix(set.nutanix), "nutanix.clusterUuid/subnetUuid"));
    case "None":
      throw new Error("internal: platform None has no MachineSets");
  }
}

function required<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`internal: ${what} missing after validation`);
  return v;
}
