import { z } from "zod";
import { quantityBytes } from "../../lib/quantity";
import { WINDOWS_SERVERS, WindowsServer } from "../../facts/wmco";

// The Windows Server versions are a WMCO fact (facts/wmco.ts); the config schema derives from them.
const WINDOWS_VERSIONS = WINDOWS_SERVERS;
export type { WindowsServer };

const nonEmpty = z.string().min(1);

const taint = z.strictObject({
  /** Taint key, e.g. `dedicated`. */
  key: nonEmpty,
  /** Taint value. Default: none. */
  value: z.string().optional(),
  /** What the taint does to pods that do not tolerate it. */
  effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
});

/** `aws`: region is `cluster.region`. Fields marked "discoverable" are read from a Linux worker when left out. */
const aws = z.strictObject({
  /** Availability zone, e.g. `us-east-1a`. Required unless discovered. */
  availabilityZone: nonEmpty.optional(),
  /** Default `m5a.large`. */
  instanceType: nonEmpty.default("m5a.large"),
  /** AMI ID. Default: the newest Amazon-owned `Windows_Server-<ver>-English-Core-Base-*`, looked up at `pulumi up`. */
  ami: z
    .string()
    .regex(/^ami-[0-9a-f]{8,17}$/, "must be an AMI ID like ami-0123456789abcdef0")
    .optional(),
  /**
   * Without `ami`, the newest Windows AMI is looked up at the first `pulumi up` and pinned in state; change this
   * text (e.g. a date) to move to the newest one at the next `pulumi up`. Default: unset.
   */
  amiRefresh: z.string().min(1).optional(),
  /** Root volume size in GiB. Default 120. */
  volumeSize: z.number().int().min(30).max(16384).default(120),
  /** Root volume type. Default `gp2`. */
  volumeType: z.enum(["gp2", "gp3", "io1", "io2", "standard"]).default("gp2"),
  /** Subnet ID (`subnet-…`) or Name tag. Default: discovered, else the tag `<infraId>-subnet-private-<az>`. */
  subnet: nonEmpty.optional(),
  /** Security group IDs (`sg-…`) or Name tags. Default: discovered, else the tag `<infraId>-node`. */
  securityGroups: z.array(nonEmpty).min(1).optional(),
  /** IAM instance profile. Default: discovered, else `<infraId>-worker-profile`. */
  iamInstanceProfile: nonEmpty.optional(),
});

/** `azure`: location is `cluster.region`. */
const azure = z.strictObject({
  /** Default `Standard_D2s_v3`. */
  vmSize: nonEmpty.default("Standard_D2s_v3"),
  /** Availability zone (`"1"`, `"2"`, `"3"`) or `""` for none. Default: discovered, else `""`. */
  zone: z.string().optional(),
  /** OS disk size in GB. Default 128. */
  diskSizeGB: z.number().int().min(30).max(4095).default(128),
  /** OS disk storage. Default `Premium_LRS`. */
  storageAccountType: z
    .enum(["Premium_LRS", "StandardSSD_LRS", "Standard_LRS", "Premium_ZRS", "StandardSSD_ZRS"])
    .default("Premium_LRS"),
  /**
   * Image version. Default `latest`. Required for 2019: the version WMCO pinned was removed by Microsoft and newer
   * 2019 images break SSH (KB5044277).
   */
  imageVersion: nonEmpty.optional(),
  /** Resource group of the Machines. Default `<infrastructureId>-rg` (the name WMCO's script derives). */
  resourceGroup: nonEmpty.optional(),
  /** Resource group of the virtual network. Default `<infrastructureId>-rg`. */
  networkResourceGroup: nonEmpty.optional(),
  /** Virtual network. Default `<infrastructureId>-vnet`. */
  vnet: nonEmpty.optional(),
  /** Subnet of the Windows workers. Default `<infrastructureId>-worker-subnet`. */
  subnet: nonEmpty.optional(),
  /** Public load balancer name (copied from the Linux workers when discovered). */
  publicLoadBalancer: nonEmpty.optional(),
});

/** `gcp`: region is `cluster.region`. */
const gcp = z.strictObject({
  /** GCP project ID. Required unless discovered. */
  projectID: nonEmpty.optional(),
  /** Full zone, e.g. `us-central1-a`. Required unless discovered. */
  zone: nonEmpty.optional(),
  /** Default `n1-standard-4`. */
  machineType: nonEmpty.default("n1-standard-4"),
  /** Boot disk size in GB. Default 128. */
  diskSizeGb: z.number().int().min(50).max(65536).default(128),
  /** Boot disk type. Default `pd-ssd`. */
  diskType: z.enum(["pd-ssd", "pd-balanced", "pd-standard"]).default("pd-ssd"),
  /** VPC network. Default `<infrastructureId>-network`. */
  network: nonEmpty.optional(),
  /** Subnetwork of the Windows workers. Default `<infrastructureId>-worker-subnet`. */
  subnetwork: nonEmpty.optional(),
  /** Service account of the Machines. Default `<infrastructureId>-w@<projectID>.iam.gserviceaccount.com`. */
  serviceAccountEmail: nonEmpty.optional(),
});

/** `vsphere`: your Windows golden-image template and the workspace of the Linux workers. */
const vsphere = z.strictObject({
  /** The Windows golden-image VM template (sysprepped, with OpenSSH and the WMCO public key). Required. */
  template: nonEmpty,
  /** vCenter server. Required unless discovered from a Linux worker. */
  server: nonEmpty.optional(),
  /** Datacenter. Required unless discovered from a Linux worker. */
  datacenter: nonEmpty.optional(),
  /** Datastore. Required unless discovered from a Linux worker. */
  datastore: nonEmpty.optional(),
  /** VM folder. Required unless discovered from a Linux worker. */
  folder: nonEmpty.optional(),
  /** Resource pool. Required unless discovered from a Linux worker. */
  resourcePool: nonEmpty.optional(),
  /** Network (port group) of the VMs. Required unless discovered from a Linux worker. */
  networkName: nonEmpty.optional(),
  /** Secret with vCenter credentials. Default: discovered, else `vsphere-cloud-credentials`. */
  credentialsSecret: nonEmpty.optional(),
  /** Virtual CPUs. Default 4. */
  numCPUs: z.number().int().min(1).max(768).default(4),
  /** Cores per virtual socket. Default 1. */
  numCoresPerSocket: z.number().int().min(1).max(128).default(1),
  /** Memory, MiB. Default 16384. */
  memoryMiB: z.number().int().min(4096).max(24_000_000).default(16384),
  /** Disk size, GiB; at least the template's. Default 128. */
  diskGiB: z.number().int().min(60).max(62_000).default(128),
  /**
   * The WMCO public keys the template's `administrators_authorized_keys` holds, each an OpenSSH public-key line or its
   * `SHA256:` fingerprint (`ssh-keygen -lf <key.pub>`). vSphere Machines get their key from the template, never from
   * user data, so the stack's key must be one of them, and a key rotation is refused until it is. Default: unset (the
   * template is trusted to hold the stack's key, and a key rotation is refused).
   */
  templateKeys: z.array(nonEmpty).min(1).optional(),
});

// A whole number of bytes: Kubernetes writes any other quantity back in milli-bytes (lib/quantity.ts).
const quantity = z
  .string()
  .regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti)$/, "must be a quantity like 16Gi")
  .refine((q) => quantityBytes(q) !== undefined, "must be a whole number of bytes, like 1536Mi (1.3Gi is not)");

/** `nutanix`: Prism Element cluster, subnet and the uploaded Windows image. */
const nutanix = z.strictObject({
  /** Prism Element cluster UUID. Required unless discovered. */
  clusterUuid: nonEmpty.optional(),
  /** Subnet UUID. Required unless discovered. */
  subnetUuid: nonEmpty.optional(),
  /** Name of the Windows image uploaded to Prism Central, e.g. `nutanix-windows-server-2022`. Required. */
  image: nonEmpty,
  /** Secret with Prism Central credentials. Default: discovered, else `nutanix-credentials`. */
  credentialsSecret: nonEmpty.optional(),
  /** Prism project UUID (optional; discovered from the workers when they use one). Not with `projectName`. */
  projectUuid: nonEmpty.optional(),
  /** Prism project name (optional; discovered from the workers when they name one). Not with `projectUuid`. */
  projectName: nonEmpty.optional(),
  /** Virtual CPU sockets. Default 4. */
  vcpuSockets: z.number().int().min(1).max(64).default(4),
  /** Virtual CPUs per socket. Default 1. */
  vcpusPerSocket: z.number().int().min(1).max(64).default(1),
  /**
   * Memory as a quantity, a whole number of bytes; rendered as Kubernetes writes it back (`16384Mi` as `16Gi`).
   * Default `16Gi`.
   */
  memorySize: quantity.default("16Gi"),
  /** System disk size as a quantity, a whole number of bytes; rendered like `memorySize`. Default `120Gi`. */
  systemDiskSize: quantity.default("120Gi"),
});

const labelMap = z.record(z.string().min(1).max(317), z.string().max(63));

/** One Windows MachineSet. Exactly one platform block, named after `cluster.platform` in lower case. */
export const machineSetSchema = z.strictObject({
  /** MachineSet name. Default: AWS `<infraId>-winworker-<az>`, GCP `<infraId>-winworker-<zone suffix>`, else `winworker` (`winbyoh` with `byoh`). */
  name: nonEmpty.optional(),
  /** Default 1. */
  replicas: z.number().int().min(0).max(500).default(1),
  /** Default `2022`. */
  windowsServer: z.enum(WINDOWS_VERSIONS).default("2022"),
  /** Machines labelled `windowsmachineconfig.openshift.io/ignore: "true"`: WMCO leaves them alone (to use them as BYOH hosts). Default false. */
  byoh: z.boolean().default(false),
  /** Labels for the nodes (Machine `spec.metadata.labels`). */
  labels: labelMap.default({}),
  /** Taints for the nodes, on top of the `os=Windows:NoSchedule` taint kubelet registers. */
  taints: z.array(taint).default([]),
  /** Annotations on the MachineSet (e.g. autoscaler min/max size). */
  annotations: z.record(z.string().min(1), z.string()).default({}),
  /**
   * Replace the set's existing Machines when its image changes (a MachineSet edit never touches running Machines).
   * With `strategy: replace`, `pulumi up` deletes the Machines on the old image `maxUnavailable` at a time and waits for
   * each replacement to be configured by WMCO before the next; needs `replicas` ≥ 2 (a node keeps serving). With
   * `strategy: surge`, it annotates them with `machine.openshift.io/delete-machine`, scales the set up, waits for the
   * new Machines to be configured, and scales back so the controller deletes the annotated ones. Default: no rollout.
   */
  rollout: z
    .strictObject({
      /**
       * How old Machines make way: `replace` deletes them first (capacity drops meanwhile; no extra Machines), `surge`
       * creates the new Machines first and deletes the old ones after (needs cloud quota for the extra Machines;
       * `replicas` 1 is enough). Default `replace`.
       */
      strategy: z.enum(["replace", "surge"]).default("replace"),
      /**
       * With `strategy: surge`, Machines replaced per round: the set grows by at most this many. Default: every Machine
       * on the old image in one round (OpenShift's documented doubling). The machine-api FAQ advises touching at most
       * about 20 Machines at a time. Ignored with `replace`.
       */
      maxSurge: z.number().int().min(1).max(100).optional(),
      /** With `strategy: replace`, Machines replaced at once; never more than `replicas - 1`. Default 1. Ignored with `surge`. */
      maxUnavailable: z.number().int().min(1).max(100).default(1),
      /**
       * How long one batch's (`replace`) or round's (`surge`) new Machines may take to be Ready and configured by WMCO;
       * with `surge` also how long the old ones may take to be drained and deleted. Minutes. Default 45 (WMCO's e2e
       * allows 35).
       */
      readyTimeoutMinutes: z.number().int().min(5).max(600).default(45),
    })
    .optional(),
  aws: aws.optional(),
  azure: azure.optional(),
  gcp: gcp.optional(),
  vsphere: vsphere.optional(),
  nutanix: nutanix.optional(),
});

/** `windows-estate:machineSets`. */
export const machineSetsSchema = z.array(machineSetSchema).default([]);

export type MachineSetConfig = z.output<typeof machineSetSchema>;
export type AwsBlock = z.output<typeof aws>;
export type AzureBlock = z.output<typeof azure>;
export type GcpBlock = z.output<typeof gcp>;
export type VsphereBlock = z.output<typeof vsphere>;
export type NutanixBlock = z.output<typeof nutanix>;
