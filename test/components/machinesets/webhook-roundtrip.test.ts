import { buildMachineSet } from "../../../components/machinesets/build";
import { Platform } from "../../../stacks/schema/cluster";
import { machineSetSchema } from "../../../stacks/schema/machinesets";
import {
  fieldsOf,
  goQuantity,
  goRoundTrip,
  PROVIDER_SPEC_TYPES,
  pruneLive,
  skipNulls,
  unknownKeys,
} from "../../helpers/machine-provider-types";

// machine-api's defaulting webhook (CREATE only) decodes every providerSpec into its openshift/api Go type and
// marshals it back; pulumi-kubernetes then compares the live object, cut to the shape of the inputs, with the inputs
// (provider.go Diff: pruneLiveState, then a JSON merge patch). A field the round trip drops or rewrites is a change
// in `pulumi preview --expect-no-changes` after every create (issue 43 item 5). The model of the round trip and of
// the Go types is test/helpers/machine-provider-types.ts.

const INFRA = "ocp-x7k2p";
const cluster = (platform: Platform, region?: string) => ({ platform, infrastructureId: INFRA, region });

/** The template and workspace a vSphere MachineSet needs without discovery (stacks/schema/machinesets.ts `vsphere`). */
const VSPHERE_REQUIRED = {
  template: "win2022",
  server: "vc",
  datacenter: "dc",
  datastore: "ds",
  folder: "/dc/vm/x",
  networkName: "net",
};

/** Each platform with the config variants that reach every branch of its builder. */
const variants: { platform: Platform; region?: string; name: string; raw: Record<string, unknown>; ami?: string }[] = [
  {
    platform: "AWS",
    region: "us-east-1",
    name: "defaults",
    raw: { aws: { availabilityZone: "us-east-1a" } },
    ami: "ami-0123456789abcdef0",
  },
  {
    platform: "AWS",
    region: "us-east-1",
    name: "IDs and names, gp3",
    raw: {
      aws: {
        availabilityZone: "us-east-1b",
        subnet: "subnet-0abc",
        securityGroups: ["sg-1", "custom-sg"],
        iamInstanceProfile: "custom-profile",
        volumeType: "gp3",
        volumeSize: 200,
        ami: "ami-0aaaaaaaaaaaaaaaa",
      },
    },
  },
  { platform: "Azure", region: "westus", name: "no zone (the default)", raw: { azure: {} } },
  { platform: "Azure", region: "westus", name: 'zone ""', raw: { azure: { zone: "" } } },
  {
    platform: "Azure",
    region: "eastus",
    name: "zone, load balancer, networks, 2019 image",
    raw: {
      windowsServer: "2019",
      azure: {
        zone: "2",
        publicLoadBalancer: "ocp-x7k2p",
        networkResourceGroup: "net-rg",
        resourceGroup: "rg",
        vnet: "vnet",
        subnet: "sub",
        imageVersion: "17763.7009.250305",
        storageAccountType: "StandardSSD_LRS",
      },
    },
  },
  {
    platform: "GCP",
    region: "us-central1",
    name: "defaults",
    raw: { gcp: { projectID: "p1", zone: "us-central1-c" } },
  },
  {
    platform: "GCP",
    region: "us-central1",
    name: "networks and service account",
    raw: {
      windowsServer: "2025",
      gcp: {
        projectID: "p1",
        zone: "us-central1-a",
        network: "net",
        subnetwork: "subnet",
        serviceAccountEmail: "sa@p1.iam.gserviceaccount.com",
        diskType: "pd-balanced",
      },
    },
  },
  {
    platform: "VSphere",
    name: "no resource pool",
    raw: { vsphere: VSPHERE_REQUIRED },
  },
  {
    platform: "VSphere",
    name: "resource pool and credentials",
    raw: {
      vsphere: {
        ...VSPHERE_REQUIRED,
        resourcePool: "/dc/host/c/Resources",
        credentialsSecret: "vsphere-creds",
        numCPUs: 8,
        memoryMiB: 32768,
      },
    },
  },
  {
    platform: "Nutanix",
    name: "defaults",
    raw: { nutanix: { clusterUuid: "c-1", subnetUuid: "s-1", image: "win2022" } },
  },
  {
    platform: "Nutanix",
    name: "project by UUID, quantities as a person writes them",
    raw: {
      nutanix: {
        clusterUuid: "c-1",
        subnetUuid: "s-1",
        image: "win2022",
        projectUuid: "p-1",
        memorySize: "16384Mi",
        systemDiskSize: "0120Gi",
      },
    },
  },
  {
    platform: "Nutanix",
    name: "project by name, fractional quantities",
    raw: {
      nutanix: {
        clusterUuid: "c-1",
        subnetUuid: "s-1",
        image: "win2022",
        projectName: "windows",
        memorySize: "1.5Gi",
        systemDiskSize: "0.125Ti",
        credentialsSecret: "prism",
      },
    },
  },
];

const rendered = variants.map((v) => {
  const ms = buildMachineSet(cluster(v.platform, v.region), machineSetSchema.parse(v.raw), { amiId: v.ami });
  const value = ms.spec.template.spec.providerSpec.value;
  return { ...v, value, kind: String(value.kind) };
});

describe.each(rendered)("$platform, $name", ({ value, kind }) => {
  const type = PROVIDER_SPEC_TYPES[kind];

  test("what the webhook writes back, cut to what we declare, is what we declare: no diff after a create", () => {
    expect(type).toBeDefined();
    const inputs = skipNulls(value);
    for (const sent of [value, inputs]) expect(pruneLive(goRoundTrip(sent, type), inputs)).toEqual(inputs);
  });

  test("every field rendered is one of the Go type's JSON names, spelled and cased as its tag", () => {
    expect(unknownKeys(value, type)).toEqual([]);
  });
});

describe("the model finds what it must", () => {
  const azure = PROVIDER_SPEC_TYPES.AzureMachineProviderSpec;
  const spec = rendered.find((r) => r.platform === "Azure")?.value ?? {};

  test('Azure zone "" is dropped (json:"zone,omitempty"): a diff pulumi-kubernetes would show', () => {
    const inputs = { ...spec, zone: "" };
    expect(pruneLive(goRoundTrip(inputs, azure), inputs)).not.toEqual(inputs);
  });

  test("a Nutanix quantity not written canonically is rewritten", () => {
    expect(goQuantity("16384Mi")).toBe("16Gi");
    expect(goQuantity("01Gi")).toBe("01Gi");
  });

  test("a wrongly cased or unknown field is reported, and Go would re-case or drop it", () => {
    const bad = { ...spec, VmSize: "x", bogus: 1, osDisk: { ...(spec.osDisk as object), OSType: "Windows" } };
    expect(unknownKeys(bad, azure)).toEqual(["osDisk.OSType", "VmSize", "bogus"]);
    expect(pruneLive(goRoundTrip(bad, azure), bad)).not.toEqual(bad);
  });
});

test("the JSON names the program renders, per platform, each a field of the openshift/api type it was read from", () => {
  // The listing (path → file:line of the Go declaration); a field added to a builder must be added here from the Go
  // source, or the test above fails for it.
  const listing = Object.fromEntries(
    Object.entries(PROVIDER_SPEC_TYPES).map(([kind, t]) => [kind, Object.fromEntries(fieldsOf(t))]),
  );
  expect(listing.AzureMachineProviderSpec.zone).toBe("machine/v1beta1/types_azureprovider.go:98");
  expect(listing.NutanixMachineProviderConfig.memorySize).toBe("machine/v1/types_nutanixprovider.go:55");
  expect(listing.AWSMachineProviderConfig["blockDevices[].ebs.iops"]).toBe("machine/v1beta1/types_awsprovider.go:207");
  // Every rendered path is listed (what the per-variant test checks key by key, here as paths).
  for (const r of rendered) {
    const paths = renderedPaths(r.value);
    expect(paths.filter((p) => !(p in listing[r.kind]))).toEqual([]);
  }
});

/** The paths of a rendered value, lists as `[]`. */
function renderedPaths(v: unknown, at = ""): string[] {
  if (Array.isArray(v)) return v.flatMap((e) => renderedPaths(e, `${at}[]`));
  if (typeof v !== "object" || v === null) return [];
  return Object.entries(v).flatMap(([k, e]) => {
    const path = at ? `${at}.${k}` : k;
    return [path, ...renderedPaths(e, path)];
  });
}
