/**
 * Facts about the clouds this program creates Windows VMs on (AWS, Azure), each from its source: the rules their APIs
 * apply to what we send them, the regions they have, and what WMCO's own Windows machines look like there
 * (openshift/windows-machine-config-operator hack/machineset.sh, 79f5b5ae056c, 2026-04-16).
 */

/**
 * The EC2Launch v2 version WMCO's AWS user data requires, for the `add-routes --persistent` task that keeps the
 * instance-metadata route across reboots (pkg/secrets/secrets.go `EC2LaunchMinimumVersion`, "custom task to persist
 * routes (WINC-1149)").
 */
export const EC2LAUNCH_MINIMUM_VERSION = "2.0.2107";

/** What WMCO's own Windows machines get, which the VMs this stack creates follow (hack/machineset.sh). */
export const WMCO_MACHINE = {
  /** Azure OS disk, GiB: `osDisk.diskSizeGB: 128` on the `…-datacenter-smalldisk` image (30 GiB as published). */
  azureOsDiskGiB: 128,
  /** AWS root volume, GiB: `blockDevices[].ebs.volumeSize: 120`. */
  awsRootVolumeGiB: 120,
  /** AWS instance profile: `iamInstanceProfile.id: ${infraID}-worker-profile` (the ECR credential provider uses it). */
  awsInstanceProfile: (infrastructureId: string) => `${infrastructureId}-worker-profile`,
  /** AWS security group WMCO's machines join, found by its Name tag: `${infraID}-node` (`${infraID}-worker-sg` before CAPA installs). */
  awsNodeSecurityGroupNames: (infrastructureId: string) => [
    `${infrastructureId}-node`,
    `${infrastructureId}-worker-sg`,
  ],
} as const;

/**
 * Azure's rules for a Windows VM's administrator (the Compute REST API's OSProfile, as @pulumi/azure-native 3.28.0
 * `compute.OSProfileArgs` carries them): `adminUsername` "Windows-only restriction: Cannot end in "."", these
 * "Disallowed values", "Max-length (Windows): 20 characters"; `adminPassword` "Minimum-length (Windows): 8
 * characters", "Max-length (Windows): 123 characters", "3 out of 4 conditions below need to be fulfilled: Has lower
 * characters, Has upper characters, Has a digit, Has a special character (Regex match [\W_])", and its disallowed
 * values. Azure compares account names without regard to case, as Windows does.
 */
export const AZURE_ADMIN = {
  usernameMaxLength: 20,
  disallowedUsernames: [
    "administrator",
    "admin",
    "user",
    "user1",
    "test",
    "user2",
    "test1",
    "user3",
    "admin1",
    "1",
    "123",
    "a",
    "actuser",
    "adm",
    "admin2",
    "aspnet",
    "backup",
    "console",
    "david",
    "guest",
    "john",
    "owner",
    "root",
    "server",
    "sql",
    "support",
    "support_388945a0",
    "sys",
    "test2",
    "test3",
    "user4",
    "user5",
  ],
  passwordLength: { min: 8, max: 123 },
  /** The four classes, of which a password needs three. */
  passwordClasses: [
    { name: "a lower-case letter", test: /[a-z]/ },
    { name: "an upper-case letter", test: /[A-Z]/ },
    { name: "a digit", test: /\d/ },
    { name: "a special character", test: /[\W_]/ },
  ],
  disallowedPasswords: [
    "abc@123",
    "P@$$w0rd",
    "P@ssw0rd",
    "P@ssword123",
    "Pa$$word",
    "pass@word1",
    "Password!",
    "Password1",
    "Password22",
    "iloveyou!",
  ],
} as const;

/**
 * The AWS regions of the commercial partition, from @pulumi/aws 7.48.0 `types/enums` `Region` ("any valid Amazon
 * region"), less China, GovCloud, the European Sovereign Cloud and the ISO partitions. A region AWS opens later is
 * missing until this list is updated: an unknown region is a warning, never a refusal.
 */
export const AWS_REGIONS = [
  "af-south-1",
  "ap-east-1",
  "ap-east-2",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ap-south-1",
  "ap-south-2",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-southeast-3",
  "ap-southeast-4",
  "ap-southeast-5",
  "ap-southeast-6",
  "ap-southeast-7",
  "ca-central-1",
  "ca-west-1",
  "eu-central-1",
  "eu-central-2",
  "eu-north-1",
  "eu-south-1",
  "eu-south-2",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "il-central-1",
  "me-central-1",
  "me-south-1",
  "mx-central-1",
  "sa-east-1",
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
] as const;
/** An AWS region code's shape (`us-east-1`, `ap-southeast-4`): what AWS refuses before any lookup. */
export const AWS_REGION_SHAPE = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/**
 * An Availability Zone of `region`: the region code and a letter (`us-east-2a`), or a Local Zone (`us-west-2-lax-1a`)
 * (AWS "AWS Availability Zones"; "Available Local Zones").
 */
export const awsZoneOf = (region: string) => new RegExp(`^${region.replace(/[^a-z0-9-]/g, "")}(-[a-z]+-\\d+)?[a-z]$`);

/**
 * Azure public-cloud locations (programmatic names), from Microsoft's "Azure regions list"
 * (MicrosoftDocs/reliability-docs articles/reliability/regions-list.md, ms.date 2025-09-23), plus names
 * `az account list-locations` gives that the page has no row for (swedensouth, the Jio regions, the two EUAP canary
 * locations). An unknown location is a warning, never a refusal.
 */
export const AZURE_LOCATIONS = [
  "australiacentral",
  "australiacentral2",
  "australiaeast",
  "australiasoutheast",
  "austriaeast",
  "belgiumcentral",
  "brazilsouth",
  "brazilsoutheast",
  "canadacentral",
  "canadaeast",
  "centralindia",
  "centralus",
  "centraluseuap",
  "chilecentral",
  "denmarkeast",
  "eastasia",
  "eastus",
  "eastus2",
  "eastus2euap",
  "francecentral",
  "francesouth",
  "germanynorth",
  "germanywestcentral",
  "indonesiacentral",
  "israelcentral",
  "italynorth",
  "japaneast",
  "japanwest",
  "jioindiacentral",
  "jioindiawest",
  "koreacentral",
  "koreasouth",
  "malaysiawest",
  "mexicocentral",
  "newzealandnorth",
  "northcentralus",
  "northeurope",
  "norwayeast",
  "norwaywest",
  "polandcentral",
  "qatarcentral",
  "southafricanorth",
  "southafricawest",
  "southcentralus",
  "southeastasia",
  "southindia",
  "spaincentral",
  "swedencentral",
  "swedensouth",
  "switzerlandnorth",
  "switzerlandwest",
  "uaecentral",
  "uaenorth",
  "uksouth",
  "ukwest",
  "westcentralus",
  "westeurope",
  "westindia",
  "westus",
  "westus2",
  "westus3",
] as const;
/** Azure availability zones are numbered per location (`"1"`, `"2"`, `"3"`); `""` is no zone. */
export const AZURE_ZONES = ["", "1", "2", "3"] as const;
