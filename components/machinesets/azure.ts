import { AzureBlock, MachineSetConfig } from "../../stacks/schema/machinesets";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { azureImage } from "./images";

/** AzureMachineProviderSpec for a Windows machine, with the network names WMCO's script derives from the infrastructure ID. */
export function azureProviderSpec(
  infraId: string,
  location: string,
  set: MachineSetConfig,
  block: AzureBlock,
): Record<string, unknown> {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "AzureMachineProviderSpec",
    credentialsSecret: { name: "azure-cloud-credentials", namespace: MACHINE_API_NAMESPACE },
    diagnostics: { boot: { storageAccountType: "AzureManaged" } },
    image: azureImage(set.windowsServer, block.imageVersion),
    location,
    metadata: { creationTimestamp: null },
    networkResourceGroup: block.networkResourceGroup ?? `${infraId}-rg`,
    osDisk: {
      diskSizeGB: block.diskSizeGB,
      managedDisk: { storageAccountType: block.storageAccountType },
      osType: "Windows",
    },
    publicIP: false,
    ...(block.publicLoadBalancer ? { publicLoadBalancer: block.publicLoadBalancer } : {}),
    resourceGroup: block.resourceGroup ?? `${infraId}-rg`,
    subnet: block.subnet ?? `${infraId}-worker-subnet`,
    userDataSecret: { name: USER_DATA_SECRET, namespace: MACHINE_API_NAMESPACE },
    vmSize: block.vmSize,
    vnet: block.vnet ?? `${infraId}-vnet`,
    // `Zone string json:"zone,omitempty"` (openshift/api machine/v1beta1/types_azureprovider.go l.98): machine-api's
    // defaulting webhook re-marshals the spec on create and drops `zone: ""`, so pulumi-kubernetes, comparing the
    // live object with these inputs, showed a change after every create. No zone is no key.
    ...(block.zone ? { zone: block.zone } : {}),
  };
}
