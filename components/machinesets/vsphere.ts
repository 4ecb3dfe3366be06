import { ResolvedVsphere } from "./resolve";
import { USER_DATA_SECRET } from "../../facts/wmco";

/**
 * VSphereMachineProviderSpec cloned from your golden-image template. `userDataSecret` is set although the golden
 * image already carries the public key (WMCO's script leaves it out): with it, a key rotation reaches new machines
 * through the user data WMCO regenerates, as the operator's own CSV example does.
 */
export function vsphereProviderSpec(block: ResolvedVsphere): Record<string, unknown> {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "VSphereMachineProviderSpec",
    credentialsSecret: { name: block.credentialsSecret ?? "vsphere-cloud-credentials" },
    diskGiB: block.diskGiB,
    memoryMiB: block.memoryMiB,
    metadata: { creationTimestamp: null },
    network: { devices: [{ networkName: block.networkName }] },
    numCPUs: block.numCPUs,
    numCoresPerSocket: block.numCoresPerSocket,
    snapshot: "",
    template: block.template,
    userDataSecret: { name: USER_DATA_SECRET },
    workspace: {
      datacenter: block.datacenter,
      datastore: block.datastore,
      folder: block.folder,
      ...(block.resourcePool ? { resourcePool: block.resourcePool } : {}),
      server: block.server,
    },
  };
}
