/** An AWS Windows MachineSet: what the Linux workers give it, its checks, and its providerSpec. */
import { z } from "zod";
import { AwsBlock, MachineSetConfig, WindowsServer } from "../../stacks/schema/machinesets";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { fields, listOf, loose, text } from "../../lib/decode";
import { filled, Filled, PlatformMachineSets, required, Workers } from "./common";

/** An AWS resource given by ID (`subnet-…`, `sg-…`) or by Name tag, as the providerSpec references them. */
function awsRef(value: string, idPrefix: string): { id: string } | { filters: { name: string; values: string[] }[] } {
  return value.startsWith(idPrefix) ? { id: value } : { filters: [{ name: "tag:Name", values: [value] }] };
}

/** AWS: the AMI name filter of WMCO's script, owned by Amazon; the newest match is used. */
export function awsAmiFilter(version: WindowsServer): { owners: string[]; nameFilter: string } {
  return { owners: ["amazon"], nameFilter: `Windows_Server-${version}-English-Core-Base-????.??.??` };
}

/** A reference as a worker's providerSpec holds it: by ID, or by the first value of its first filter. */
const ref = z
  .object({ id: text, filters: listOf(z.object({ values: listOf(z.string()) })) })
  .transform((r) => r.id ?? r.filters[0]?.values[0]);

/** What a Linux worker's AWSMachineProviderConfig gives (openshift/api machine/v1beta1 types_awsprovider.go). */
const worker = fields({
  placement: loose({ availabilityZone: text, region: text }),
  subnet: ref.optional().catch(undefined),
  securityGroups: z
    .unknown()
    .optional()
    .transform((v) => (Array.isArray(v) ? v : v ? [v] : []))
    .pipe(listOf(ref)),
  iamInstanceProfile: loose({ id: text }),
}).transform((w) => ({
  availabilityZone: w.placement?.availabilityZone,
  region: w.placement?.region,
  subnet: w.subnet,
  securityGroups: w.securityGroups.flatMap((g) => (g ? [g] : [])),
  iamInstanceProfile: w.iamInstanceProfile?.id,
}));
type AwsWorker = z.output<typeof worker>;

/**
 * Zone, subnet, security groups and instance profile copied from the worker in the set's zone (else the first), so
 * installs whose tags were named differently still work; a subnet is only taken from a worker of the set's own zone.
 */
function complete(block: AwsBlock, workers: readonly AwsWorker[]): AwsBlock {
  const w =
    (block.availabilityZone ? workers.find((x) => x.availabilityZone === block.availabilityZone) : undefined) ??
    workers[0];
  const sameZone = !block.availabilityZone || w?.availabilityZone === block.availabilityZone;
  return {
    ...block,
    availabilityZone: block.availabilityZone ?? w?.availabilityZone,
    subnet: block.subnet ?? (sameZone ? w?.subnet : undefined),
    securityGroups: block.securityGroups ?? (w && w.securityGroups.length > 0 ? w.securityGroups : undefined),
    iamInstanceProfile: block.iamInstanceProfile ?? w?.iamInstanceProfile,
  };
}

const DISCOVERABLE = ["availabilityZone"] as const;

/**
 * AWSMachineProviderConfig for a Windows machine. `metadataServiceOptions.authentication: Optional`: WMCO's user
 * data and EC2Launch read instance metadata without IMDSv2 tokens, so Required breaks the node. Subnet and
 * security groups default to the tag names of OpenShift 4.17+ installs (`<id>-subnet-private-<az>`, `<id>-node`);
 * discovery copies the Linux workers' values instead, which survives tag renames between versions.
 */
function awsProviderSpec(
  infraId: string,
  region: string,
  block: Filled<AwsBlock, (typeof DISCOVERABLE)[number]>,
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

export const AWS: PlatformMachineSets = {
  block: "aws",
  discoverable: DISCOVERABLE,
  zone: (set) => set.aws?.availabilityZone,
  workers(specs): Workers {
    const workers = specs.map((s) => worker.parse(s));
    return {
      region: (infra) => infra?.region.AWS ?? workers[0]?.region,
      complete: (set: MachineSetConfig) => (set.aws ? { ...set, aws: complete(set.aws, workers) } : set),
      hosts: { iamInstanceProfile: workers[0]?.iamInstanceProfile },
    };
  },
  providerSpec: (infraId, region, set, resolved) =>
    awsProviderSpec(
      infraId,
      region,
      filled(set.aws, DISCOVERABLE, "aws"),
      resolved.amiId ?? required(set.aws?.ami, "aws.ami"),
    ),
  issues: () => [],
};
