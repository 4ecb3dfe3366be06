import { buildMachineSet } from "../../../components/machinesets/build";
import { credentialsSecretOf, missingCredentialsWarnings } from "../../../components/machinesets/credentials";
import { Platform } from "../../../stacks/schema/cluster";
import { MachineSetConfig, machineSetSchema } from "../../../stacks/schema/machinesets";

// machine-api's validating webhook only warns when a set's credentials Secret does not exist (machine-api-operator
// pkg/webhooks/machine_webhook.go `credentialsSecretExists`); the program says so at preview (issue 43 item 5).

const vsphere = {
  template: "win2022",
  server: "vc",
  datacenter: "dc",
  datastore: "ds",
  folder: "/dc/vm/f",
  networkName: "net",
};
const nutanix = { clusterUuid: "c", subnetUuid: "s", image: "win" };
const sets: { platform: Platform; region?: string; raw: Record<string, unknown>; secret: string }[] = [
  {
    platform: "AWS",
    region: "us-east-1",
    raw: { aws: { availabilityZone: "us-east-1a", ami: "ami-0123456789abcdef0" } },
    secret: "aws-cloud-credentials",
  },
  { platform: "Azure", region: "westus", raw: { azure: {} }, secret: "azure-cloud-credentials" },
  {
    platform: "GCP",
    region: "us-central1",
    raw: { gcp: { projectID: "p", zone: "us-central1-a" } },
    secret: "gcp-cloud-credentials",
  },
  { platform: "VSphere", raw: { vsphere }, secret: "vsphere-cloud-credentials" },
  { platform: "VSphere", raw: { vsphere: { ...vsphere, credentialsSecret: "vc-creds" } }, secret: "vc-creds" },
  { platform: "Nutanix", raw: { nutanix }, secret: "nutanix-credentials" },
  { platform: "Nutanix", raw: { nutanix: { ...nutanix, credentialsSecret: "prism" } }, secret: "prism" },
];

test.each(sets)("$platform: the Secret checked is the one the rendered providerSpec names ($secret)", (s) => {
  const set = machineSetSchema.parse(s.raw);
  const ms = buildMachineSet({ platform: s.platform, infrastructureId: "ocp-x7k2p", region: s.region }, set, {});
  expect(ms.spec.template.spec.providerSpec.value.credentialsSecret).toMatchObject({ name: s.secret });
  expect(credentialsSecretOf(s.platform, set)).toBe(s.secret);
});

test("a missing Secret is a warning naming the set and the Secret; a present one says nothing", () => {
  const parsed: MachineSetConfig[] = [
    machineSetSchema.parse({ vsphere }),
    machineSetSchema.parse({ vsphere: { ...vsphere, credentialsSecret: "vc-creds" } }),
  ];
  expect(missingCredentialsWarnings("VSphere", parsed, () => true)).toEqual([]);
  expect(missingCredentialsWarnings("VSphere", parsed, (n) => n === "vsphere-cloud-credentials")).toEqual([
    {
      path: "machineSets[1]",
      message:
        "the credentials Secret openshift-machine-api/vc-creds does not exist: machine-api admits the MachineSet with a " +
        "warning only, and its Machines cannot be created until the Secret exists (create it, or set " +
        "machineSets[1].vsphere.credentialsSecret to the Secret that holds the credentials)",
    },
  ]);
  const aws = [machineSetSchema.parse({ aws: { availabilityZone: "us-east-1a" } })];
  expect(missingCredentialsWarnings("AWS", aws, () => false)[0].message).toMatch(
    /openshift-machine-api\/aws-cloud-credentials does not exist: .*the cloud credential operator creates it/,
  );
});
