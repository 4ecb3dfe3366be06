import { ResolvedNutanix } from "./resolve";
import { USER_DATA_SECRET } from "../../facts/wmco";

/** NutanixMachineProviderConfig (machine.openshift.io/v1) for a Windows VM from an image uploaded to Prism Central. */
export function nutanixProviderSpec(block: ResolvedNutanix): Record<string, unknown> {
  return {
    apiVersion: "machine.openshift.io/v1",
    kind: "NutanixMachineProviderConfig",
    bootType: "",
    cluster: { type: "uuid", uuid: block.clusterUuid },
    credentialsSecret: { name: block.credentialsSecret ?? "nutanix-credentials" },
    image: { type: "name", name: block.image },
    memorySize: block.memorySize,
    // The project as the workers identify it, by UUID or by name (hack/machineset.sh copies `project` whole).
    ...(block.projectUuid
      ? { project: { type: "uuid", uuid: block.projectUuid } }
      : block.projectName
        ? { project: { type: "name", name: block.projectName } }
        : {}),
    subnets: [{ type: "uuid", uuid: block.subnetUuid }],
    systemDiskSize: block.systemDiskSize,
    userDataSecret: { name: USER_DATA_SECRET },
    vcpuSockets: block.vcpuSockets,
    vcpusPerSocket: block.vcpusPerSocket,
  };
}
