/** A GCP Windows MachineSet: what the Linux workers give it, and its providerSpec. */
import { z } from "zod";
import { GcpBlock, WindowsServer } from "../../stacks/schema/machinesets";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { fields, listOf, text } from "../../lib/decode";
import { filled, Filled, PlatformMachineSets, Workers } from "./common";

/** GCP public image family of Windows Server Core. */
function gcpImageFamily(version: WindowsServer): string {
  return `projects/windows-cloud/global/images/family/windows-${version}-core`;
}

/** What a Linux worker's GCPMachineProviderSpec gives (types_gcpprovider.go). */
const worker = fields({
  projectID: text,
  zone: text,
  region: text,
  networkInterfaces: listOf(z.object({ network: text, subnetwork: text })),
  serviceAccounts: listOf(z.object({ email: text })),
});
type GcpWorker = z.output<typeof worker>;

/** Project, zone, network and service account copied from the worker in the set's zone, else the first. */
function complete(block: GcpBlock, workers: readonly GcpWorker[]): GcpBlock {
  const w = (block.zone ? workers.find((x) => x.zone === block.zone) : undefined) ?? workers[0];
  return {
    ...block,
    projectID: block.projectID ?? w?.projectID,
    zone: block.zone ?? w?.zone,
    network: block.network ?? w?.networkInterfaces[0]?.network,
    subnetwork: block.subnetwork ?? w?.networkInterfaces[0]?.subnetwork,
    serviceAccountEmail: block.serviceAccountEmail ?? w?.serviceAccounts[0]?.email,
  };
}

const DISCOVERABLE = ["projectID", "zone"] as const;

/** GCPMachineProviderSpec for a Windows machine: the worker network, service account and tag of the cluster. */
function gcpProviderSpec(
  infraId: string,
  region: string,
  windowsServer: WindowsServer,
  block: Filled<GcpBlock, (typeof DISCOVERABLE)[number]>,
): Record<string, unknown> {
  const project = block.projectID;
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "GCPMachineProviderSpec",
    canIPForward: false,
    credentialsSecret: { name: "gcp-cloud-credentials" },
    deletionProtection: false,
    disks: [
      {
        autoDelete: true,
        boot: true,
        image: gcpImageFamily(windowsServer),
        sizeGb: block.diskSizeGb,
        type: block.diskType,
      },
    ],
    machineType: block.machineType,
    networkInterfaces: [
      { network: block.network ?? `${infraId}-network`, subnetwork: block.subnetwork ?? `${infraId}-worker-subnet` },
    ],
    projectID: project,
    region,
    serviceAccounts: [
      {
        email: block.serviceAccountEmail ?? `${infraId}-w@${project}.iam.gserviceaccount.com`,
        scopes: ["https://www.googleapis.com/auth/cloud-platform"],
      },
    ],
    tags: [`${infraId}-worker`],
    userDataSecret: { name: USER_DATA_SECRET },
    zone: block.zone,
  };
}

export const GCP: PlatformMachineSets = {
  block: "gcp",
  discoverable: DISCOVERABLE,
  zone: (set) => set.gcp?.zone,
  workers(specs): Workers {
    const workers = specs.map((s) => worker.parse(s));
    return {
      region: (infra) => infra?.region.GCP ?? workers[0]?.region,
      complete: (set) => (set.gcp ? { ...set, gcp: complete(set.gcp, workers) } : set),
      hosts: {},
    };
  },
  providerSpec: (infraId, region, set) =>
    gcpProviderSpec(infraId, region, set.windowsServer, filled(set.gcp, DISCOVERABLE, "gcp")),
  issues: () => [],
};
