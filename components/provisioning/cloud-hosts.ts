import * as pulumi from "@pulumi/pulumi";
import { Provider as AwsProvider } from "@pulumi/aws/provider";
import { Instance } from "@pulumi/aws/ec2/instance";
import { Provider as AzureProvider } from "@pulumi/azure-native/provider";
import { VirtualMachine, VirtualMachineExtension } from "@pulumi/azure-native/compute";
import { NetworkInterface } from "@pulumi/azure-native/network";
import type { AwsProvisioning, AzureProvisioning } from "../../stacks/schema/provisioning";
import type { WindowsServer } from "../../facts/wmco";

/** A Windows VM to create: its stable key (also its lower-case hostname), Windows Server version and cloud block. */
export type CloudHost =
  | { kind: "aws"; key: string; hostname: string; windowsServer: WindowsServer; aws: AwsProvisioning }
  | { kind: "azure"; key: string; hostname: string; windowsServer: WindowsServer; azure: AzureProvisioning };

/** The VM an expanded `byoh[]`/`nodes[]` host stands for: none for a host given by address. */
export function cloudHostOf(
  key: string,
  windowsServer: WindowsServer,
  e: { aws?: AwsProvisioning; azure?: AzureProvisioning },
): CloudHost[] {
  if (e.aws) return [{ kind: "aws", key, hostname: key, windowsServer, aws: e.aws }];
  if (e.azure) return [{ kind: "azure", key, hostname: key, windowsServer, azure: e.azure }];
  return [];
}
import { awsAmiFilter, azureImage } from "../machinesets/images";
import { PinnedAmi } from "../../providers/aws-ami/resource";
import { AZURE_RUN_CUSTOM_DATA, awsUserData, firstBootScript, FirstBoot } from "./user-data";

export interface CloudHostsArgs {
  /** The hosts to create (`byoh[]` or `nodes[]` entries with an aws or azure block, expanded by `count`). */
  hosts: readonly CloudHost[];
  /** The cluster's infrastructure ID (tags, default Azure names) and region. */
  cluster: { infrastructureId: string; region?: string };
  /** The public key the hosts authorize (the WMCO key). */
  publicKey: pulumi.Input<string | undefined>;
  /** Extra inbound ports (UDP 4789 for vanilla nodes); WMCO's 22, 10250 and 9182 are always opened. */
  udpPorts?: readonly number[];
}

/** Inbound TCP ports WMCO's prerequisites name for a Windows node besides SSH: the kubelet, windows_exporter. */
const TCP_PORTS = [10250, 9182];

/**
 * Windows VMs on AWS and Azure, ready for SSH with the WMCO key (user data: OpenSSH started Automatic, the key
 * authorized with its ACL, firewall, lower-case hostname; on Azure a password that does not expire). One explicit
 * provider per region or subscription; nothing uses a default provider. Each host's private IP is its address.
 */
export class CloudHosts extends pulumi.ComponentResource {
  /** Host key → private IPv4 address. */
  readonly addresses: Record<string, pulumi.Output<string>>;
  /** Host key → the VM (and on Azure its extension): a prepared host depends on them. */
  readonly vms: Record<string, pulumi.Resource[]>;
  /** Host key → its first-boot script (no secret in it), as the stack output shows it. */
  readonly firstBoot: Record<string, pulumi.Output<string>>;

  constructor(name: string, args: CloudHostsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:CloudHosts", name, {}, opts);
    this.addresses = {};
    this.vms = {};
    this.firstBoot = {};
    const awsProviders = new Map<string, AwsProvider>();
    const azureProviders = new Map<string, AzureProvider>();
    const boot = (h: CloudHost, extra: Partial<FirstBoot>) =>
      pulumi.output(args.publicKey).apply((publicKey) => ({
        publicKey: publicKey ?? "",
        hostname: h.hostname,
        tcpPorts: TCP_PORTS,
        udpPorts: args.udpPorts ?? [],
        ...extra,
      }));
    for (const h of args.hosts) {
      if (h.kind === "aws") {
        const region = h.aws.region ?? args.cluster.region ?? "";
        let provider = awsProviders.get(region);
        if (!provider) {
          // Credentials are needed at `pulumi up` only: previews (pull requests, the Kubernetes Operator) have none.
          provider = new AwsProvider(
            `${name}-aws-${region}`,
            { region, skipCredentialsValidation: true, skipRequestingAccountId: true },
            { parent: this },
          );
          awsProviders.set(region, provider);
        }
        const filter = awsAmiFilter(h.windowsServer);
        const ami =
          h.aws.ami ??
          new PinnedAmi(
            `${name}-${h.key}-ami`,
            { region, owners: filter.owners, nameFilter: filter.nameFilter },
            { parent: this },
          ).imageId;
        const vm = new Instance(
          `${name}-${h.key}`,
          {
            ami,
            instanceType: h.aws.instanceType,
            subnetId: h.aws.subnetId,
            vpcSecurityGroupIds: h.aws.securityGroupIds,
            ...(h.aws.iamInstanceProfile ? { iamInstanceProfile: h.aws.iamInstanceProfile } : {}),
            ...(h.aws.keyName ? { keyName: h.aws.keyName } : {}),
            rootBlockDevice: { volumeSize: h.aws.volumeSize, volumeType: "gp3", encrypted: true },
            // WMCO reads instance metadata the IMDSv1 way (the policy pack's windows-aws-imds-optional rule).
            metadataOptions: { httpTokens: "optional", httpEndpoint: "enabled" },
            userData: boot(h, {}).apply(awsUserData),
            tags: { Name: h.hostname, [`kubernetes.io/cluster/${args.cluster.infrastructureId}`]: "owned" },
          },
          { parent: this, provider },
        );
        this.addresses[h.key] = vm.privateIp;
        this.firstBoot[h.key] = boot(h, {}).apply(awsUserData);
        this.vms[h.key] = [vm];
      } else {
        const a = h.azure;
        const infra = args.cluster.infrastructureId;
        const location = a.location ?? args.cluster.region ?? "";
        const group = a.resourceGroup ?? `${infra}-rg`;
        const key = `${a.subscriptionId}/${location}`;
        let provider = azureProviders.get(key);
        if (!provider) {
          provider = new AzureProvider(
            `${name}-azure-${azureProviders.size}`,
            { subscriptionId: a.subscriptionId, location },
            { parent: this },
          );
          azureProviders.set(key, provider);
        }
        const subnetId = [
          `/subscriptions/${a.subscriptionId}/resourceGroups/${a.networkResourceGroup ?? group}`,
          `providers/Microsoft.Network/virtualNetworks/${a.vnet ?? `${infra}-vnet`}`,
          `subnets/${a.subnet ?? `${infra}-worker-subnet`}`,
        ].join("/");
        const nic = new NetworkInterface(
          `${name}-${h.key}-nic`,
          {
            resourceGroupName: group,
            location,
            networkInterfaceName: `${h.hostname}-nic`,
            ipConfigurations: [{ name: "ipconfig1", subnet: { id: subnetId }, privateIPAllocationMethod: "Dynamic" }],
            tags: { [`kubernetes.io_cluster.${infra}`]: "owned" },
          },
          { parent: this, provider },
        );
        const password = new pulumi.Config("windows-estate").requireSecret(a.adminPasswordSecret);
        const image = a.image ?? azureImage(h.windowsServer);
        const vm = new VirtualMachine(
          `${name}-${h.key}`,
          {
            resourceGroupName: group,
            location,
            vmName: h.hostname,
            hardwareProfile: { vmSize: a.vmSize },
            osProfile: {
              computerName: h.hostname,
              adminUsername: a.adminUsername,
              adminPassword: password,
              // Azure stores custom data on the VM; it holds only the public key (the password is above, a secret).
              customData: boot(h, { neverExpiringAdmin: a.adminUsername }).apply((o) =>
                Buffer.from(firstBootScript(o), "utf8").toString("base64"),
              ),
              // Patch levels are this stack's job (windows-estate:patching), not Windows Update's own schedule.
              windowsConfiguration: { provisionVMAgent: true, enableAutomaticUpdates: false },
            },
            storageProfile: {
              imageReference: {
                publisher: image.publisher,
                offer: image.offer,
                sku: image.sku,
                version: image.version,
              },
              osDisk: { createOption: "FromImage", managedDisk: { storageAccountType: "Premium_LRS" } },
            },
            networkProfile: { networkInterfaces: [{ id: nic.id, primary: true }] },
            tags: { [`kubernetes.io_cluster.${infra}`]: "owned" },
          },
          { parent: this, provider },
        );
        const run = new VirtualMachineExtension(
          `${name}-${h.key}-first-boot`,
          {
            resourceGroupName: group,
            location,
            vmName: vm.name,
            vmExtensionName: "windows-estate-first-boot",
            publisher: "Microsoft.Compute",
            type: "CustomScriptExtension",
            typeHandlerVersion: "1.10",
            autoUpgradeMinorVersion: true,
            settings: { commandToExecute: AZURE_RUN_CUSTOM_DATA },
          },
          { parent: this, provider },
        );
        // Azure assigns the address when it creates the NIC (dynamic allocation): a preview that plans the NIC from
        // its inputs has none yet. Unknown then, as any output the provider will compute, never "": an empty
        // address would fail the host's check. Found through the real CLI (test/e2e/plan.e2e.ts).
        this.addresses[h.key] = nic.ipConfigurations.apply(
          (c) => c?.[0]?.privateIPAddress ?? (pulumi.runtime.isDryRun() ? (pulumi.unknown as never) : ""),
        );
        this.firstBoot[h.key] = boot(h, { neverExpiringAdmin: a.adminUsername }).apply(firstBootScript);
        this.vms[h.key] = [vm, run];
      }
    }
    this.registerOutputs({ addresses: this.addresses });
  }
}
