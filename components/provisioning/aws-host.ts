/**
 * One Windows VM on AWS (EC2), with its explicit provider per region. Loaded only by stacks that create AWS hosts
 * (cloud-hosts.ts): `@pulumi/aws` is an optional peer dependency.
 */
import * as pulumi from "@pulumi/pulumi";
import { Provider as AwsProvider } from "@pulumi/aws/provider";
import { Instance } from "@pulumi/aws/ec2/instance";
import { awsAmiFilter } from "../machinesets/aws";
import { PinnedAmi } from "../../providers/aws-ami/resource";
import { WMCO_MACHINE } from "../../facts/clouds";
import { providerFor } from "./host-context";
import type { CloudHostParts, CloudHostsContext, CloudHost } from "./host-context";

export function awsHost(
  h: Extract<CloudHost, { kind: "aws" }>,
  ctx: CloudHostsContext,
  userData: pulumi.Output<string>,
): CloudHostParts {
  const { parent, name } = ctx;
  const region = h.aws.region ?? ctx.cluster.region ?? "";
  // skipCredentialsValidation skips only the STS call: credentials are still resolved, at preview too
  // (aws-sdk-go-base GetAwsConfig; pulumi/pulumi-aws#3971), so previews need read-only credentials (docs/gitops.md).
  const provider = providerFor(
    ctx,
    `aws/${region}`,
    () =>
      new AwsProvider(
        `${name}-aws-${region}`,
        { region, skipCredentialsValidation: true, skipRequestingAccountId: true },
        { parent },
      ),
  );
  const filter = awsAmiFilter(h.windowsServer);
  const ami =
    h.aws.ami ??
    new PinnedAmi(`${name}-${h.key}-ami`, { region, owners: filter.owners, nameFilter: filter.nameFilter }, { parent })
      .imageId;
  const wmco = ctx.wmco;
  const profile =
    h.aws.iamInstanceProfile ?? (wmco ? WMCO_MACHINE.awsInstanceProfile(ctx.cluster.infrastructureId) : undefined);
  const vm = new Instance(
    `${name}-${h.key}`,
    {
      ami,
      instanceType: h.aws.instanceType,
      subnetId: h.aws.subnetId,
      vpcSecurityGroupIds: h.aws.securityGroupIds,
      // WMCO's machines run with the workers' profile (hack/machineset.sh), which its ECR credential provider uses.
      ...(profile ? { iamInstanceProfile: profile } : {}),
      ...(h.aws.keyName ? { keyName: h.aws.keyName } : {}),
      rootBlockDevice: { volumeSize: h.aws.volumeSize, volumeType: "gp3", encrypted: true },
      // WMCO's kubelet reads its Node name from instance metadata without a token (pkg/services/services.go
      // getHostnameCmd; its e2e: "IMDSv2 is not yet supported by WMCO"), so hosts WMCO configures keep IMDSv1; a
      // kubeadm node reads no metadata and requires IMDSv2.
      metadataOptions: { httpTokens: wmco ? "optional" : "required", httpEndpoint: "enabled" },
      userData,
      tags: { Name: h.hostname, [`kubernetes.io/cluster/${ctx.cluster.infrastructureId}`]: "owned" },
    },
    // First boot only: a change of the key or of the script must never stop/start a running host ("Updates to this
    // field will trigger a stop/start", @pulumi/aws ec2.Instance userData). Later changes reach hosts over SSH.
    { parent, provider, ignoreChanges: ["userData"] },
  );
  return {
    address: vm.privateIp,
    resources: [vm],
    // On AWS WMCO names the Node after the instance's private DNS name (its metadata `local-hostname`), not after
    // the Windows computer name; the PTR record of the address names it too (pkg/csr/csr.go matchesDNS).
    ...(wmco ? { nodeName: vm.privateDns } : {}),
  };
}
