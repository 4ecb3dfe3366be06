import {
  identityIssues,
  mergeDiscovered,
  mergeDiscoveredHosts,
  workersFor,
} from "../../../components/machinesets/discovery";
import { decodeInfrastructure, decodeMachineSets, linuxWorkerSpecs } from "../../../components/cluster-objects";
import { NUTANIX } from "../../../components/machinesets/nutanix";
import { OpenShiftClusterConfig, Platform } from "../../../stacks/schema/cluster";
import { machineSetsSchema } from "../../../stacks/schema/machinesets";
import { validateObject } from "../../helpers/schemas";

// Hand-built in the shape `oc get machinesets -n openshift-machine-api -o json` returns (not recorded from a
// cluster); each MachineSet is validated against the openshift/api schema below, and read through discovery's decoders
// (components/cluster-objects.ts) as discovery reads it.
const workers = (list: { items: unknown[] }) => linuxWorkerSpecs(decodeMachineSets(list));
const workerMs = (value: Record<string, unknown>, labels: Record<string, string> = {}) => ({
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "MachineSet",
  metadata: { name: "w", namespace: "openshift-machine-api" },
  spec: {
    selector: { matchLabels: { "machine.openshift.io/cluster-api-cluster": "ocp-x" } },
    template: {
      metadata: { labels: { "machine.openshift.io/cluster-api-machine-role": "worker", ...labels } },
      spec: { providerSpec: { value } },
    },
  },
});
const awsWorker = (az: string) =>
  workerMs({
    kind: "AWSMachineProviderConfig",
    placement: { availabilityZone: az, region: "us-east-1" },
    subnet: { filters: [{ name: "tag:Name", values: [`ocp-x-private-${az}`] }] },
    securityGroups: [{ filters: [{ name: "tag:Name", values: ["ocp-x-worker-sg"] }] }],
    iamInstanceProfile: { id: "ocp-x-worker-profile" },
  });

test("the hand-built worker MachineSets are valid for the MachineSet schema", () => {
  for (const ms of [awsWorker("us-east-1a"), workerMs({ kind: "AzureMachineProviderSpec" })])
    expect(validateObject(ms)).toBe("");
});

test("only Linux workers are copied from", () => {
  const list = {
    items: [
      awsWorker("us-east-1a"),
      workerMs({ kind: "AWS", w: 1 }, { "machine.openshift.io/os-id": "Windows" }),
      { spec: { template: { metadata: { labels: { "machine.openshift.io/cluster-api-machine-role": "infra" } } } } },
    ],
  };
  expect(workers(list)).toHaveLength(1);
});

test("AWS: zone, subnet, security groups and profile are copied from the worker of the same zone (old tag names survive)", () => {
  const facts = {
    infrastructure: decodeInfrastructure({ status: { platformStatus: { type: "AWS", aws: { region: "us-east-1" } } } }),
    workers: workersFor("AWS", workers({ items: [awsWorker("us-east-1a"), awsWorker("us-east-1b")] })),
  };
  const c: OpenShiftClusterConfig = { platform: "AWS", infrastructureId: "ocp-x" };
  const merged = mergeDiscovered(
    c,
    machineSetsSchema.parse([{ aws: { availabilityZone: "us-east-1b" } }, { aws: {} }]),
    facts,
  );
  expect(merged.cluster.region).toBe("us-east-1");
  expect(merged.machineSets[0].aws).toMatchObject({
    availabilityZone: "us-east-1b",
    subnet: "ocp-x-private-us-east-1b",
    securityGroups: ["ocp-x-worker-sg"],
    iamInstanceProfile: "ocp-x-worker-profile",
  });
  expect(merged.machineSets[1].aws?.availabilityZone).toBe("us-east-1a");
});

test("config always wins over discovery", () => {
  const facts = {
    workers: workersFor(
      "Azure",
      workers({ items: [workerMs({ location: "eastus", zone: "2", vnet: "other-vnet", subnet: "other-subnet" })] }),
    ),
  };
  const c: OpenShiftClusterConfig = { platform: "Azure", infrastructureId: "ocp-x", region: "westus" };
  const merged = mergeDiscovered(c, machineSetsSchema.parse([{ azure: { zone: "", vnet: "mine" } }]), facts);
  expect(merged.cluster.region).toBe("westus");
  expect(merged.machineSets[0].azure).toMatchObject({ zone: "", vnet: "mine", subnet: "other-subnet" });
});

/** A stack of one MachineSet on `platform` merged with what one Linux worker's providerSpec says. */
const mergedWith = (platform: Platform, machineSet: Record<string, unknown>, worker: Record<string, unknown>) =>
  mergeDiscovered({ platform, infrastructureId: "x" }, machineSetsSchema.parse([machineSet]), {
    workers: workersFor(platform, [worker]),
  });

test("vSphere: workspace, network and credentials from the worker", () => {
  const workspace = { server: "vc", datacenter: "dc", datastore: "ds", folder: "/f", resourcePool: "/rp" };
  const vs = mergedWith(
    "VSphere",
    { name: "w", vsphere: { template: "t" } },
    { workspace, network: { devices: [{ networkName: "n" }] }, credentialsSecret: { name: "vsphere-creds" } },
  );
  expect(vs.machineSets[0].vsphere).toMatchObject({
    ...workspace,
    networkName: "n",
    credentialsSecret: "vsphere-creds",
    template: "t",
  });
});

test("GCP: project, zone and region from the worker", () => {
  const gcp = mergedWith("GCP", { gcp: {} }, { projectID: "p", zone: "us-central1-b", region: "us-central1" });
  expect(gcp.cluster.region).toBe("us-central1");
  expect(gcp.machineSets[0].gcp).toMatchObject({ projectID: "p", zone: "us-central1-b" });
});

test("Nutanix: cluster, subnet and credentials from the worker", () => {
  const ntx = mergedWith(
    "Nutanix",
    { nutanix: { image: "i" } },
    { cluster: { type: "uuid", uuid: "c" }, subnets: [{ type: "uuid", uuid: "s" }], credentialsSecret: { name: "nc" } },
  );
  expect(ntx.machineSets[0].nutanix).toMatchObject({
    clusterUuid: "c",
    subnetUuid: "s",
    credentialsSecret: "nc",
    image: "i",
  });
});

test("a kubeconfig pointing at another cluster is caught", () => {
  const issues = identityIssues(
    { platform: "Azure", infrastructureId: "win-tmk9g" },
    {
      infrastructure: decodeInfrastructure({
        status: { infrastructureName: "prod-abcde", platformStatus: { type: "AWS" } },
      }),
    },
  );
  expect(issues.map((i) => i.path)).toEqual(["cluster.platform", "cluster.infrastructureId"]);
});

// WMCO's hack/machineset.sh (nutanix case) copies the Linux worker's `project` whole, so a project the workers name
// (type "name", as NutanixResourceIdentifier allows) is kept by name, not dropped for lack of a UUID.
test("a Nutanix worker's project given by name is kept by name and rendered as the worker has it", () => {
  const worker = {
    cluster: { type: "uuid", uuid: "c" },
    subnets: [{ type: "uuid", uuid: "s" }],
    project: { type: "name", name: "windows-apps" },
  };
  const merged = mergeDiscovered(
    { platform: "Nutanix", infrastructureId: "x" },
    machineSetsSchema.parse([{ nutanix: { image: "i" } }]),
    { workers: workersFor("Nutanix", [worker]) },
  );
  const block = merged.machineSets[0].nutanix;
  expect(block).toMatchObject({ projectName: "windows-apps" });
  expect(block?.projectUuid).toBeUndefined();
  expect(NUTANIX.providerSpec("x", "", merged.machineSets[0], {}).project).toEqual(worker.project);
});

// Issue 41 item 3: a VM the stack creates gets what WMCO's MachineSets copy from the Linux workers (hack/machineset.sh):
// the instance profile on AWS, the public load balancer (its way out) on Azure. Config always wins, "" included.
test("created BYOH hosts take the workers' instance profile (AWS) and public load balancer (Azure) unless configured", () => {
  const aws = {
    name: "winbyoh",
    count: 1,
    windowsServer: "2022",
    aws: { subnetId: "subnet-0a", securityGroupIds: ["sg-0a"] },
  };
  const facts = (platform: "AWS" | "Azure", spec: Record<string, unknown>) => ({
    workers: workersFor(platform, workers({ items: [workerMs(spec)] })),
  });
  const awsFacts = facts("AWS", {
    kind: "AWSMachineProviderConfig",
    iamInstanceProfile: { id: "ocp-x-worker-profile" },
  });
  const [filled, kept, byAddress] = mergeDiscoveredHosts(
    [aws, { ...aws, aws: { ...aws.aws, iamInstanceProfile: "mine" } }, { address: "10.0.0.5" }] as never,
    awsFacts,
  );
  expect(filled.aws?.iamInstanceProfile).toBe("ocp-x-worker-profile");
  expect(kept.aws?.iamInstanceProfile).toBe("mine");
  expect(byAddress).toEqual({ address: "10.0.0.5" });

  const az = { name: "w", azure: { subscriptionId: "s", adminPasswordSecret: "p" } };
  const azFacts = facts("Azure", { kind: "AzureMachineProviderSpec", publicLoadBalancer: "ocp-x" });
  const [lb, none] = mergeDiscoveredHosts(
    [az, { ...az, azure: { ...az.azure, publicLoadBalancer: "" } }] as never,
    azFacts,
  );
  expect(lb.azure?.publicLoadBalancer).toBe("ocp-x");
  expect(none.azure?.publicLoadBalancer).toBe("");
});
