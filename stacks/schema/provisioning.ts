import { z } from "zod";

/** A Windows VM this stack creates on AWS (EC2) and then treats as a bring-your-own host. */
export const awsProvisioning = z.strictObject({
  /** EC2 instance type. Default `m5a.large` (WMCO's docs' example). */
  instanceType: z.string().min(1).default("m5a.large"),
  /** The subnet the VM joins: one the cluster's nodes can reach on 22, 10250 and 9182. */
  subnetId: z.string().regex(/^subnet-[0-9a-f]+$/, "must be a subnet ID (subnet-…)"),
  /** Security groups: the cluster's node group, so WMCO and the kubelet ports are allowed. */
  securityGroupIds: z.array(z.string().regex(/^sg-[0-9a-f]+$/, "must be a security group ID (sg-…)")).min(1),
  /** A pinned AMI. Default: the newest Amazon Windows Server AMI for `windowsServer`, pinned at the first up. */
  ami: z
    .string()
    .regex(/^ami-[0-9a-f]+$/, "must be an AMI ID (ami-…)")
    .optional(),
  /** Root volume size, GiB. Default 120. */
  volumeSize: z.number().int().min(50).max(16384).default(120),
  /** An IAM instance profile name. Default: none. */
  iamInstanceProfile: z.string().min(1).optional(),
  /** An EC2 key pair name (only for the Administrator password; SSH uses the WMCO key). Default: none. */
  keyName: z.string().min(1).optional(),
  /** AWS region. Default: `cluster.region`. */
  region: z.string().min(1).optional(),
});

/** A Windows VM this stack creates on Azure and then treats as a bring-your-own host. */
export const azureProvisioning = z.strictObject({
  /** The subscription the VM is created in (it names the subnet's resource ID). */
  subscriptionId: z.string().regex(/^[0-9a-f-]{36}$/i, "must be a subscription ID (a GUID)"),
  /** Resource group of the VM and its NIC. Default `<infrastructureId>-rg` (the cluster's, as the MachineSet builder). */
  resourceGroup: z.string().min(1).optional(),
  /** Azure region. Default: `cluster.region`. */
  location: z.string().min(1).optional(),
  /** Virtual network. Default `<infrastructureId>-vnet`. */
  vnet: z.string().min(1).optional(),
  /** Subnet. Default `<infrastructureId>-worker-subnet`. */
  subnet: z.string().min(1).optional(),
  /** Resource group of the virtual network. Default: `resourceGroup`. */
  networkResourceGroup: z.string().min(1).optional(),
  /** VM size. Default `Standard_D2s_v3` (WMCO's docs' example). */
  vmSize: z.string().min(1).default("Standard_D2s_v3"),
  /** Marketplace image. Default: Windows Server Datacenter smalldisk for `windowsServer`, version `latest`. */
  image: z
    .strictObject({
      /** Image publisher, e.g. `MicrosoftWindowsServer`. */
      publisher: z.string().min(1),
      /** Image offer, e.g. `WindowsServer`. */
      offer: z.string().min(1),
      /** Image SKU, e.g. `2022-datacenter-smalldisk`. */
      sku: z.string().min(1),
      /** Image version, or `latest`. */
      version: z.string().min(1),
    })
    .optional(),
  /** The VM's administrator (Azure requires one). WMCO logs in as this user: it is the `windows-instances` username. */
  adminUsername: z.string().min(1).default("capi"),
  /** Name of a secret stack config key (in this namespace) holding the admin password. Required. */
  adminPasswordSecret: z.string().min(1),
});

export type AwsProvisioning = z.output<typeof awsProvisioning>;
export type AzureProvisioning = z.output<typeof azureProvisioning>;
