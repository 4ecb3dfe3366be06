import { ResolvedAws } from "./resolve";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { USER_DATA_SECRET } from "../../facts/wmco";

/** An AWS resource given by ID (`subnet-…`, `sg-…`) or by Name tag, as the providerSpec references them. */
export function awsRef(
  value: string,
  idPrefix: string,
): { id: string } | { filters: { name: string; values: string[] }[] } {
  return value.startsWith(idPrefix) ? { id: value } : { filters: [{ name: "tag:Name", values: [value] }] };
}

/**
 * AWSMachineProviderConfig for a Windows machine. `metadataServiceOptions.authentication: Optional`: WMCO's user
 * data and EC2Launch read instance metadata without IMDSv2 tokens, so Required breaks the node. Subnet and
 * security groups default to the tag names of OpenShift 4.17+ installs (`<id>-subnet-private-<az>`, `<id>-node`);
 * discovery copies the Linux workers' values instead, which survives tag renames between versions.
 */
export function awsProviderSpec(
  infraId: string,
  region: string,
  set: MachineSetConfig,
  block: ResolvedAws,
  amiId: string,
): Record<string, unknown> {
  const az = block.availabilityZone;
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "AWSMachineProviderConfig",
    ami: { id: amiId },
    blockDevices: [{ ebs: { iops: 0, volumeSize: block.volumeSize, volumeType: block.volumeType } }],
    credentialsSecret: { name: "aws-cloud-credentials" },
    deviceIndex: 0,
    iamInstanceProfile: { id: block.iamInstanceProfile ?? `${infraId}-worker-profile` },
    instanceType: block.instanceType,
    metadataServiceOptions: { authentication: "Optional" },
    placement: { availabilityZone: az, region },
    securityGroups: (block.securityGroups ?? [`${infraId}-node`]).map((g) => awsRef(g, "sg-")),
    subnet: awsRef(block.subnet ?? `${infraId}-subnet-private-${az}`, "subnet-"),
    tags: [{ name: `kubernetes.io/cluster/${infraId}`, value: "owned" }],
    userDataSecret: { name: USER_DATA_SECRET },
  };
}
