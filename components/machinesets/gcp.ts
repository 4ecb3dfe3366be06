import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { ResolvedGcp } from "./resolve";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { gcpImageFamily } from "./images";

/** GCPMachineProviderSpec for a Windows machine: the worker network, service account and tag of the cluster. */
export function gcpProviderSpec(
  infraId: string,
  region: string,
  set: MachineSetConfig,
  block: ResolvedGcp,
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
        image: gcpImageFamily(set.windowsServer),
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
