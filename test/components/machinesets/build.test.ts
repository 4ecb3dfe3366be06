import { buildMachineSet } from "../../../components/machinesets/build";
import { LABEL } from "../../../components/machinesets/common";
import { awsAmiFilter } from "../../../components/machinesets/aws";
import { Platform } from "../../../stacks/schema/cluster";
import { machineSetSchema } from "../../../stacks/schema/machinesets";
import { schemaFileFor, validateAgainstSchema, validateObject } from "../../helpers/schemas";

const set = (raw: Record<string, unknown>) => machineSetSchema.parse(raw);
const cluster = (platform: Platform, region?: string) => ({
  platform,
  infrastructureId: "ocp-x7k2p",
  region,
});

// One fully specified entry per platform, as a user would write it, and what WMCO's script would produce.
const cases = [
  {
    platform: "AWS" as const,
    region: "us-east-1",
    raw: { aws: { availabilityZone: "us-east-1a" } },
    resolved: { amiId: "ami-0123456789abcdef0" },
    name: "ocp-x7k2p-winworker-us-east-1a",
  },
  { platform: "Azure" as const, region: "westus", raw: { azure: {} }, resolved: {}, name: "winworker" },
  {
    platform: "GCP" as const,
    region: "us-central1",
    raw: { gcp: { projectID: "p1", zone: "us-central1-c" } },
    resolved: {},
    name: "ocp-x7k2p-winworker-c",
  },
  {
    platform: "VSphere" as const,
    region: undefined,
    raw: {
      vsphere: {
        template: "win2022-golden",
        server: "vc",
        datacenter: "dc",
        datastore: "ds",
        folder: "/dc/vm/x",
        networkName: "net",
      },
    },
    resolved: {},
    name: "winworker",
  },
  {
    platform: "Nutanix" as const,
    region: undefined,
    raw: { nutanix: { clusterUuid: "c-1", subnetUuid: "s-1", image: "win2022" } },
    resolved: {},
    name: "winworker",
  },
];

describe.each(cases)("$platform", ({ platform, region, raw, resolved, name }) => {
  const ms = buildMachineSet(cluster(platform, region), set(raw), resolved);
  const value = ms.spec.template.spec.providerSpec.value as { kind: string } & Record<string, unknown>;

  test("valid against the MachineSet schema (closed) and its providerSpec schema (loose and closed)", () => {
    expect(validateObject(ms, { closed: true })).toBe("");
    expect(validateAgainstSchema(value, schemaFileFor(undefined, value.kind))).toBe("");
    expect(validateAgainstSchema(value, schemaFileFor(undefined, value.kind), { closed: true })).toBe("");
  });

  test("the labels WMCO needs, and a selector the template satisfies", () => {
    const labels = ms.spec.template.metadata.labels;
    expect(labels).toMatchObject({
      [LABEL.osId]: "Windows",
      [LABEL.role]: "worker",
      [LABEL.type]: "worker",
      [LABEL.cluster]: "ocp-x7k2p",
      [LABEL.machineSet]: name,
    });
    for (const [k, v] of Object.entries(ms.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
    expect(ms.spec.template.spec.metadata.labels[LABEL.workerRole]).toBe("");
    expect(ms.metadata).toMatchObject({ name, namespace: "openshift-machine-api" });
    expect(labels[LABEL.ignore]).toBeUndefined();
  });

  test("boots from windows-user-data", () => {
    expect((value.userDataSecret as { name: string }).name).toBe("windows-user-data");
  });
});

test("AWS: IMDS optional, AMI, derived profile, subnet and security group tags", () => {
  const v = buildMachineSet(cluster("AWS", "us-east-1"), set({ aws: { availabilityZone: "us-east-1b" } }), {
    amiId: "ami-0aaaaaaaaaaaaaaaa",
  }).spec.template.spec.providerSpec.value;
  expect(v).toMatchObject({
    metadataServiceOptions: { authentication: "Optional" },
    ami: { id: "ami-0aaaaaaaaaaaaaaaa" },
    iamInstanceProfile: { id: "ocp-x7k2p-worker-profile" },
    placement: { availabilityZone: "us-east-1b", region: "us-east-1" },
    subnet: { filters: [{ name: "tag:Name", values: ["ocp-x7k2p-subnet-private-us-east-1b"] }] },
    securityGroups: [{ filters: [{ name: "tag:Name", values: ["ocp-x7k2p-node"] }] }],
    instanceType: "m5a.large",
  });
});

test("AWS: explicit IDs and names override the derived ones", () => {
  const v = buildMachineSet(
    cluster("AWS", "us-east-1"),
    set({ aws: { availabilityZone: "us-east-1b", subnet: "subnet-0abc", securityGroups: ["sg-1", "custom-sg"] } }),
    { amiId: "ami-0aaaaaaaaaaaaaaaa" },
  ).spec.template.spec.providerSpec.value;
  expect(v.subnet).toEqual({ id: "subnet-0abc" });
  expect(v.securityGroups).toEqual([{ id: "sg-1" }, { filters: [{ name: "tag:Name", values: ["custom-sg"] }] }]);
});

test.each([
  ["2019", "Windows_Server-2019-English-Core-Base-????.??.??"],
  ["2022", "Windows_Server-2022-English-Core-Base-????.??.??"],
  ["2025", "Windows_Server-2025-English-Core-Base-????.??.??"],
] as const)("AWS AMI filter for %s, owned by Amazon", (v, filter) => {
  expect(awsAmiFilter(v)).toEqual({ owners: ["amazon"], nameFilter: filter });
});

// hack/machineset.sh get_azure_ms: sku `<version>-datacenter-smalldisk`, version `latest`. 2019 has no default any
// more: the version WMCO pinned (17763.6293.240905) was removed by Microsoft; the user's verified version is used.
test.each([
  ["2019", "2019-datacenter-smalldisk", "17763.7009.250305"],
  ["2022", "2022-datacenter-smalldisk", "latest"],
  ["2025", "2025-datacenter-smalldisk", "latest"],
] as const)("Azure image for %s", (v, sku, version) => {
  const azure = v === "2019" ? { imageVersion: version } : {};
  const value = buildMachineSet(cluster("Azure", "westus"), set({ windowsServer: v, azure })).spec.template.spec
    .providerSpec.value;
  expect(value.image).toMatchObject({ publisher: "MicrosoftWindowsServer", offer: "WindowsServer", sku, version });
  expect(value).toMatchObject({
    resourceGroup: "ocp-x7k2p-rg",
    vnet: "ocp-x7k2p-vnet",
    subnet: "ocp-x7k2p-worker-subnet",
    publicIP: false,
    osDisk: { osType: "Windows" },
  });
});

test.each(["2022", "2025"] as const)("GCP image family for %s and the cluster's worker identity", (v) => {
  const value = buildMachineSet(
    cluster("GCP", "us-central1"),
    set({ windowsServer: v, gcp: { projectID: "p1", zone: "us-central1-a" } }),
  ).spec.template.spec.providerSpec.value as {
    disks: { image: string }[];
    serviceAccounts: { email: string }[];
    tags: string[];
    networkInterfaces: { network: string; subnetwork: string }[];
  };
  expect(value.disks[0].image).toBe(`projects/windows-cloud/global/images/family/windows-${v}-core`);
  expect(value.serviceAccounts[0].email).toBe("ocp-x7k2p-w@p1.iam.gserviceaccount.com");
  expect(value.tags).toEqual(["ocp-x7k2p-worker"]);
  expect(value.networkInterfaces[0]).toEqual({ network: "ocp-x7k2p-network", subnetwork: "ocp-x7k2p-worker-subnet" });
});

test("BYOH sets carry the ignore label and the winbyoh default name; labels and taints reach the Machine", () => {
  const ms = buildMachineSet(
    cluster("Azure", "westus"),
    set({
      byoh: true,
      labels: { team: "a" },
      taints: [{ key: "dedicated", value: "win", effect: "NoSchedule" }],
      annotations: { note: "x" },
      azure: {},
    }),
  );
  expect(ms.metadata.name).toBe("winbyoh");
  expect(ms.metadata.annotations).toEqual({ note: "x" });
  expect(ms.spec.template.metadata.labels[LABEL.ignore]).toBe("true");
  expect(ms.spec.template.spec.metadata.labels).toEqual({ team: "a", [LABEL.workerRole]: "" });
  expect(ms.spec.template.spec.taints).toEqual([{ key: "dedicated", value: "win", effect: "NoSchedule" }]);
  expect(validateObject(ms, { closed: true })).toBe("");
});

test("Azure 2019 without imageVersion is never rendered with the removed image", () => {
  expect(() => buildMachineSet(cluster("Azure", "westus"), set({ windowsServer: "2019", azure: {} }))).toThrow(
    /needs azure.imageVersion/,
  );
});

test("the MachineSet carries its Windows build as a label for the policy pack (test/e2e/windows/version.go BuildNumber)", () => {
  const ms = buildMachineSet(cluster("Azure", "westus"), set({ windowsServer: "2025", azure: {} }));
  expect(ms.metadata.labels["node.kubernetes.io/windows-build"]).toBe("10.0.26100");
});

test("surge rollouts: the MachineSet forces its declared fields back (pulumi.com/patchForce) and may declare the live replicas", () => {
  const azure = cluster("Azure", "westus");
  // The default strategy leaves the object as it always was: no annotation an existing stack would see as a change.
  const replace = buildMachineSet(azure, set({ azure: {}, replicas: 2, rollout: {} }));
  expect(replace.metadata.annotations).toBeUndefined();
  expect(replace.spec.replicas).toBe(2);
  const surge = buildMachineSet(
    azure,
    set({ azure: {}, replicas: 2, annotations: { a: "b" }, rollout: { strategy: "surge" } }),
    { replicas: 4 },
  );
  expect(surge.metadata.annotations).toEqual({ a: "b", "pulumi.com/patchForce": "true" });
  expect(surge.spec.replicas).toBe(4);
  expect(validateObject(surge)).toBe("");
});
