import { validateMachineSets } from "../../../components/machinesets/validate";
import { OpenShiftClusterConfig } from "../../../stacks/schema/cluster";
import { machineSetsSchema } from "../../../stacks/schema/machinesets";

const cluster = (platform: OpenShiftClusterConfig["platform"], region?: string): OpenShiftClusterConfig => ({
  platform,
  infrastructureId: "ocp-x7k2p",
  region,
});
const check = (c: OpenShiftClusterConfig, raw: unknown[], discovery = false) =>
  validateMachineSets(c, machineSetsSchema.parse(raw), { discovery, offline: !discovery });
const paths = (r: ReturnType<typeof check>) => r.errors.map((e) => e.path);

test.each([
  [
    "name too long on Azure",
    cluster("Azure", "westus"),
    [{ name: "winworkers", azure: {} }],
    "machineSets[0].name",
    /at most 9.*15 characters/,
  ],
  [
    "name too long on vSphere",
    cluster("VSphere"),
    [
      {
        name: "windows-pool",
        vsphere: { template: "t", server: "s", datacenter: "d", datastore: "ds", folder: "f", networkName: "n" },
      },
    ],
    "machineSets[0].name",
    /at most 9/,
  ],
  [
    "name with capitals",
    cluster("Azure", "westus"),
    [{ name: "WinPool", azure: {} }],
    "machineSets[0].name",
    /lowercase/,
  ],
  [
    "generated AWS name over 63",
    { ...cluster("AWS", "us-east-1"), infrastructureId: "a".repeat(50) },
    [{ aws: { availabilityZone: "us-east-1a" } }],
    "machineSets[0].aws",
    /at most 63/,
  ],
  [
    "a block for another platform",
    cluster("Azure", "westus"),
    [{ azure: {}, aws: { availabilityZone: "us-east-1a" } }],
    "machineSets[0].aws",
    /cluster.platform is Azure; use the 'azure' block/,
  ],
  ["the platform's block missing", cluster("GCP", "us-central1"), [{ azure: {} }], "machineSets[0].gcp", /is required/],
  [
    "2019 on GCP",
    cluster("GCP", "us-central1"),
    [{ windowsServer: "2019", gcp: { projectID: "p", zone: "us-central1-a" } }],
    "machineSets[0].windowsServer",
    /supported: 2022, 2025/,
  ],
  [
    "2019 on vSphere",
    cluster("VSphere"),
    [
      {
        name: "w",
        windowsServer: "2019",
        vsphere: { template: "t", server: "s", datacenter: "d", datastore: "ds", folder: "f", networkName: "n" },
      },
    ],
    "machineSets[0].windowsServer",
    /not supported on VSphere/,
  ],
  [
    "missing AZ without discovery",
    cluster("AWS", "us-east-1"),
    [{ aws: {} }],
    "machineSets[0].aws.availabilityZone",
    /discovery/,
  ],
  ["missing region without discovery", cluster("Azure"), [{ azure: {} }], "cluster.region", /required for Azure/],
  [
    "missing vSphere workspace without discovery",
    cluster("VSphere"),
    [{ name: "w", vsphere: { template: "t" } }],
    "machineSets[0].vsphere.server",
    /is required/,
  ],
  [
    "zone outside the region",
    cluster("GCP", "us-central1"),
    [{ gcp: { projectID: "p", zone: "europe-west1-b" } }],
    "machineSets[0].gcp.zone",
    /not in region us-central1/,
  ],
  [
    "duplicate names",
    cluster("Azure", "westus"),
    [{ azure: {} }, { azure: { vmSize: "Standard_D4s_v3" } }],
    "machineSets[1].azure",
    /used twice/,
  ],
  ["MachineSets on platform None", cluster("None"), [{ azure: {} }], "machineSets", /byoh/],
])("%s", (_n, c, raw, path, says) => {
  const r = check(c, raw);
  expect(paths(r)).toContain(path);
  expect(r.errors.find((e) => e.path === path)?.message).toMatch(says);
});

test("with discovery on, discoverable values may be left out", () => {
  expect(check(cluster("AWS"), [{ aws: {} }], true).errors).toEqual([]);
  expect(check(cluster("VSphere"), [{ name: "w", vsphere: { template: "t" } }], true).errors).toEqual([]);
});

test("good configs on every platform pass", () => {
  expect(
    check(cluster("AWS", "us-east-1"), [
      { aws: { availabilityZone: "us-east-1a", ami: "ami-0123456789abcdef0" } },
      { aws: { availabilityZone: "us-east-1b" } },
    ]).errors,
  ).toEqual([]);
  expect(
    check(cluster("Azure", "westus"), [{ azure: {} }, { name: "winbig", azure: { vmSize: "Standard_D8s_v3" } }]).errors,
  ).toEqual([]);
});

test("offline AWS without an AMI warns that it will be looked up", () => {
  const r = check(cluster("AWS", "us-east-1"), [{ aws: { availabilityZone: "us-east-1a" } }]);
  expect(r.warnings).toEqual([
    expect.objectContaining({
      path: "machineSets[0].aws.ami",
      message: expect.stringMatching(/looked up at pulumi up/),
    }),
  ]);
});
