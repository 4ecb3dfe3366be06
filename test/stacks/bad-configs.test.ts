import * as fs from "fs";
import * as path from "path";
import { runSynth, scratch, writeStack } from "../helpers/stack";

// The corpus of bad stack configs: each must make synth exit 2, name the key, print no stack trace and write
// nothing. Synth checks config before the program runs, so these run in-process and fast.
const s = scratch();
afterAll(() => s.cleanup());

const cluster = { platform: "Azure", infrastructureId: "win-tmk9g", region: "westus" };
const good = () => ({ cluster, privateKeyPath: s.keyPath });

function keyFile(name: string, text: string): string {
  const p = path.join(s.dir, name);
  fs.writeFileSync(p, text);
  return p;
}

interface Case {
  name: string;
  config: Record<string, unknown>;
  /** Key paths (after `windows-estate:`, or full keys with their own namespace) the message must name. */
  paths: string[];
  /** Extra text the message must contain (the fix or the allowed values). */
  says?: RegExp;
}

// A table of cases, one mistake on an otherwise good stack a row: rows alike in shape are what a table is.
const cases: Case[] = [
  {
    name: "nodeAccess via jumpHost without the jump host",
    config: { ...good(), nodeAccess: { via: "jumpHost" } },
    paths: ["nodeAccess.jumpHost"],
    says: /is required with via: jumpHost/,
  },
  {
    name: "nodeAccess via an unknown path",
    config: { ...good(), nodeAccess: { via: "bastion" } },
    paths: ["nodeAccess.via"],
    says: /direct.*jumpHost.*cluster/,
  },
  {
    name: "an unreadable host-key pin",
    config: { ...good(), nodeAccess: { hostKeys: { "win-1": "not a key" } } },
    paths: [`nodeAccess.hostKeys["win-1"]`],
    says: /OpenSSH public-key line or a SHA256: fingerprint/,
  },
  {
    name: "bastionImage without via: cluster",
    config: { ...good(), nodeAccess: { bastionImage: "registry.example.com/node:22" } },
    paths: ["nodeAccess"],
    says: /apply to via: cluster only/,
  },
  {
    name: "a created BYOH host without a name",
    config: { ...good(), byoh: [{ aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] } }] },
    paths: ["byoh[0].name"],
    says: /hostname/,
  },
  {
    name: "a created BYOH host whose numbered names exceed 15 characters",
    config: {
      ...good(),
      byoh: [{ name: "windows-byoh-x", count: 12, aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] } }],
    },
    paths: ["byoh[0].name"],
    says: /"windows-byoh-x-12".*15 characters/,
  },
  {
    name: "a created BYOH host with an address as well",
    config: {
      ...good(),
      byoh: [{ name: "w", address: "10.0.0.5", aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] } }],
    },
    paths: ["byoh[0].address"],
    says: /private IP/,
  },
  {
    name: "a BYOH entry on two clouds",
    config: {
      ...good(),
      byoh: [
        {
          name: "w",
          aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] },
          azure: { subscriptionId: "00000000-1111-2222-3333-444444444444", adminPasswordSecret: "p" },
        },
      ],
    },
    paths: ["byoh[0].azure"],
    says: /one cloud/,
  },
  {
    name: "a created BYOH host with a host key given",
    config: {
      ...good(),
      byoh: [{ name: "w", hostKey: "SHA256:x", aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] } }],
    },
    paths: ["byoh[0].hostKey"],
    says: /first contact/,
  },
  {
    name: "a created BYOH host with a malformed subnet",
    config: { ...good(), byoh: [{ name: "w", aws: { subnetId: "10.0.0.0/24", securityGroupIds: ["sg-0a1b"] } }] },
    paths: ["byoh[0].aws.subnetId"],
    says: /subnet ID/,
  },
  {
    name: "an Azure BYOH host whose admin password is not a secret config value",
    config: {
      ...good(),
      byoh: [
        {
          name: "w",
          azure: { subscriptionId: "00000000-1111-2222-3333-444444444444", adminPasswordSecret: "byohAdminPassword" },
        },
      ],
    },
    paths: ["byoh[0].azure.adminPasswordSecret"],
    says: /pulumi config set --secret windows-estate:byohAdminPassword/,
  },
  // Issue 41 audit row 11: Azure's OSProfile.adminUsername "Disallowed values" and "Max-length (Windows): 20".
  ...[
    ["administrator", /"administrator" is a name Azure reserves for Windows VMs/],
    ["Admin", /"Admin" is a name Azure reserves for Windows VMs/],
    ["a-very-long-admin-name", /is 22 characters, Azure takes at most 20/],
  ].map(([adminUsername, says]): Case => ({
    name: `an Azure admin name Azure refuses: ${String(adminUsername)}`,
    config: {
      ...good(),
      byoh: [
        {
          name: "w",
          azure: {
            subscriptionId: "00000000-1111-2222-3333-444444444444",
            adminPasswordSecret: "byohAdminPassword",
            adminUsername,
          },
        },
      ],
    },
    paths: ["byoh[0].azure.adminUsername"],
    says: says as RegExp,
  })),
  {
    name: "an AWS cluster region that is no region code",
    config: { ...good(), cluster: { ...cluster, platform: "AWS", region: "Ohio" } },
    paths: ["cluster.region"],
    says: /is not an AWS region code \(like us-east-2\)/,
  },
  {
    name: "an AWS MachineSet zone outside the cluster's region",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "AWS", region: "us-east-2" },
      machineSets: [{ aws: { availabilityZone: "us-east-1a" }, replicas: 1 }],
    },
    paths: ["machineSets[0].aws.availabilityZone"],
    says: /is not an Availability Zone of us-east-2/,
  },
  {
    name: "a BYOH host given by address without a username",
    config: { ...good(), byoh: [{ address: "10.0.0.5", trustOnFirstUse: true }] },
    paths: ["byoh[0].username"],
  },
  {
    name: "an image rollout of a one-replica MachineSet",
    config: {
      ...good(),
      machineSets: [{ azure: { vmSize: "Standard_D4s_v3" }, replicas: 1, rollout: { maxUnavailable: 1 } }],
    },
    paths: ["machineSets[0].rollout"],
    says: /replicas of at least 2/,
  },
  {
    name: "patching without a minimum",
    config: { ...good(), patching: { maxUnavailable: 2 } },
    paths: ["patching.minimumUpdateRevision"],
  },
  {
    name: "patching a build WMCO nodes never have",
    config: { ...good(), patching: { minimumUpdateRevision: { "22000": 100 } } },
    paths: [`patching.minimumUpdateRevision["22000"]`],
    says: /17763 \(2019\), 20348 \(2022\), 26100 \(2025\)/,
  },
  {
    name: "patching with a negative revision",
    config: { ...good(), patching: { minimumUpdateRevision: { "20348": -1 } } },
    paths: [`patching.minimumUpdateRevision["20348"]`],
  },
  {
    name: "patching window that is not a UTC time",
    config: {
      ...good(),
      patching: { minimumUpdateRevision: { "20348": 2700 }, window: { start: "10pm", end: "04:00" } },
    },
    paths: ["patching.window.start"],
    says: /HH:MM/,
  },
  {
    name: "patching window that is empty",
    config: {
      ...good(),
      patching: { minimumUpdateRevision: { "20348": 2700 }, window: { start: "04:00", end: "04:00" } },
    },
    paths: ["patching.window"],
    says: /never open/,
  },
  {
    name: "a reboot window in a time zone that does not exist",
    config: {
      ...good(),
      reboot: { token: "t", window: { start: "22:00", end: "04:00", days: ["Sat"], timeZone: "Europe/Berln" } },
    },
    paths: ["reboot.window.timeZone"],
    says: /not an IANA time zone name/,
  },
  {
    name: "a reboot window on a day that is not one",
    config: { ...good(), reboot: { token: "t", window: { start: "22:00", end: "04:00", days: ["Saturday"] } } },
    paths: ["reboot.window.days[0]"],
  },
  {
    name: "a blocker whose pod selector the API server would refuse",
    config: {
      ...good(),
      patching: { minimumUpdateRevision: { "20348": 2700 }, blockers: [{ podSelector: "app in backup" }] },
    },
    paths: ["patching.blockers[0].podSelector"],
    says: /is not a label selector/,
  },
  {
    name: "maxUnavailable as a percentage above 100",
    config: { ...good(), reboot: { token: "t", maxUnavailable: "150%" } },
    paths: ["reboot.maxUnavailable"],
    says: /percentage such as 25%/,
  },
  {
    name: "patching on a render-only stack",
    config: {
      ...good(),
      cluster: { ...cluster, render: "rendered" },
      patching: { minimumUpdateRevision: { "20348": 2700 } },
    },
    paths: ["patching"],
    says: /render-only/,
  },
  {
    name: "patching with discovery off",
    config: {
      ...good(),
      cluster: { ...cluster, discovery: false },
      patching: { minimumUpdateRevision: { "20348": 2700 } },
    },
    paths: ["patching"],
    says: /cluster\.discovery/,
  },
  {
    name: "reboot without a token",
    config: { ...good(), reboot: { maxUnavailable: 2 } },
    paths: ["reboot.token"],
  },
  {
    name: "reboot with maxUnavailable 0",
    config: { ...good(), reboot: { token: "t", maxUnavailable: 0 } },
    paths: ["reboot.maxUnavailable"],
  },
  {
    name: "reboot with a misspelt field",
    config: { ...good(), reboot: { token: "t", maxUnavailble: 2 } },
    paths: ["reboot.maxUnavailble"],
    says: /did you mean 'maxUnavailable'/,
  },
  {
    name: "reboot with discovery off",
    config: { ...good(), cluster: { ...cluster, discovery: false }, reboot: { token: "t" } },
    paths: ["reboot"],
    says: /needs cluster.discovery/,
  },
  {
    name: "reboot on a render-only stack",
    config: { ...good(), cluster: { ...cluster, render: "rendered" }, reboot: { token: "t" } },
    paths: ["reboot"],
    says: /render-only stack/,
  },
  { name: "no cluster at all", config: { privateKeyPath: s.keyPath }, paths: ["cluster"] },
  {
    name: "platform in the wrong case",
    config: { ...good(), cluster: { ...cluster, platform: "azure" } },
    paths: ["cluster.platform"],
    says: /did you mean "Azure"/,
  },
  {
    name: "misspelt field in cluster",
    config: { ...good(), cluster: { ...cluster, platfrom: "Azure" } },
    paths: ["cluster.platfrom"],
    says: /did you mean 'platform'/,
  },
  {
    name: "infrastructure ID with capitals",
    config: { ...good(), cluster: { ...cluster, infrastructureId: "Win_TMK" } },
    paths: ["cluster.infrastructureId"],
  },
  {
    name: "cluster given as a string",
    config: { ...good(), cluster: "Azure" },
    paths: ["cluster"],
    says: /must be an object/,
  },
  {
    name: "cluster.render empty",
    config: { ...good(), cluster: { ...cluster, render: "" } },
    paths: ["cluster.render"],
  },
  {
    name: "unknown top-level key (typo)",
    config: { ...good(), machineSet: [] },
    paths: ["machineSet"],
    says: /did you mean 'windows-estate:machineSets'/,
  },
  {
    name: "unknown top-level key (no near match)",
    config: { ...good(), frobnicate: 1 },
    paths: ["frobnicate"],
    says: /Known keys/,
  },
  {
    name: "approval not Automatic/Manual",
    config: { ...good(), operator: { installPlanApproval: "Auto" } },
    paths: ["operator.installPlanApproval"],
    says: /"Automatic", "Manual"/,
  },
  {
    name: "misspelt operator field",
    config: { ...good(), operator: { chanel: "stable" } },
    paths: ["operator.chanel"],
    says: /did you mean 'channel'/,
  },
  {
    name: "operator env with a bad variable name",
    config: { ...good(), operator: { env: { "1BAD": "x" } } },
    paths: ['operator.env["1BAD"]'],
    says: /environment variable name/,
  },
  {
    name: "operator env value not a string",
    config: { ...good(), operator: { env: { ARGS: true } } },
    paths: ["operator.env.ARGS"],
    says: /must be a string/,
  },
  {
    name: "startingCSV without a version",
    config: { ...good(), operator: { startingCSV: "v10" } },
    paths: ["operator.startingCSV"],
  },
  {
    name: "wait timeout too short",
    config: { ...good(), operator: { waitTimeoutSeconds: 5 } },
    paths: ["operator.waitTimeoutSeconds"],
    says: /at least 30/,
  },
  {
    name: "operator namespace not a DNS label",
    config: { ...good(), operator: { namespace: "Bad_NS" } },
    paths: ["operator.namespace"],
  },
  {
    name: "both privateKey and privateKeyPath",
    config: { ...good(), privateKey: { secure: "AAAA" } },
    paths: ["privateKey"],
    says: /not both/,
  },
  { name: "no key at all", config: { cluster }, paths: ["privateKeyPath"], says: /pulumi config set/ },
  {
    name: "key file missing",
    config: { cluster, privateKeyPath: path.join(s.dir, "nope.pem") },
    paths: ["privateKeyPath"],
    says: /does not exist/,
  },
  {
    name: "private key in plain text",
    config: { cluster, privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----" },
    paths: ["privateKey"],
    says: /--secret/,
  },
  {
    name: "public key instead of private",
    config: { cluster, privateKeyPath: keyFile("k.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOV5 me") },
    paths: ["privateKeyPath"],
    says: /public key/,
  },
  {
    name: "garbage key file",
    config: { cluster, privateKeyPath: keyFile("garbage", "not a key") },
    paths: ["privateKeyPath"],
    says: /not a private key/,
  },
  {
    name: "mirror policy misspelt",
    config: {
      ...good(),
      mirrors: { digest: [{ source: "quay.io/a", mirrors: ["m.example.com/a"], mirrorSourcePolicy: "NeverContact" }] },
    },
    paths: ["mirrors.digest[0].mirrorSourcePolicy"],
    says: /NeverContactSource/,
  },
  {
    name: "mirrors.digest not a list",
    config: { ...good(), mirrors: { digest: "quay.io" } },
    paths: ["mirrors.digest"],
    says: /must be a list/,
  },
  {
    name: "BYOH host without username",
    config: { ...good(), byoh: [{ address: "10.0.0.5" }] },
    paths: ["byoh[0].username"],
    says: /is required/,
  },
  {
    name: "BYOH port out of range",
    config: { ...good(), byoh: [{ address: "10.0.0.5", username: "Administrator", port: 70000 }] },
    paths: ["byoh[0].port"],
    says: /at most 65535/,
  },
  {
    name: "BYOH host on IPv6",
    config: { ...good(), byoh: [{ address: "fd00::5", username: "Administrator", hostKey: "SHA256:x" }] },
    paths: ["byoh[0].address"],
    says: /IPv4/,
  },
  {
    name: "BYOH host twice",
    config: {
      ...good(),
      byoh: [
        { address: "10.0.0.5", username: "a", hostKey: "SHA256:x" },
        { address: "10.0.0.5", username: "b", hostKey: "SHA256:x" },
      ],
    },
    paths: ["byoh[1].address"],
    says: /listed twice/,
  },
  {
    name: "BYOH host without a host key",
    config: { ...good(), byoh: [{ address: "10.0.0.5", username: "Administrator" }] },
    paths: ["byoh[0].hostKey"],
    says: /trustOnFirstUse/,
  },
  {
    name: "MachineSet name too long for Azure",
    config: { ...good(), machineSets: [{ name: "winworker01", azure: {} }] },
    paths: ["machineSets[0].name"],
    says: /at most 9/,
  },
  {
    name: "MachineSet with another platform's block",
    config: { ...good(), machineSets: [{ aws: { availabilityZone: "us-east-1a" } }] },
    paths: ["machineSets[0].aws", "machineSets[0].azure"],
    says: /use the 'azure' block/,
  },
  {
    name: "unsupported Windows version",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "GCP", region: "us-central1" },
      machineSets: [{ windowsServer: "2019", gcp: { projectID: "p", zone: "us-central1-a" } }],
    },
    paths: ["machineSets[0].windowsServer"],
    says: /supported: 2022, 2025/,
  },
  {
    name: "Windows version that does not exist",
    config: { ...good(), machineSets: [{ windowsServer: "2016", azure: {} }] },
    paths: ["machineSets[0].windowsServer"],
    says: /"2019", "2022", "2025"/,
  },
  {
    name: "missing required field (synth has no discovery)",
    config: { ...good(), cluster: { ...cluster, platform: "AWS", region: "us-east-1" }, machineSets: [{ aws: {} }] },
    paths: ["machineSets[0].aws.availabilityZone"],
    says: /is required/,
  },
  {
    name: "vSphere without its template",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "VSphere" },
      machineSets: [{ name: "w", vsphere: { server: "vc" } }],
    },
    paths: ["machineSets[0].vsphere.template"],
    says: /is required/,
  },
  {
    name: "misspelt MachineSet field",
    config: { ...good(), machineSets: [{ replica: 2, azure: {} }] },
    paths: ["machineSets[0].replica"],
    says: /did you mean 'replicas'/,
  },
  {
    name: "mirror that breaks the Windows naming rule",
    config: {
      ...good(),
      mirrors: { digest: [{ source: "mcr.microsoft.com/oss/kubernetes/pause", mirrors: ["mirror.local/pause"] }] },
    },
    paths: ["mirrors.digest[0].mirrors[0]"],
    says: /oss\/kubernetes\/pause/,
  },
  {
    name: "mirror source with a scheme",
    config: { ...good(), mirrors: { tag: [{ source: "https://quay.io/org", mirrors: [] }] } },
    paths: ["mirrors.tag[0].source"],
    says: /scheme/,
  },
  {
    name: "same mirror source twice",
    config: {
      ...good(),
      mirrors: {
        digest: [
          { source: "quay.io/a", mirrors: ["m.local/a"] },
          { source: "quay.io/a", mirrors: ["n.local/a"] },
        ],
      },
    },
    paths: ["mirrors.digest[1].source"],
    says: /listed twice/,
  },
  // WMCO fidelity. Expected texts cite WMCO's source: pkg/windows/connectivity.go sshPort = "22"; test/e2e/windows/version.go
  // (master: SupportedVersions = 2022, 2025); docs/wmco-prerequisites.md (release-4.22: no 2019 on vSphere).
  {
    name: "BYOH host on port 2222 (WMCO dials 22)",
    config: { ...good(), byoh: [{ address: "10.0.0.5", username: "Administrator", hostKey: "SHA256:x", port: 2222 }] },
    paths: ["byoh[0].port"],
    says: /WMCO always connects to Windows nodes on port 22/,
  },
  {
    name: "BYOH 2019 on vSphere",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "VSphere" },
      operator: { startingCSV: "windows-machine-config-operator.v10.22.2", installPlanApproval: "Manual" },
      byoh: [{ address: "10.0.0.5", username: "Administrator", hostKey: "SHA256:x", windowsServer: "2019" }],
    },
    paths: ["byoh[0].windowsServer"],
    says: /not supported on VSphere by WMCO 10\.22 \(from operator\.startingCSV \S+ with installPlanApproval: Manual\)/,
  },
  {
    name: "vSphere MachineSet on 2019",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "VSphere" },
      operator: { startingCSV: "windows-machine-config-operator.v10.22.2", installPlanApproval: "Manual" },
      machineSets: [
        {
          name: "w",
          windowsServer: "2019",
          vsphere: { template: "t", server: "vc", datacenter: "d", datastore: "s", folder: "f", networkName: "n" },
        },
      ],
    },
    paths: ["machineSets[0].windowsServer"],
    says: /supported: 2022, 2025/,
  },
  {
    name: "2019 with the newest WMCO (11 dropped it)",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "AWS", region: "us-east-1" },
      machineSets: [{ windowsServer: "2019", aws: { availabilityZone: "us-east-1a", ami: "ami-0123456789abcdef0" } }],
    },
    paths: ["machineSets[0].windowsServer"],
    says: /by the newest WMCO \(11\.0;.*WMCO 10\.x only/,
  },
  {
    // release-4.21 docs/wmco-prerequisites.md lists 2019 and 2022 only; release-4.22's is the first to list 2025.
    name: "2025 with a pinned WMCO 10.21 (documented from 10.22)",
    config: {
      ...good(),
      operator: { startingCSV: "windows-machine-config-operator.v10.21.0", installPlanApproval: "Manual" },
      machineSets: [{ windowsServer: "2025", azure: { publicLoadBalancer: "win-tmk9g" } }],
    },
    paths: ["machineSets[0].windowsServer"],
    says: /WMCO 10\.22 and later/,
  },
  {
    // OLM: with Automatic approval the Subscription moves past startingCSV to the channel head at once.
    name: "startingCSV with Automatic approval pins nothing: the newest rules apply",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "AWS", region: "us-east-1" },
      operator: { startingCSV: "windows-machine-config-operator.v10.22.2" },
      machineSets: [{ windowsServer: "2019", aws: { availabilityZone: "us-east-1a", ami: "ami-0123456789abcdef0" } }],
    },
    paths: ["machineSets[0].windowsServer"],
    says: /by the newest WMCO \(11\.0; pin operator\.startingCSV with operator\.installPlanApproval: Manual to choose another\)/,
  },
  {
    name: "Azure 2019 without a verified image version",
    config: {
      ...good(),
      operator: { startingCSV: "windows-machine-config-operator.v10.22.2", installPlanApproval: "Manual" },
      machineSets: [{ windowsServer: "2019", azure: { publicLoadBalancer: "win-tmk9g" } }],
    },
    paths: ["machineSets[0].azure.imageVersion"],
    says: /17763\.6293\.240905\) has been removed by Microsoft/,
  },
  {
    name: "Nutanix project both by UUID and by name",
    config: {
      ...good(),
      cluster: { ...cluster, platform: "Nutanix" },
      machineSets: [{ nutanix: { image: "i", clusterUuid: "c", subnetUuid: "s", projectUuid: "u", projectName: "n" } }],
    },
    paths: ["machineSets[0].nutanix.projectName"],
    says: /not both/,
  },
  {
    name: "several problems are all reported together",
    config: { cluster: { ...cluster, platform: "Azur" }, operator: { chanel: "x" }, machineSet: [] },
    paths: ["cluster.platform", "operator.chanel", "machineSet", "privateKeyPath"],
  },
];

// Vanilla Kubernetes (`cluster.platform: Kubernetes`): each case is one mistake on an otherwise good stack.
const vanillaNode = { address: "10.0.0.21", username: "Administrator", trustOnFirstUse: true };
const vanillaGood = () => ({
  cluster: { platform: "Kubernetes" },
  privateKeyPath: s.keyPath,
  kubernetes: {
    version: "1.36.2",
    podNetworkCidr: "10.244.0.0/16",
    serviceCidr: "10.96.0.0/12",
    dnsServiceIp: "10.96.0.10",
  },
  nodes: [vanillaNode],
});
const vk = (over: Record<string, unknown>) => ({
  ...vanillaGood(),
  kubernetes: { ...vanillaGood().kubernetes, ...over },
});
const vn = (over: Record<string, unknown>, more: Record<string, unknown>[] = []) => ({
  ...vanillaGood(),
  nodes: [{ ...vanillaNode, ...over }, ...more],
});
/** Cases with one field wrong, of `kubernetes` or of the first node: `path` is the key under it the message names. */
const oneWrong =
  (where: "kubernetes" | "nodes[0]") =>
  (name: string, over: Record<string, unknown>, path: string, says?: RegExp): Case => ({
    name: `vanilla: ${name}`,
    config: where === "kubernetes" ? vk(over) : vn(over),
    paths: [`${where}.${path}`],
    says,
  });
const kubeCase = oneWrong("kubernetes");
const nodeCase = oneWrong("nodes[0]");
const vanillaCases: Case[] = [
  kubeCase("a proxy that is not a URL", { proxy: { httpsProxy: "proxy.lab:3128" } }, "proxy.httpsProxy"),
  {
    name: "vanilla: a rolling reboot (not wired for vanilla nodes yet)",
    config: { ...vanillaGood(), reboot: { token: "t" } },
    paths: ["reboot"],
    says: /not available on cluster\.platform Kubernetes yet/,
  },
  {
    name: "vanilla: an unsupported Kubernetes release",
    config: vk({ version: "1.30.1" }),
    paths: ["kubernetes.version"],
    says: /supported minors: 1\.35, 1\.36, 1\.37/,
  },
  kubeCase("a version without its patch level", { version: "1.36" }, "version", /release version like 1\.36\.2/),
  kubeCase("a pod network that is not a CIDR", { podNetworkCidr: "10.244.0.0" }, "podNetworkCidr", /IPv4 CIDR/),
  {
    name: "vanilla: service network overlapping the pod network",
    config: vk({ serviceCidr: "10.244.128.0/20" }),
    paths: ["kubernetes.serviceCidr"],
    says: /overlaps the pod network/,
  },
  kubeCase("a class E pod network", { podNetworkCidr: "240.16.0.0/16" }, "podNetworkCidr", /class E/),
  {
    name: "vanilla: DNS Service IP outside the service network",
    config: vk({ dnsServiceIp: "10.244.0.10" }),
    paths: ["kubernetes.dnsServiceIp"],
    says: /outside the service network/,
  },
  kubeCase("flannel's Linux default VNI", { flannel: { vni: 1 } }, "flannel.vni", /below 4096/),
  kubeCase("flannel's Linux default port", { flannel: { port: 8472 } }, "flannel.port", /only UDP 4789.*NSX/),
  {
    name: "vanilla: a flanneld release with no pinned checksum and none given",
    config: vk({ flannel: { version: "v0.29.0" } }),
    paths: ["kubernetes.flannel.flanneldSha256"],
    says: /no pinned checksum \(pinned: v0\.28\.9\).*sha256sum/,
  },
  {
    name: "vanilla: a flanneld checksum without the version it belongs to",
    config: vk({ flannel: { flanneldSha256: "a".repeat(64) } }),
    paths: ["kubernetes.flannel.flanneldSha256"],
    says: /without flannel\.version/,
  },
  {
    name: "vanilla: a flannel CNI plugin release with no pinned checksum and none given",
    config: vk({ flannel: { cniVersion: "v1.9.2-flannel1" } }),
    paths: ["kubernetes.flannel.cniSha256"],
    says: /no pinned checksum \(pinned: v1\.9\.1-flannel3\).*flannel-amd64\.exe/,
  },
  {
    name: "vanilla: a flannel CNI checksum without the version it belongs to",
    config: vk({ flannel: { cniSha256: "a".repeat(64) } }),
    paths: ["kubernetes.flannel.cniSha256"],
    says: /without flannel\.cniVersion/,
  },
  {
    name: "vanilla: a flanneld checksum that is not a SHA-256",
    config: vk({ flannel: { version: "v0.29.0", flanneldSha256: "sha256:abc" } }),
    paths: ["kubernetes.flannel.flanneldSha256"],
    says: /64 lower-case hex digits/,
  },
  {
    name: "vanilla: a created node without a name",
    config: vn({}, [{ aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"], region: "us-east-2" } }]),
    paths: ["nodes[1].name"],
    says: /Node name/,
  },
  {
    name: "vanilla: a created node that also gives an address",
    config: vn({}, [
      { name: "winvan", address: "10.0.0.9", aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] } },
    ]),
    paths: ["nodes[1].address"],
    says: /comes from the VM/,
  },
  {
    name: "vanilla: patching Windows Server 2019, which vanilla Windows nodes cannot run",
    config: { ...vanillaGood(), patching: { minimumUpdateRevision: { "17763": 6000 } } },
    paths: [`patching.minimumUpdateRevision["17763"]`],
    says: /20348 \(2022\), 26100 \(2025\)/,
  },
  {
    name: "vanilla: a containerd too old for the Kubernetes release",
    config: vk({ containerd: { version: "2.1.5" } }),
    paths: ["kubernetes.containerd.version"],
    says: /does not support Kubernetes 1\.36/,
  },
  {
    name: "vanilla: binaries from plain http",
    config: vk({ artifacts: { baseUrl: "http://mirror.example.com" } }),
    paths: ["kubernetes.artifacts.baseUrl"],
    says: /https/,
  },
  {
    name: "vanilla: a misspelt kubernetes field",
    config: vk({ podNetworkCIDR: "10.244.0.0/16" }),
    paths: ["kubernetes.podNetworkCIDR"],
    says: /did you mean 'podNetworkCidr'/,
  },
  {
    name: "vanilla: the same node twice",
    config: vn({}, [{ ...vanillaNode }]),
    paths: ["nodes[1].address"],
    says: /listed twice/,
  },
  nodeCase("an IPv6 node address", { address: "fd00::21" }, "address", /IPv6/),
  nodeCase(
    "a node address that is not a valid IPv4 address",
    { address: "10.0.0.300" },
    "address",
    /looks like an IPv4/,
  ),
  nodeCase("a node inside the pod network", { address: "10.244.3.4" }, "address", /inside podNetworkCidr/),
  nodeCase("a node IP inside the service network", { nodeIp: "10.96.0.5" }, "nodeIp", /inside serviceCidr/),
  nodeCase("a node IP that is not an IPv4 address", { nodeIp: "win-vm1" }, "nodeIp"),
  {
    name: "vanilla: forceRemove on a node this stack creates (its entry goes, and the VM with it)",
    config: vn({
      forceRemove: true,
      address: undefined,
      username: undefined,
      name: "win",
      aws: { subnetId: "subnet-0a1b", securityGroupIds: ["sg-0a1b"] },
    }),
    paths: ["nodes[0].forceRemove"],
    says: /delete the entry/,
  },
  {
    name: "vanilla: a node with no way to verify its host key",
    config: vn({ trustOnFirstUse: false }),
    paths: ["nodes[0].hostKey"],
    says: /host keys are always verified/,
  },
  nodeCase("an unreadable host key", { trustOnFirstUse: false, hostKey: "AAAA" }, "hostKey", /OpenSSH public-key line/),
  nodeCase("Windows Server 2019 (no longer supported by Kubernetes)", { windowsServer: "2019" }, "windowsServer"),
  {
    name: "vanilla: a bad label key",
    config: vn({ labels: { "bad key": "x" } }),
    paths: [`nodes[0].labels["bad key"]`],
    says: /label key/,
  },
  {
    // k8s.io/kubelet pkg/apis/well_known_labels.go: node-role.kubernetes.io is not a kubelet label; the kubelet exits.
    name: "vanilla: a node-role label the kubelet refuses in --node-labels",
    config: vn({ labels: { "node-role.kubernetes.io/windows": "" } }),
    paths: [`nodes[0].labels["node-role.kubernetes.io/windows"]`],
    says: /kubelet reserves.*kubelet\.kubernetes\.io or node\.kubernetes\.io/,
  },
  {
    // flannel pkg/backend/vxlan/vxlan_windows.go casts the VNI to uint16 for the lease.
    name: "vanilla: a VNI Windows flanneld truncates",
    config: vk({ flannel: { vni: 70000 } }),
    paths: ["kubernetes.flannel.vni"],
    says: /above 65535/,
  },
  {
    // The node's containerd config is version 3 (containerd 2.0+); containerd 1.7 refuses it at start.
    name: "vanilla: containerd 1.7, which cannot read the version 3 config the nodes get",
    config: vk({ version: "1.35.4", containerd: { version: "1.7.28" } }),
    paths: ["kubernetes.containerd.version"],
    says: /reads config version 2 only/,
  },
  nodeCase("an upper-case node name", { name: "WIN-A" }, "name", /lower-case/),
  {
    name: "vanilla: a taint with an unknown effect",
    config: vn({ taints: [{ key: "os", value: "windows", effect: "NoRun" }] }),
    paths: ["nodes[0].taints[0].effect"],
  },
  {
    name: "vanilla: MachineSets on a vanilla cluster",
    config: { ...vanillaGood(), machineSets: [] },
    paths: ["machineSets"],
    says: /applies to OpenShift\/OKD with WMCO/,
  },
  {
    name: "vanilla: nodes on an OpenShift cluster",
    config: { ...good(), nodes: [vanillaNode] },
    paths: ["nodes"],
    says: /applies to cluster\.platform Kubernetes/,
  },
  // Issue 25: mistakes that used to pass silently or say the wrong thing.
  {
    // Pulumi accepts any namespace; the program reads only its own, so the BYOH host was simply gone.
    name: "a BYOH host under windows_estate: (underscore)",
    config: { ...good(), "windows_estate:byoh": [{ address: "10.0.0.42", username: "Administrator" }] },
    paths: ["windows_estate:byoh"],
    says: /rename the key to windows-estate:byoh/,
  },
  {
    name: "a BYOH host under windows-estat: (a letter short)",
    config: { ...good(), "windows-estat:byoh": [] },
    paths: ["windows-estat:byoh"],
    says: /namespace 'windows-estat'/,
  },
  {
    // pulumi/pulumi pkg/resource/deploy/default_providers.go shouldDenyRequest exempts only the package `pulumi`.
    name: `pulumi:disable-default-providers: ["*"] (denies the dynamic resources' provider)`,
    config: { ...good(), "pulumi:disable-default-providers": ["*"] },
    paths: ["pulumi:disable-default-providers"],
    says: /list the packages instead/,
  },
  {
    name: "a version YAML read as a decimal number",
    config: vk({ version: 1.36 }),
    paths: ["kubernetes.version"],
    says: /quote it in the stack file .* --type string/,
  },
  {
    // flannel copies net-conf.json's Network as written; kubeadm's podSubnet is a network, not a host.
    name: "vanilla: a pod network with host bits set",
    config: vk({ podNetworkCidr: "10.244.0.1/16" }),
    paths: ["kubernetes.podNetworkCidr"],
    says: /host bits set; write the network itself: 10\.244\.0\.0\/16/,
  },
  kubeCase("a service network with host bits set", { serviceCidr: "10.96.0.10/12" }, "serviceCidr", /10\.96\.0\.0\/12/),
  {
    name: "a BYOH host key that is neither a key line nor a fingerprint",
    config: { ...good(), byoh: [{ address: "10.0.0.42", username: "Administrator", hostKey: "foo" }] },
    paths: ["byoh[0].hostKey"],
    says: /OpenSSH public-key line/,
  },
  {
    name: "a map given as a list (zod's own wording was 'must be record')",
    config: { ...good(), operator: { env: [] } },
    paths: ["operator.env"],
    says: /must be a mapping of names to values/,
  },
  {
    name: "OpenShift without an infrastructure ID",
    config: { ...good(), cluster: { platform: "Azure", region: "westus" } },
    paths: ["cluster.infrastructureId"],
    says: /required on OpenShift/,
  },
];
cases.push(...vanillaCases);

describe("bad configs exit 2, name the key, and write nothing", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const file = writeStack(s.dir, "bad", c.config);
    const out = path.join(s.dir, "out");
    const r = await runSynth(["--stack", "bad", "--config-file", file, "--out", out]);
    expect(r.code).toBe(2);
    for (const p of c.paths) expect(r.stderr).toContain(/^[\w-]+:[^:]/.test(p) ? `${p}:` : `windows-estate:${p}:`);
    if (c.says) expect(r.stderr).toMatch(c.says);
    expect(r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
    expect(r.stderr).toContain("nothing was written");
    expect(fs.existsSync(out)).toBe(false);
  });

  test("the corpus is big enough to mean something", () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(vanillaCases.length).toBeGreaterThanOrEqual(15);
  });
});

describe("bad invocations exit 2 with usage", () => {
  test.each([
    [["--stack"], /--stack/],
    [["--stack", "dev", "--bogus"], /bogus/],
    [[], /--stack <name> is required/],
    [["--stack", "nope-no-such-stack"], /not found/],
  ])("%j", async (argv, says) => {
    const r = await runSynth(argv as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(says);
  });
});
