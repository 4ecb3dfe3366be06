import { ResolvedNutanix } from "./resolve";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { canonicalQuantity } from "../../lib/quantity";

/**
 * NutanixMachineProviderConfig (machine.openshift.io/v1) for a Windows VM from an image uploaded to Prism Central.
 * Quantities are written as machine-api's defaulting webhook writes them back (lib/quantity.ts): `16384Mi` would be
 * stored as `16Gi`, and every preview after a create would show the difference.
 */
export function nutanixProviderSpec(block: ResolvedNutanix): Record<string, unknown> {
  return {
    apiVersion: "machine.openshift.io/v1",
    kind: "NutanixMachineProviderConfig",
    bootType: "",
    cluster: { type: "uuid", uuid: block.clusterUuid },
    credentialsSecret: { name: block.credentialsSecret ?? "nutanix-credentials" },
    image: { type: "name", name: block.image },
    memorySize: canonicalQuantity(block.memorySize),
    // The project as the workers identify it, by UUID or by name (hack/machineset.sh copies `project` whole).
    ...(block.projectUuid
      ? { project: { type: "uuid", uuid: block.projectUuid } }
      : block.projectName
        ? { project: { type: "name", name: block.projectName } }
        : {}),
    subnets: [{ type: "uuid", uuid: block.subnetUuid }],
    systemDiskSize: canonicalQuantity(block.systemDiskSize),
    userDataSecret: { name: USER_DATA_SECRET },
    vcpuSockets: block.vcpuSockets,
    vcpusPerSocket: block.vcpusPerSocket,
  };
}
