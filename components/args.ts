// Generated from stacks/schema/*.ts by `npm run docs:config`; do not edit. The reference is docs/configuration.md.
import type * as pulumi from "@pulumi/pulumi";

export const ClusterPlatform = {
  AWS: "AWS",
  Azure: "Azure",
  GCP: "GCP",
  VSphere: "VSphere",
  Nutanix: "Nutanix",
  None: "None",
  Kubernetes: "Kubernetes",
} as const;
export type ClusterPlatform = (typeof ClusterPlatform)[keyof typeof ClusterPlatform];

/** `windows-estate:cluster`: which cluster this stack manages and how to reach it. */
export interface ClusterArgs {
  /** The cluster's platform type (`oc get infrastructure cluster -o jsonpath='{.spec.platformSpec.type}'`). */
  platform: ClusterPlatform;
  /** The infrastructure ID (`oc get infrastructure cluster -o jsonpath='{.status.infrastructureName}'`), e.g. `win-tmk9g`. MachineSet names, labels and default network names derive from it. Required on OpenShift; with `Kubernetes` a name for the cluster used in object names, default the stack name. */
  infrastructureId?: string;
  /** Cloud region (AWS, GCP) or location (Azure). Required for MachineSets on those platforms unless discovered. */
  region?: string;
  /** Kubeconfig content or a path to one (`~` expanded). Default: the usual loading order (KUBECONFIG, ~/.kube/config). */
  kubeconfig?: string;
  /** Kubeconfig context to use. Default: the kubeconfig's current context. */
  context?: string;
  /** A stable name for the cluster. The Kubernetes provider is replaced only when this changes, not when the kubeconfig is edited (`clusterIdentifier`). Default: `infrastructureId`. */
  clusterIdentifier?: string;
  /** Render YAML into this directory instead of touching a cluster (the provider's `renderYamlToDirectory`). Waits and discovery are off in this mode, since there is no cluster to ask. */
  render?: string;
  /** In render mode, also write the `cloud-private-key` Secret into the render directory. Off by default: the Kubernetes provider renders Secrets in plaintext, so the key would sit unencrypted in a directory meant for review and Git. When off, the program says how to create the Secret by hand. */
  renderKeySecret?: boolean;
  /** Discover missing MachineSet values (region, zone, networks) from the cluster at `pulumi preview/up`. Default: true when the stack talks to a cluster (no `render`). */
  discovery?: boolean;
}

export const OperatorInstallPlanApproval = {
  Automatic: "Automatic",
  Manual: "Manual",
} as const;
export type OperatorInstallPlanApproval = (typeof OperatorInstallPlanApproval)[keyof typeof OperatorInstallPlanApproval];

/** `windows-estate:operator`: how WMCO is installed through OLM. Every field is optional; the defaults install Red Hat's build from `redhat-operators` on the `stable` channel with automatic approval. */
export interface OperatorArgs {
  /** Namespace WMCO runs in (OwnNamespace install mode). Default `openshift-windows-machine-config-operator`. */
  namespace?: string;
  /** Install the community build (OKD): package `community-windows-machine-config-operator`, channel `preview`, catalog `community-operators`. Default false. */
  community?: boolean;
  /** OLM package name. Default `windows-machine-config-operator`, or the community package when `community` is true. */
  package?: string;
  /** Subscription channel. Default `stable` (`preview` for the community build). */
  channel?: string;
  /** `Automatic` or `Manual`. With `Manual`, `pulumi up` stops and names the InstallPlan to approve. Default `Automatic`. */
  installPlanApproval?: OperatorInstallPlanApproval;
  /** CatalogSource name. Default `redhat-operators` (`community-operators` for the community build). */
  source?: string;
  /** Namespace of the CatalogSource. Default `openshift-marketplace`. */
  sourceNamespace?: string;
  /** The first CSV OLM installs, e.g. `windows-machine-config-operator.v10.19.3`. A pin only with `installPlanApproval: Manual`: with `Automatic`, OLM moves on to the channel head at once. Default: the channel head. */
  startingCSV?: string;
  /** Extra operator environment (Subscription `spec.config.env`), e.g. `{ARGS: "--debugLogging"}` or the log rotation settings `SERVICES_LOG_FILE_SIZE`, `SERVICES_LOG_FILE_AGE`, `SERVICES_LOG_FLUSH_INTERVAL` (WMCO 10.22+). Changing it restarts the operator, which reconfigures the Windows nodes one by one. */
  env?: { [key: string]: string };
  /** How long `pulumi up` waits for the operator's CSV to reach `Succeeded`, in seconds. Default 900. */
  waitTimeoutSeconds?: number;
}

export const MachineSetWindowsServer = {
  V2019: "2019",
  V2022: "2022",
  V2025: "2025",
} as const;
export type MachineSetWindowsServer = (typeof MachineSetWindowsServer)[keyof typeof MachineSetWindowsServer];

export const MachineSetTaintEffect = {
  NoSchedule: "NoSchedule",
  PreferNoSchedule: "PreferNoSchedule",
  NoExecute: "NoExecute",
} as const;
export type MachineSetTaintEffect = (typeof MachineSetTaintEffect)[keyof typeof MachineSetTaintEffect];

export interface MachineSetTaintArgs {
  /** Taint key, e.g. `dedicated`. */
  key: string;
  /** Taint value. Default: none. */
  value?: string;
  /** What the taint does to pods that do not tolerate it. */
  effect: MachineSetTaintEffect;
}

export const MachineSetRolloutStrategy = {
  replace: "replace",
  surge: "surge",
} as const;
export type MachineSetRolloutStrategy = (typeof MachineSetRolloutStrategy)[keyof typeof MachineSetRolloutStrategy];

/** Replace the set's existing Machines when its image changes (a MachineSet edit never touches running Machines). With `strategy: replace`, `pulumi up` deletes the Machines on the old image `maxUnavailable` at a time and waits for each replacement to be configured by WMCO before the next; needs `replicas` ≥ 2 (a node keeps serving). With `strategy: surge`, it annotates them with `machine.openshift.io/delete-machine`, scales the set up, waits for the new Machines to be configured, and scales back so the controller deletes the annotated ones. Default: no rollout. */
export interface MachineSetRolloutArgs {
  /** How old Machines make way: `replace` deletes them first (capacity drops meanwhile; no extra Machines), `surge` creates the new Machines first and deletes the old ones after (needs cloud quota for the extra Machines; `replicas` 1 is enough). Default `replace`. */
  strategy?: MachineSetRolloutStrategy;
  /** With `strategy: surge`, Machines replaced per round: the set grows by at most this many. Default: every Machine on the old image in one round (OpenShift's documented doubling). The machine-api FAQ advises touching at most about 20 Machines at a time. Ignored with `replace`. */
  maxSurge?: number;
  /** With `strategy: replace`, Machines replaced at once; never more than `replicas - 1`. Default 1. Ignored with `surge`. */
  maxUnavailable?: number;
  /** How long one batch's (`replace`) or round's (`surge`) new Machines may take to be Ready and configured by WMCO; with `surge` also how long the old ones may take to be drained and deleted. Minutes. Default 45 (WMCO's e2e allows 35). */
  readyTimeoutMinutes?: number;
}

export const MachineSetAwsVolumeType = {
  gp2: "gp2",
  gp3: "gp3",
  io1: "io1",
  io2: "io2",
  standard: "standard",
} as const;
export type MachineSetAwsVolumeType = (typeof MachineSetAwsVolumeType)[keyof typeof MachineSetAwsVolumeType];

/** `aws`: region is `cluster.region`. Fields marked "discoverable" are read from a Linux worker when left out. */
export interface MachineSetAwsArgs {
  /** Availability zone, e.g. `us-east-1a`. Required unless discovered. */
  availabilityZone?: string;
  /** Default `m5a.large`. */
  instanceType?: string;
  /** AMI ID. Default: the newest Amazon-owned `Windows_Server-<ver>-English-Core-Base-*`, looked up at `pulumi up`. */
  ami?: string;
  /** Without `ami`, the newest Windows AMI is looked up at the first `pulumi up` and pinned in state; change this text (e.g. a date) to move to the newest one at the next `pulumi up`. Default: unset. */
  amiRefresh?: string;
  /** Root volume size in GiB. Default 120. */
  volumeSize?: number;
  /** Root volume type. Default `gp2`. */
  volumeType?: MachineSetAwsVolumeType;
  /** Subnet ID (`subnet-…`) or Name tag. Default: discovered, else the tag `<infraId>-subnet-private-<az>`. */
  subnet?: string;
  /** Security group IDs (`sg-…`) or Name tags. Default: discovered, else the tag `<infraId>-node`. */
  securityGroups?: string[];
  /** IAM instance profile. Default: discovered, else `<infraId>-worker-profile`. */
  iamInstanceProfile?: string;
}

export const MachineSetAzureStorageAccountType = {
  Premium_LRS: "Premium_LRS",
  StandardSSD_LRS: "StandardSSD_LRS",
  Standard_LRS: "Standard_LRS",
  Premium_ZRS: "Premium_ZRS",
  StandardSSD_ZRS: "StandardSSD_ZRS",
} as const;
export type MachineSetAzureStorageAccountType = (typeof MachineSetAzureStorageAccountType)[keyof typeof MachineSetAzureStorageAccountType];

/** `azure`: location is `cluster.region`. */
export interface MachineSetAzureArgs {
  /** Default `Standard_D2s_v3`. */
  vmSize?: string;
  /** Availability zone (`"1"`, `"2"`, `"3"`) or `""` for none. Default: discovered, else `""`. */
  zone?: string;
  /** OS disk size in GB. Default 128. */
  diskSizeGB?: number;
  /** OS disk storage. Default `Premium_LRS`. */
  storageAccountType?: MachineSetAzureStorageAccountType;
  /** Image version. Default `latest`. Required for 2019: the version WMCO pinned was removed by Microsoft and newer 2019 images break SSH (KB5044277). */
  imageVersion?: string;
  /** Resource group of the Machines. Default `<infrastructureId>-rg` (the name WMCO's script derives). */
  resourceGroup?: string;
  /** Resource group of the virtual network. Default `<infrastructureId>-rg`. */
  networkResourceGroup?: string;
  /** Virtual network. Default `<infrastructureId>-vnet`. */
  vnet?: string;
  /** Subnet of the Windows workers. Default `<infrastructureId>-worker-subnet`. */
  subnet?: string;
  /** Public load balancer name (copied from the Linux workers when discovered). */
  publicLoadBalancer?: string;
}

export const MachineSetGcpDiskType = {
  Vpd_ssd: "pd-ssd",
  Vpd_balanced: "pd-balanced",
  Vpd_standard: "pd-standard",
} as const;
export type MachineSetGcpDiskType = (typeof MachineSetGcpDiskType)[keyof typeof MachineSetGcpDiskType];

/** `gcp`: region is `cluster.region`. */
export interface MachineSetGcpArgs {
  /** GCP project ID. Required unless discovered. */
  projectID?: string;
  /** Full zone, e.g. `us-central1-a`. Required unless discovered. */
  zone?: string;
  /** Default `n1-standard-4`. */
  machineType?: string;
  /** Boot disk size in GB. Default 128. */
  diskSizeGb?: number;
  /** Boot disk type. Default `pd-ssd`. */
  diskType?: MachineSetGcpDiskType;
  /** VPC network. Default `<infrastructureId>-network`. */
  network?: string;
  /** Subnetwork of the Windows workers. Default `<infrastructureId>-worker-subnet`. */
  subnetwork?: string;
  /** Service account of the Machines. Default `<infrastructureId>-w@<projectID>.iam.gserviceaccount.com`. */
  serviceAccountEmail?: string;
}

/** `vsphere`: your Windows golden-image template and the workspace of the Linux workers. */
export interface MachineSetVsphereArgs {
  /** The Windows golden-image VM template (sysprepped, with OpenSSH and the WMCO public key). Required. */
  template: string;
  /** vCenter server. Required unless discovered from a Linux worker. */
  server?: string;
  /** Datacenter. Required unless discovered from a Linux worker. */
  datacenter?: string;
  /** Datastore. Required unless discovered from a Linux worker. */
  datastore?: string;
  /** VM folder. Required unless discovered from a Linux worker. */
  folder?: string;
  /** Resource pool. Required unless discovered from a Linux worker. */
  resourcePool?: string;
  /** Network (port group) of the VMs. Required unless discovered from a Linux worker. */
  networkName?: string;
  /** Secret with vCenter credentials. Default: discovered, else `vsphere-cloud-credentials`. */
  credentialsSecret?: string;
  /** Virtual CPUs. Default 4. */
  numCPUs?: number;
  /** Cores per virtual socket. Default 1. */
  numCoresPerSocket?: number;
  /** Memory, MiB. Default 16384. */
  memoryMiB?: number;
  /** Disk size, GiB; at least the template's. Default 128. */
  diskGiB?: number;
  /** The WMCO public keys the template's `administrators_authorized_keys` holds, each an OpenSSH public-key line or its `SHA256:` fingerprint (`ssh-keygen -lf <key.pub>`). vSphere Machines get their key from the template, never from user data, so the stack's key must be one of them, and a key rotation is refused until it is. Default: unset (the template is trusted to hold the stack's key, and a key rotation is refused). */
  templateKeys?: string[];
}

/** `nutanix`: Prism Element cluster, subnet and the uploaded Windows image. */
export interface MachineSetNutanixArgs {
  /** Prism Element cluster UUID. Required unless discovered. */
  clusterUuid?: string;
  /** Subnet UUID. Required unless discovered. */
  subnetUuid?: string;
  /** Name of the Windows image uploaded to Prism Central, e.g. `nutanix-windows-server-2022`. Required. */
  image: string;
  /** Secret with Prism Central credentials. Default: discovered, else `nutanix-credentials`. */
  credentialsSecret?: string;
  /** Prism project UUID (optional; discovered from the workers when they use one). Not with `projectName`. */
  projectUuid?: string;
  /** Prism project name (optional; discovered from the workers when they name one). Not with `projectUuid`. */
  projectName?: string;
  /** Virtual CPU sockets. Default 4. */
  vcpuSockets?: number;
  /** Virtual CPUs per socket. Default 1. */
  vcpusPerSocket?: number;
  /** Memory as a quantity, a whole number of bytes; rendered as Kubernetes writes it back (`16384Mi` as `16Gi`). Default `16Gi`. */
  memorySize?: string;
  /** System disk size as a quantity, a whole number of bytes; rendered like `memorySize`. Default `120Gi`. */
  systemDiskSize?: string;
}

export interface MachineSetArgs {
  /** MachineSet name. Default: AWS `<infraId>-winworker-<az>`, GCP `<infraId>-winworker-<zone suffix>`, else `winworker` (`winbyoh` with `byoh`). */
  name?: string;
  /** Default 1. */
  replicas?: number;
  /** Default `2022`. */
  windowsServer?: MachineSetWindowsServer;
  /** Machines labelled `windowsmachineconfig.openshift.io/ignore: "true"`: WMCO leaves them alone (to use them as BYOH hosts). Default false. */
  byoh?: boolean;
  /** Labels for the nodes (Machine `spec.metadata.labels`). */
  labels?: { [key: string]: string };
  /** Taints for the nodes, on top of the `os=Windows:NoSchedule` taint kubelet registers. */
  taints?: MachineSetTaintArgs[];
  /** Annotations on the MachineSet (e.g. autoscaler min/max size). */
  annotations?: { [key: string]: string };
  /** Replace the set's existing Machines when its image changes (a MachineSet edit never touches running Machines). With `strategy: replace`, `pulumi up` deletes the Machines on the old image `maxUnavailable` at a time and waits for each replacement to be configured by WMCO before the next; needs `replicas` ≥ 2 (a node keeps serving). With `strategy: surge`, it annotates them with `machine.openshift.io/delete-machine`, scales the set up, waits for the new Machines to be configured, and scales back so the controller deletes the annotated ones. Default: no rollout. */
  rollout?: MachineSetRolloutArgs;
  /** `aws`: region is `cluster.region`. Fields marked "discoverable" are read from a Linux worker when left out. */
  aws?: MachineSetAwsArgs;
  /** `azure`: location is `cluster.region`. */
  azure?: MachineSetAzureArgs;
  /** `gcp`: region is `cluster.region`. */
  gcp?: MachineSetGcpArgs;
  /** `vsphere`: your Windows golden-image template and the workspace of the Linux workers. */
  vsphere?: MachineSetVsphereArgs;
  /** `nutanix`: Prism Element cluster, subnet and the uploaded Windows image. */
  nutanix?: MachineSetNutanixArgs;
}

export const MirrorsDigestMirrorSourcePolicy = {
  AllowContactingSource: "AllowContactingSource",
  NeverContactSource: "NeverContactSource",
} as const;
export type MirrorsDigestMirrorSourcePolicy = (typeof MirrorsDigestMirrorSourcePolicy)[keyof typeof MirrorsDigestMirrorSourcePolicy];

export interface MirrorsDigestArgs {
  /** The repository or registry to mirror, e.g. `registry.redhat.io/ubi9` or `mcr.microsoft.com/oss/kubernetes/pause`. With Windows nodes, no `*.` wildcard and, on OpenShift, no `:port`: the registry's `hosts.toml` goes into a directory named after it (WMCO's spelling on OpenShift, containerd's `host_port_` on kubeadm), and Windows cannot create one with `*` or `:` in its name (docs/wmco.md). */
  source: string;
  /** Mirrors in order of preference, e.g. `mirror.example.com:5000/oss/kubernetes/pause`. On Windows the mirror's path must end with the source's path. */
  mirrors?: string[];
  /** `AllowContactingSource` (default) or `NeverContactSource`. On Windows one NeverContactSource entry applies to the whole registry. */
  mirrorSourcePolicy?: MirrorsDigestMirrorSourcePolicy;
  /** Name of the rendered ImageDigestMirrorSet/ImageTagMirrorSet. Default: derived from the source, stable across runs. */
  name?: string;
}

export interface MirrorsTagArgs {
  /** The repository or registry to mirror, e.g. `registry.redhat.io/ubi9` or `mcr.microsoft.com/oss/kubernetes/pause`. With Windows nodes, no `*.` wildcard and, on OpenShift, no `:port`: the registry's `hosts.toml` goes into a directory named after it (WMCO's spelling on OpenShift, containerd's `host_port_` on kubeadm), and Windows cannot create one with `*` or `:` in its name (docs/wmco.md). */
  source: string;
  /** Mirrors in order of preference, e.g. `mirror.example.com:5000/oss/kubernetes/pause`. On Windows the mirror's path must end with the source's path. */
  mirrors?: string[];
  /** `AllowContactingSource` (default) or `NeverContactSource`. On Windows one NeverContactSource entry applies to the whole registry. */
  mirrorSourcePolicy?: MirrorsDigestMirrorSourcePolicy;
  /** Name of the rendered ImageDigestMirrorSet/ImageTagMirrorSet. Default: derived from the source, stable across runs. */
  name?: string;
}

/** `windows-estate:mirrors`: cluster-wide registry mirrors, rendered as `config.openshift.io/v1` ImageDigestMirrorSet (`digest`) and ImageTagMirrorSet (`tag`) objects. WMCO turns them into containerd `hosts.toml` files on every Windows node; the stack output `windowsRegistryConfig` shows those files before `pulumi up`. */
export interface MirrorsArgs {
  /** Pulls by digest (`image@sha256:...`). Preferred for Windows: WMCO mirrors by registry, and digests are unambiguous. */
  digest?: MirrorsDigestArgs[];
  /** Pulls by tag (`image:tag`). */
  tag?: MirrorsTagArgs[];
}

/** Create the host as an EC2 instance (instead of giving `address`). */
export interface ByohAwsArgs {
  /** EC2 instance type. Default `m5a.large` (WMCO's docs' example). */
  instanceType?: string;
  /** The subnet the VM joins: one the cluster's nodes can reach on 22, 10250 and 9182, with a route out for first boot (OpenSSH comes from Windows Update) and image pulls (a NAT gateway, as the installer gives private subnets). */
  subnetId: string;
  /** Security groups: the cluster's node group (Name tag `<infrastructureId>-node`, `<infrastructureId>-worker-sg` on older installs; WMCO's MachineSets use it), which admits the cluster's own traffic to 22, 10250 and 9182. */
  securityGroupIds: string[];
  /** A pinned AMI. Default: the newest Amazon Windows Server AMI for `windowsServer`, pinned at the first up. */
  ami?: string;
  /** Root volume size, GiB. Default 120. */
  volumeSize?: number;
  /** An IAM instance profile name. Default on OpenShift: the Linux workers' profile (discovery at preview/up), else `<infrastructureId>-worker-profile`, which WMCO's own Windows machines use (hack/machineset.sh) and the ECR credential provider WMCO configures needs. Default on Kubernetes: none. */
  iamInstanceProfile?: string;
  /** An EC2 key pair name (only for the Administrator password; SSH uses the WMCO key). Default: none. */
  keyName?: string;
  /** AWS region. Default: `cluster.region`. */
  region?: string;
}

/** Marketplace image. Default: Windows Server Datacenter smalldisk for `windowsServer`, version `latest`. */
export interface ByohAzureImageArgs {
  /** Image publisher, e.g. `MicrosoftWindowsServer`. */
  publisher: string;
  /** Image offer, e.g. `WindowsServer`. */
  offer: string;
  /** Image SKU, e.g. `2022-datacenter-smalldisk`. */
  sku: string;
  /** Image version, or `latest`. */
  version: string;
}

/** Create the host as an Azure VM (instead of giving `address`). */
export interface ByohAzureArgs {
  /** The subscription the VM is created in (it names the subnet's resource ID). */
  subscriptionId: string;
  /** Resource group of the VM and its NIC. Default `<infrastructureId>-rg` (the cluster's, as the MachineSet builder). */
  resourceGroup?: string;
  /** Azure region. Default: `cluster.region`. */
  location?: string;
  /** Virtual network. Default `<infrastructureId>-vnet`. */
  vnet?: string;
  /** Subnet. Default `<infrastructureId>-worker-subnet`. */
  subnet?: string;
  /** Resource group of the virtual network. Default: `resourceGroup`. */
  networkResourceGroup?: string;
  /** VM size. Default `Standard_D2s_v3` (WMCO's docs' example). */
  vmSize?: string;
  /** The cluster's public load balancer (by name, in `resourceGroup`): the NIC joins its IPv4 backend pools, the outbound path WMCO's Azure MachineSets use (`publicLoadBalancer`, copied from the Linux workers). First boot needs a way out (OpenSSH from Windows Update, then the registries). Default: the Linux workers' (discovery at preview/up); `""` states that the subnet has its own (a NAT gateway, a firewall route) and joins none. */
  publicLoadBalancer?: string;
  /** OS disk size, GiB. Default 128, as WMCO's Azure MachineSets (the smalldisk image has 30). Azure can grow it, never shrink it, and takes at most 1023 here (its OSDisk.diskSizeGB). */
  osDiskSizeGB?: number;
  /** Marketplace image. Default: Windows Server Datacenter smalldisk for `windowsServer`, version `latest`. */
  image?: ByohAzureImageArgs;
  /** The VM's administrator (Azure requires one). WMCO logs in as this user: it is the `windows-instances` username. Azure refuses its reserved names (`administrator`, `admin`, `user`, …), more than 20 characters and a final `.`. */
  adminUsername?: string;
  /** Name of a secret stack config key (in this namespace) holding the admin password. Required. Azure's rules: 8 to 123 characters, three of lower case, upper case, digit and special character, none of its known-weak values. */
  adminPasswordSecret: string;
}

/** Credential for the first connection; afterwards the WMCO key is used. Default: the WMCO key itself. */
export interface ByohBootstrapArgs {
  /** Path to a private key that the host already accepts (`~` expanded). */
  privateKeyPath?: string;
  /** Name of a secret stack config key (in this namespace) holding the bootstrap password, e.g. `byohPassword`. */
  passwordSecret?: string;
}

export interface ByohArgs {
  /** IPv4 address or DNS name that the WMCO pod can resolve (`windows-instances` key). IPv6 is rejected by WMCO. Required unless the entry provisions its VM (`aws` or `azure`), whose private IP is used. */
  address?: string;
  /** With `aws`/`azure`: the VMs' name and lower-case Windows hostname (`<name>-<n>` with `count` > 1), and their logical names in the stack (stable: changing it replaces the VMs). At most 15 characters with the suffix. */
  name?: string;
  /** With `aws`/`azure`: how many identical hosts. Default 1. */
  count?: number;
  /** Create the host as an EC2 instance (instead of giving `address`). */
  aws?: ByohAwsArgs;
  /** Create the host as an Azure VM (instead of giving `address`). */
  azure?: ByohAzureArgs;
  /** The administrator WMCO logs in as (`username=<user>` in `windows-instances`). Required with `address`; a provisioned host uses `Administrator` on AWS and `azure.adminUsername` on Azure. */
  username?: string;
  /** SSH port. Must be 22: WMCO always connects on 22 (validation says so for anything else). */
  port?: number;
  /** The Windows Server version the host runs: `2019`, `2022` or `2025`. Default `2022`. Checked against the WMCO in use and against the host itself; it decides the host's RuntimeClass. */
  windowsServer?: MachineSetWindowsServer;
  /** The host's SSH host key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required unless `trustOnFirstUse`. */
  hostKey?: string;
  /** Record the host key at first contact and enforce it afterwards. Default false: an unknown host key is an error. */
  trustOnFirstUse?: boolean;
  /** How long one operation on this host may keep retrying to connect (a host that is rebooting comes back within it), in seconds. Default 120; a refresh looks for at most 30 of them. */
  sshDeadlineSeconds?: number;
  /** Credential for the first connection; afterwards the WMCO key is used. Default: the WMCO key itself. */
  bootstrap?: ByohBootstrapArgs;
}

export const NodeAccessVia = {
  direct: "direct",
  jumpHost: "jumpHost",
  cluster: "cluster",
} as const;
export type NodeAccessVia = (typeof NodeAccessVia)[keyof typeof NodeAccessVia];

/** A jump host (bastion) every node session goes through. */
export interface NodeAccessJumpHostArgs {
  /** Address or DNS name of the jump host. */
  address: string;
  /** SSH port. Default 22. */
  port?: number;
  /** User on the jump host. */
  username: string;
  /** The jump host's key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required: host keys are verified. */
  hostKey: string;
  /** Path to the key the jump host accepts (`~` expanded). Default: the WMCO private key. */
  privateKeyPath?: string;
}

export const NodeAccessPortForwardSubjectKind = {
  User: "User",
  Group: "Group",
  ServiceAccount: "ServiceAccount",
} as const;
export type NodeAccessPortForwardSubjectKind = (typeof NodeAccessPortForwardSubjectKind)[keyof typeof NodeAccessPortForwardSubjectKind];

export interface NodeAccessPortForwardSubjectArgs {
  /** Kind of subject, as in a RoleBinding. */
  kind: NodeAccessPortForwardSubjectKind;
  /** User, group or ServiceAccount name. */
  name: string;
  /** Namespace of a ServiceAccount. */
  namespace?: string;
}

/** `windows-estate:nodeAccess`: how node operations (reboots, key rotation, BYOH preparation) reach Windows nodes over SSH from where `pulumi up` runs. */
export interface NodeAccessArgs {
  /** `direct` (default): SSH to the node's address. `jumpHost`: through `jumpHost`. `cluster`: through the Kubernetes API, a port-forward to a relay pod the program declares in the WMCO namespace (on a kubeadm cluster in its own namespace, `windows-estate-node-relay`). */
  via?: NodeAccessVia;
  /** A jump host (bastion) every node session goes through. */
  jumpHost?: NodeAccessJumpHostArgs;
  /** The relay pod's image (`via: cluster`): a Node.js runtime whose `node` runs as any numeric non-root user (on a kubeadm cluster the pod runs as UID and GID 1001, the default image's user; OpenShift assigns one from the namespace's range). Default: UBI 9 Node.js 22 minimal. */
  bastionImage?: string;
  /** How many relay pods (`via: cluster`), spread one per Linux node, with a disruption budget keeping one serving. Default: 2, or 1 when discovery finds a single Linux node the relay can be scheduled on (two there would make a drain of that node wait forever on the budget). Set 1 for such a cluster when discovery is off. */
  relayReplicas?: number;
  /** Who may use the relay (`via: cluster`): a RoleBinding to the port-forward Role is declared for them. */
  portForwardSubjects?: NodeAccessPortForwardSubjectArgs[];
  /** Host keys of nodes WMCO has not pinned (vanilla nodes, WMCO before 4.20), by Node name or address: an OpenSSH public-key line or a `SHA256:` fingerprint. WMCO's own pin on the Node wins when both exist and agree. */
  hostKeys?: { [key: string]: string };
  /** Accept and record the key of a node with no pin at first contact. Default false: an unpinned node is an error. */
  trustOnFirstUse?: boolean;
  /** Per-attempt connect and handshake timeout, seconds. Default 15. */
  connectTimeoutSeconds?: number;
}

export const RebootWindowDay = {
  Sun: "Sun",
  Mon: "Mon",
  Tue: "Tue",
  Wed: "Wed",
  Thu: "Thu",
  Fri: "Fri",
  Sat: "Sat",
} as const;
export type RebootWindowDay = (typeof RebootWindowDay)[keyof typeof RebootWindowDay];

/** When batches may start. Default: any time. */
export interface RebootWindowArgs {
  /** Opening time, `HH:MM` (24-hour) in `timeZone`. */
  start: string;
  /** Closing time, `HH:MM`; earlier than `start`: the window crosses midnight. */
  end: string;
  /** Days the window opens on (`Mon` … `Sun`). Default: every day. */
  days?: RebootWindowDay[];
  /** IANA time zone of `start` and `end` (`Europe/Berlin`). Default `UTC`. */
  timeZone?: string;
}

export const RebootBlockerScope = {
  node: "node",
  cluster: "cluster",
} as const;
export type RebootBlockerScope = (typeof RebootBlockerScope)[keyof typeof RebootBlockerScope];

export interface RebootBlockerArgs {
  /** A label selector, as `kubectl get pods -l` takes it (`app=backup,tier!=web`). */
  podSelector: string;
  /** Only pods in this namespace. Default: every namespace. */
  namespace?: string;
  /** `node` (default): pods on the node about to be taken out. `cluster`: pods anywhere. */
  scope?: RebootBlockerScope;
}

/** `windows-estate:reboot`: a rolling graceful reboot of the Windows nodes, run by `pulumi up` whenever `token` changes (and when the key first appears). */
export interface RebootArgs {
  /** Any string; changing it asks for a new rolling reboot (e.g. a date or a change ticket). */
  token: string;
  /** How many Windows nodes may be out at once: a number or a percentage (`"25%"`). Default 1. */
  maxUnavailable?: string;
  /** When batches may start. Default: any time. */
  window?: RebootWindowArgs;
  /** Pods that hold the reboot back while they run. Default: none. */
  blockers?: RebootBlockerArgs[];
  /** Only nodes with all these labels (besides `kubernetes.io/os=windows`). Default: every Windows node. */
  nodeSelector?: { [key: string]: string };
  /** Delete pods instead of evicting them, ignoring PodDisruptionBudgets (`kubectl drain --disable-eviction`). Default false. */
  disableEviction?: boolean;
  /** How long draining one node may take, evictions and waiting for the pods to leave (`--timeout`), seconds; past it the job stops and the node stays cordoned. 10 to 86400. Default 600. */
  drainTimeoutSeconds?: number;
  /** Also delete pods no controller recreates (bare pods) and pods whose DaemonSet is gone (`--force`). False: the drain stops before evicting anything when the node has such pods, naming them. Default true. */
  force?: boolean;
  /** Also delete pods using emptyDir volumes, whose data is lost (`--delete-emptydir-data`). False: the drain stops before evicting anything when the node has such pods, naming them. Default true. */
  deleteEmptyDirData?: boolean;
  /** Seconds each evicted pod gets to terminate (`--grace-period`, sent as the Eviction's `deleteOptions.gracePeriodSeconds`); 0 stops pods at once. A whole number, 0 to 86400. Default: each pod's own `terminationGracePeriodSeconds`. */
  gracePeriodSeconds?: number;
  /** Only drain pods matching this label selector (`--pod-selector`, e.g. `app!=log-shipper`); other pods stay on the node through the restart. Checked as the API server parses selectors. Default: every pod. */
  podSelector?: string;
  /** How long one node may take to come back Ready after the restart, seconds. Default 900. */
  readyTimeoutSeconds?: number;
}

export interface PatchingBlockerArgs {
  /** A label selector, as `kubectl get pods -l` takes it (`app=backup,tier!=web`). */
  podSelector: string;
  /** Only pods in this namespace. Default: every namespace. */
  namespace?: string;
  /** `node` (default): pods on the node about to be taken out. `cluster`: pods anywhere. */
  scope?: RebootBlockerScope;
}

/** The proxy Windows Update goes through, set as the WUA session's `WebProxy` in the SYSTEM task that searches and installs (a proxy in machine environment variables is not used by WUA). Default: on vanilla stacks `kubernetes.proxy` (`httpsProxy`, else `httpProxy`, and `noProxy`); otherwise none (the host's own WSUS or WinHTTP settings). The URL travels as a secret (it may hold credentials). */
export interface PatchingProxyArgs {
  /** `http://proxy.example.com:3128`; `http://user:password@…` sets the WUA proxy's user and password. */
  url: string;
  /** Host names reached directly (`wsus.example.com`, `*.example.com`), as IWebProxy's BypassList. Default none. */
  bypass?: string[];
}

/** When patching may start (`{ start: "22:00", end: "04:00" }` in UTC unless `timeZone` says otherwise). Default: any time. */
export interface PatchingWindowArgs {
  /** Opening time, `HH:MM` (24-hour) in `timeZone`. */
  start: string;
  /** Closing time, `HH:MM`; earlier than `start`: the window crosses midnight. */
  end: string;
  /** Days the window opens on (`Mon` … `Sun`). Default: every day. */
  days?: RebootWindowDay[];
  /** IANA time zone of `start` and `end` (`Europe/Berlin`). Default `UTC`. */
  timeZone?: string;
}

/** `windows-estate:patching`: the patch level of the Windows hosts this stack manages (BYOH hosts, vanilla nodes), as code. Each `pulumi up` brings the nodes below the declared update revision up to it, in rolling batches. */
export interface PatchingArgs {
  /** Windows build number → the lowest update revision (UBR) accepted, e.g. `{ "20348": 2700 }` (Windows Server 2022 at 20348.2700 or later). Builds not listed are not patched. */
  minimumUpdateRevision: { [key: string]: number };
  /** Windows Update categories to install, by name as WUA reports it (`Security Updates`, `Critical Updates`, …) or by category ID. Default: every software update the host's update source (Windows Update or WSUS) offers. */
  categories?: string[];
  /** How many Windows nodes may be out at once: a number or a percentage (`"25%"`). Default 1. */
  maxUnavailable?: string;
  /** Pods that hold patching back while they run. Default: none. */
  blockers?: PatchingBlockerArgs[];
  /** Delete pods instead of evicting them, ignoring PodDisruptionBudgets (`kubectl drain --disable-eviction`). Default false. */
  disableEviction?: boolean;
  /** How long draining one node may take, evictions and waiting for the pods to leave (`--timeout`), seconds; past it the job stops and the node stays cordoned. 10 to 86400. Default 600. */
  drainTimeoutSeconds?: number;
  /** Also delete pods no controller recreates (bare pods) and pods whose DaemonSet is gone (`--force`). False: the drain stops before evicting anything when the node has such pods, naming them. Default true. */
  force?: boolean;
  /** Also delete pods using emptyDir volumes, whose data is lost (`--delete-emptydir-data`). False: the drain stops before evicting anything when the node has such pods, naming them. Default true. */
  deleteEmptyDirData?: boolean;
  /** Seconds each evicted pod gets to terminate (`--grace-period`, sent as the Eviction's `deleteOptions.gracePeriodSeconds`); 0 stops pods at once. A whole number, 0 to 86400. Default: each pod's own `terminationGracePeriodSeconds`. */
  gracePeriodSeconds?: number;
  /** Only drain pods matching this label selector (`--pod-selector`, e.g. `app!=log-shipper`); other pods stay on the node through the restart. Checked as the API server parses selectors. Default: every pod. */
  podSelector?: string;
  /** How long Windows Update may run on one node (search, download, install), minutes. Default 120. */
  installTimeoutMinutes?: number;
  /** The proxy Windows Update goes through, set as the WUA session's `WebProxy` in the SYSTEM task that searches and installs (a proxy in machine environment variables is not used by WUA). Default: on vanilla stacks `kubernetes.proxy` (`httpsProxy`, else `httpProxy`, and `noProxy`); otherwise none (the host's own WSUS or WinHTTP settings). The URL travels as a secret (it may hold credentials). */
  proxy?: PatchingProxyArgs;
  /** How long one node may take to be Ready again after its updates, seconds. Default 900. */
  readyTimeoutSeconds?: number;
  /** When patching may start (`{ start: "22:00", end: "04:00" }` in UTC unless `timeZone` says otherwise). Default: any time. */
  window?: PatchingWindowArgs;
}

/** What a `WindowsEstate` (OpenShift/OKD with WMCO) is built from: the keys of a stack's `windows-estate:` config, with the same names, shapes and defaults (docs/configuration.md). */
export interface WindowsEstateArgs {
  /** `windows-estate:cluster`: which cluster this stack manages and how to reach it. */
  cluster: ClusterArgs;
  /** `windows-estate:operator`: how WMCO is installed through OLM. Every field is optional; the defaults install Red Hat's build from `redhat-operators` on the `stable` channel with automatic approval. */
  operator?: OperatorArgs;
  /** The WMCO private key itself; must be a secret (`pulumi config set --secret windows-estate:privateKey < key`). */
  privateKey?: pulumi.Input<string>;
  /** Path to the WMCO private key file (`~` expanded, relative paths from the project directory). */
  privateKeyPath?: string;
  /** `windows-estate:machineSets`. */
  machineSets?: MachineSetArgs[];
  /** `windows-estate:mirrors`: cluster-wide registry mirrors, rendered as `config.openshift.io/v1` ImageDigestMirrorSet (`digest`) and ImageTagMirrorSet (`tag`) objects. WMCO turns them into containerd `hosts.toml` files on every Windows node; the stack output `windowsRegistryConfig` shows those files before `pulumi up`. */
  mirrors?: MirrorsArgs;
  /** `windows-estate:byoh`: Windows hosts you bring yourself. Each is prepared over SSH and listed in WMCO's `windows-instances` ConfigMap; removing an entry makes WMCO deconfigure that node. */
  byoh?: ByohArgs[];
  /** Whether `pulumi up` waits, after `windows-instances` and the MachineSets, until every Windows node they stand for has joined and WMCO has configured it (Ready, WMCO's `version` equal to its `desired-version` and to the running operator's, not cordoned, not upgrading), printing progress; a WMCO setup failure Event for one of them fails the update at once, quoting it. OpenShift only. Default true; false for pipelines that must not wait (nothing then tells the update that WMCO failed). */
  waitForNodes?: boolean;
  /** How long `pulumi up` waits for the Windows nodes (`waitForNodes`), in seconds: a cloud VM boots, installs and is configured by WMCO in 15 to 30 minutes. Default 2700. */
  waitForNodesTimeoutSeconds?: number;
  /** `windows-estate:nodeAccess`: how node operations (reboots, key rotation, BYOH preparation) reach Windows nodes over SSH from where `pulumi up` runs. */
  nodeAccess?: NodeAccessArgs;
  /** `windows-estate:reboot`: a rolling graceful reboot of the Windows nodes, run by `pulumi up` whenever `token` changes (and when the key first appears). */
  reboot?: RebootArgs;
  /** `windows-estate:patching`: the patch level of the Windows hosts this stack manages (BYOH hosts, vanilla nodes), as code. Each `pulumi up` brings the nodes below the declared update revision up to it, in rolling batches. */
  patching?: PatchingArgs;
}

/** flannel's VXLAN backend as Windows requires it. */
export interface KubernetesFlannelArgs {
  /** VXLAN network identifier. Windows flanneld refuses anything below 4096. Default 4096. */
  vni?: number;
  /** VXLAN UDP port. Windows flanneld accepts 4789 only. Default 4789. */
  port?: number;
  /** Patch the cluster's flannel ConfigMap (`kube-flannel/kube-flannel-cfg` `net-conf.json`) to this VNI and port. Default true; false only checks it and refuses with the exact fix. */
  manage?: boolean;
  /** flanneld's release for the Windows nodes (`v0.28.9`). Default: the pinned one (facts/kubernetes.ts). */
  version?: string;
  /** SHA-256 of that release's `flanneld.exe` (flannel publishes none). Required for a version without a pin in facts/kubernetes.ts; the node refuses a download that does not match. */
  flanneldSha256?: string;
  /** flannel's CNI plugin release for the Windows nodes (`v1.9.1-flannel3`, installed as `flannel.exe`). Default: the pinned one (facts/kubernetes.ts). */
  cniVersion?: string;
  /** SHA-256 of that release's `flannel-amd64.exe` (flannel publishes none). Required for a CNI version without a pin in facts/kubernetes.ts, or for a mirror that serves another build. */
  cniSha256?: string;
}

/** containerd on the Windows nodes. */
export interface KubernetesContainerdArgs {
  /** containerd release. Default: the one pinned for the Kubernetes version (facts/kubernetes.ts). */
  version?: string;
}

/** Where binaries come from. */
export interface KubernetesArtifactsArgs {
  /** A mirror of the public release URLs for disconnected sites: `https://dl.k8s.io/release/…` becomes `<baseUrl>/dl.k8s.io/release/…` (host and path kept below it). Default: the public URLs. */
  baseUrl?: string;
}

/** How upgrades of the joined nodes roll. */
export interface KubernetesUpgradeArgs {
  /** How many nodes an upgrade may disrupt at once (cordon, drain, restart the kubelet or containerd), across every `up` that runs against the cluster: each holds one of this many Leases in kube-system while it is out, and a node a failed upgrade left out of service counts until an `up` finishes it. A flanneld, kube-proxy or CNI-only change disrupts no node. Default 1. */
  maxUnavailable?: number;
  /** How long a node may wait for a free slot, in minutes; it stops waiting at once when every slot is taken by nodes that failed in the same `up`. Default 60. */
  waitMinutes?: number;
}

/** An HTTP(S) proxy the nodes' containerd and kubelet use (machine environment variables, as WMCO sets them for OpenShift nodes), and the downloads go through. Default: none. Values travel as secrets (a URL may hold credentials). */
export interface KubernetesProxyArgs {
  /** Proxy for HTTP, e.g. `http://proxy.example.com:3128`. */
  httpProxy?: string;
  /** Proxy for HTTPS. */
  httpsProxy?: string;
  /** Hosts, domains and CIDRs reached directly; the cluster's networks belong here. */
  noProxy?: string[];
}

/** `windows-estate:kubernetes` (with `cluster.platform: Kubernetes`): the vanilla cluster the Windows nodes join. What the cluster says itself (version, CIDRs, DNS service IP) is discovered at preview/up when left out. */
export interface KubernetesArgs {
  /** The Kubernetes version of the Windows nodes' kubelet, kubeadm and kube-proxy. Default: the API server's. */
  version?: string;
  /** The pod network (kubeadm `podSubnet`, flannel's `Network`). Default: discovered from `kubeadm-config`. */
  podNetworkCidr?: string;
  /** The service network (kubeadm `serviceSubnet`). Default: discovered from `kubeadm-config`. */
  serviceCidr?: string;
  /** The cluster DNS Service IP (the kubelet's `clusterDNS`). Default: discovered from `kube-system/kube-dns`. */
  dnsServiceIp?: string;
  /** The API server the nodes join (`host:port`). Default: discovered from `kube-public/cluster-info`. */
  apiServerEndpoint?: string;
  /** The pin of the cluster CA's public key the joins check (kubeadm `caCertHashes`, `sha256:<hex>`; printed by `kubeadm token create --print-join-command`). Default: computed from the CA in `kube-public/cluster-info`; required when discovery is off. */
  caCertHash?: string;
  /** flannel's VXLAN backend as Windows requires it. */
  flannel?: KubernetesFlannelArgs;
  /** containerd on the Windows nodes. */
  containerd?: KubernetesContainerdArgs;
  /** Where binaries come from. */
  artifacts?: KubernetesArtifactsArgs;
  /** The image of the Windows flanneld and kube-proxy HostProcess DaemonSets. They run the host's own checksum-verified binaries, so any HostProcess-capable image works; a mirror of the default for disconnected sites. Default: Microsoft's HostProcess base image (facts/kubernetes.ts `HOST_PROCESS_IMAGE`). */
  hostProcessImage?: string;
  /** How upgrades of the joined nodes roll. */
  upgrade?: KubernetesUpgradeArgs;
  /** Bootstrap token lifetime for joins, in hours (kubeadm's default is 24). Default 2. */
  tokenTtlHours?: number;
  /** An HTTP(S) proxy the nodes' containerd and kubelet use (machine environment variables, as WMCO sets them for OpenShift nodes), and the downloads go through. Default: none. Values travel as secrets (a URL may hold credentials). */
  proxy?: KubernetesProxyArgs;
}

/** Create the node as an EC2 instance (instead of giving `address`); `name` is then required. */
export interface NodeAwsArgs {
  /** EC2 instance type. Default `m5a.large` (WMCO's docs' example). */
  instanceType?: string;
  /** The subnet the VM joins: one the cluster's nodes can reach on 22, 10250 and 9182, with a route out for first boot (OpenSSH comes from Windows Update) and image pulls (a NAT gateway, as the installer gives private subnets). */
  subnetId: string;
  /** Security groups: the cluster's node group (Name tag `<infrastructureId>-node`, `<infrastructureId>-worker-sg` on older installs; WMCO's MachineSets use it), which admits the cluster's own traffic to 22, 10250 and 9182. */
  securityGroupIds: string[];
  /** A pinned AMI. Default: the newest Amazon Windows Server AMI for `windowsServer`, pinned at the first up. */
  ami?: string;
  /** Root volume size, GiB. Default 120. */
  volumeSize?: number;
  /** An IAM instance profile name. Default on OpenShift: the Linux workers' profile (discovery at preview/up), else `<infrastructureId>-worker-profile`, which WMCO's own Windows machines use (hack/machineset.sh) and the ECR credential provider WMCO configures needs. Default on Kubernetes: none. */
  iamInstanceProfile?: string;
  /** An EC2 key pair name (only for the Administrator password; SSH uses the WMCO key). Default: none. */
  keyName?: string;
  /** AWS region. Default: `cluster.region`. */
  region?: string;
}

/** Marketplace image. Default: Windows Server Datacenter smalldisk for `windowsServer`, version `latest`. */
export interface NodeAzureImageArgs {
  /** Image publisher, e.g. `MicrosoftWindowsServer`. */
  publisher: string;
  /** Image offer, e.g. `WindowsServer`. */
  offer: string;
  /** Image SKU, e.g. `2022-datacenter-smalldisk`. */
  sku: string;
  /** Image version, or `latest`. */
  version: string;
}

/** Create the node as an Azure VM (instead of giving `address`); `name` is then required. */
export interface NodeAzureArgs {
  /** The subscription the VM is created in (it names the subnet's resource ID). */
  subscriptionId: string;
  /** Resource group of the VM and its NIC. Default `<infrastructureId>-rg` (the cluster's, as the MachineSet builder). */
  resourceGroup?: string;
  /** Azure region. Default: `cluster.region`. */
  location?: string;
  /** Virtual network. Default `<infrastructureId>-vnet`. */
  vnet?: string;
  /** Subnet. Default `<infrastructureId>-worker-subnet`. */
  subnet?: string;
  /** Resource group of the virtual network. Default: `resourceGroup`. */
  networkResourceGroup?: string;
  /** VM size. Default `Standard_D2s_v3` (WMCO's docs' example). */
  vmSize?: string;
  /** The cluster's public load balancer (by name, in `resourceGroup`): the NIC joins its IPv4 backend pools, the outbound path WMCO's Azure MachineSets use (`publicLoadBalancer`, copied from the Linux workers). First boot needs a way out (OpenSSH from Windows Update, then the registries). Default: the Linux workers' (discovery at preview/up); `""` states that the subnet has its own (a NAT gateway, a firewall route) and joins none. */
  publicLoadBalancer?: string;
  /** OS disk size, GiB. Default 128, as WMCO's Azure MachineSets (the smalldisk image has 30). Azure can grow it, never shrink it, and takes at most 1023 here (its OSDisk.diskSizeGB). */
  osDiskSizeGB?: number;
  /** Marketplace image. Default: Windows Server Datacenter smalldisk for `windowsServer`, version `latest`. */
  image?: NodeAzureImageArgs;
  /** The VM's administrator (Azure requires one). WMCO logs in as this user: it is the `windows-instances` username. Azure refuses its reserved names (`administrator`, `admin`, `user`, …), more than 20 characters and a final `.`. */
  adminUsername?: string;
  /** Name of a secret stack config key (in this namespace) holding the admin password. Required. Azure's rules: 8 to 123 characters, three of lower case, upper case, digit and special character, none of its known-weak values. */
  adminPasswordSecret: string;
}

/** Credential for the first connection; afterwards the stack's node key. Default: the stack's key itself. */
export interface NodeBootstrapArgs {
  /** Path to a private key that the host already accepts (`~` expanded). */
  privateKeyPath?: string;
  /** Name of a secret stack config key (in this namespace) holding the password, e.g. `nodePassword`. */
  passwordSecret?: string;
}

export const NodeWindowsServer = {
  V2022: "2022",
  V2025: "2025",
} as const;
export type NodeWindowsServer = (typeof NodeWindowsServer)[keyof typeof NodeWindowsServer];

export interface NodeTaintArgs {
  /** Taint key, e.g. `os`. */
  key: string;
  /** Taint value. Default: none. */
  value?: string;
  /** What the taint does to pods that do not tolerate it. */
  effect: MachineSetTaintEffect;
}

export const NodeProviderId = {
  auto: "auto",
  none: "none",
} as const;
export type NodeProviderId = (typeof NodeProviderId)[keyof typeof NodeProviderId];

export interface NodeArgs {
  /** IPv4 address or DNS name the program reaches over SSH; also the node IP flannel uses. Required unless the entry creates its VM (`aws` or `azure`), whose private IP is used. */
  address?: string;
  /** An administrator account on the host. Required with `address`; a created VM uses its cloud's administrator. */
  username?: string;
  /** With `aws`/`azure`: how many identical nodes (named `<name>-<n>`). Default 1. */
  count?: number;
  /** Create the node as an EC2 instance (instead of giving `address`); `name` is then required. */
  aws?: NodeAwsArgs;
  /** Create the node as an Azure VM (instead of giving `address`); `name` is then required. */
  azure?: NodeAzureArgs;
  /** The Node's name. Default: the host's DNS host name in lower case, as the kubelet registers it (Go's os.Hostname, component-helpers `GetHostname`), read from the host; never the NetBIOS `COMPUTERNAME`, which is cut to 15 characters. A host whose DNS host name kubeadm would refuse (e.g. with `_`) stops before any change, naming this key. */
  name?: string;
  /** SSH port. Default 22. */
  port?: number;
  /** The host's SSH key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required unless `trustOnFirstUse`. */
  hostKey?: string;
  /** Record the host key at first contact and enforce it afterwards. Default false. */
  trustOnFirstUse?: boolean;
  /** Credential for the first connection; afterwards the stack's node key. Default: the stack's key itself. */
  bootstrap?: NodeBootstrapArgs;
  /** The host's IPv4 address on the cluster network: the kubelet's `--node-ip` (the Node's InternalIP, which flanneld binds VXLAN to through `status.hostIP`) and the CNI's provider address, so all three agree. Default: `address` (resolved from here when it is a DNS name), or a created VM's private IP. Set it when SSH reaches the host at another address (NAT, a second NIC). Changing it re-joins the node (drain, reset, join). */
  nodeIp?: string;
  /** The host will never answer again: `up` deletes its Node through the API (its pods are already lost; the pod garbage collector removes them) without trying SSH, and says what stays on the host. Delete the entry afterwards; that touches nothing. Not for nodes this stack creates (delete their entry: the VM goes with it). Default false. */
  forceRemove?: boolean;
  /** Windows Server version the host runs (`2022` or `2025`, as Kubernetes supports them). Default 2022. */
  windowsServer?: NodeWindowsServer;
  /** Labels for the Node (besides what the kubelet sets). */
  labels?: { [key: string]: string };
  /** Taints for the Node. Default: `os=windows:NoSchedule` (Kubernetes' Windows convention). */
  taints?: NodeTaintArgs[];
  /** `auto`: on vSphere, set `spec.providerID` from the BIOS serial (`vsphere://<uuid>`); `none` (default): leave it. */
  providerId?: NodeProviderId;
}

/** What a `VanillaEstate` (Windows hosts joined to a kubeadm cluster with flannel) is built from: the keys of a stack's `windows-estate:` config, with the same names, shapes and defaults (docs/configuration.md). */
export interface VanillaEstateArgs {
  /** `windows-estate:cluster`: which cluster this stack manages and how to reach it. */
  cluster: ClusterArgs;
  /** The WMCO private key itself; must be a secret (`pulumi config set --secret windows-estate:privateKey < key`). */
  privateKey?: pulumi.Input<string>;
  /** Path to the WMCO private key file (`~` expanded, relative paths from the project directory). */
  privateKeyPath?: string;
  /** `windows-estate:mirrors`: cluster-wide registry mirrors, rendered as `config.openshift.io/v1` ImageDigestMirrorSet (`digest`) and ImageTagMirrorSet (`tag`) objects. WMCO turns them into containerd `hosts.toml` files on every Windows node; the stack output `windowsRegistryConfig` shows those files before `pulumi up`. */
  mirrors?: MirrorsArgs;
  /** `windows-estate:nodeAccess`: how node operations (reboots, key rotation, BYOH preparation) reach Windows nodes over SSH from where `pulumi up` runs. */
  nodeAccess?: NodeAccessArgs;
  /** `windows-estate:reboot`: a rolling graceful reboot of the Windows nodes, run by `pulumi up` whenever `token` changes (and when the key first appears). */
  reboot?: RebootArgs;
  /** `windows-estate:patching`: the patch level of the Windows hosts this stack manages (BYOH hosts, vanilla nodes), as code. Each `pulumi up` brings the nodes below the declared update revision up to it, in rolling batches. */
  patching?: PatchingArgs;
  /** `windows-estate:kubernetes` (with `cluster.platform: Kubernetes`): the vanilla cluster the Windows nodes join. What the cluster says itself (version, CIDRs, DNS service IP) is discovered at preview/up when left out. */
  kubernetes?: KubernetesArgs;
  /** `windows-estate:nodes`: Windows hosts joined to a vanilla Kubernetes cluster (`cluster.platform: Kubernetes`). */
  nodes?: NodeArgs[];
}
