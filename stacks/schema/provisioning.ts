import { z } from "zod";

/** A Windows VM this stack creates on AWS (EC2) and then treats as a bring-your-own host. */
export const awsProvisioning = z.strictObject({
  /** EC2 instance type. Default `m5a.large` (WMCO's docs' example). */
  instanceType: z.string().min(1).default("m5a.large"),
  /**
   * The subnet the VM joins: one the cluster's nodes can reach on 22, 10250 and 9182, with a route out for first boot
   * (OpenSSH comes from Windows Update) and image pulls (a NAT gateway, as the installer gives private subnets).
   */
  subnetId: z.string().regex(/^subnet-[0-9a-f]+$/, "must be a subnet ID (subnet-…)"),
  /**
   * Security groups: the cluster's node group (Name tag `<infrastructureId>-node`, `<infrastructureId>-worker-sg` on
   * older installs; WMCO's MachineSets use it), which admits the cluster's own traffic to 22, 10250 and 9182.
   */
  securityGroupIds: z.array(z.string().regex(/^sg-[0-9a-f]+$/, "must be a security group ID (sg-…)")).min(1),
  /** A pinned AMI. Default: the newest Amazon Windows Server AMI for `windowsServer`, pinned at the first up. */
  ami: z
    .string()
    .regex(/^ami-[0-9a-f]+$/, "must be an AMI ID (ami-…)")
    .optional(),
  /** Root volume size, GiB. Default 120. */
  volumeSize: z.number().int().min(50).max(16384).default(120),
  /**
   * An IAM instance profile name. Default on OpenShift: the Linux workers' profile (discovery at preview/up), else
   * `<infrastructureId>-worker-profile`, which WMCO's own Windows machines use (hack/machineset.sh) and the ECR
   * credential provider WMCO configures needs. Default on Kubernetes: none.
   */
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
  /**
   * The cluster's public load balancer (by name, in `resourceGroup`): the NIC joins its IPv4 backend pools, the
   * outbound path WMCO's Azure MachineSets use (`publicLoadBalancer`, copied from the Linux workers). First boot needs
   * a way out (OpenSSH from Windows Update, then the registries). Default: the Linux workers' (discovery at
   * preview/up); `""` states that the subnet has its own (a NAT gateway, a firewall route) and joins none.
   */
  publicLoadBalancer: z.string().optional(),
  /**
   * OS disk size, GiB. Default 128, as WMCO's Azure MachineSets (the smalldisk image has 30). Azure can grow it, never
   * shrink it, and takes at most 1023 here (its OSDisk.diskSizeGB).
   */
  osDiskSizeGB: z.number().int().min(30).max(1023).default(128),
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
  /**
   * The VM's administrator (Azure requires one). WMCO logs in as this user: it is the `windows-instances` username.
   * Azure refuses its reserved names (`administrator`, `admin`, `user`, …), more than 20 characters and a final `.`.
   */
  adminUsername: z.string().min(1).default("capi"),
  /**
   * Name of a secret stack config key (in this namespace) holding the admin password. Required. Azure's rules: 8 to
   * 123 characters, three of lower case, upper case, digit and special character, none of its known-weak values.
   */
  adminPasswordSecret: z.string().min(1),
});

export type AwsProvisioning = z.output<typeof awsProvisioning>;
export type AzureProvisioning = z.output<typeof azureProvisioning>;
