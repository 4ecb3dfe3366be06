import { ResolvedVsphere } from "./resolve";
import { USER_DATA_SECRET } from "../../facts/wmco";

/**
 * VSphereMachineProviderSpec cloned from your golden-image template. `userDataSecret` is set as in WMCO's README
 * example (its hack/machineset.sh leaves it out), but a Windows VM never reads vSphere user data: WMCO renames the host
 * itself for want of "an equivalent of ignition in Windows" (controllers/windowsmachine_controller.go). The WMCO public
 * key reaches a vSphere Machine only through the template (docs/vsphere-golden-image.md), so a key rotation needs a
 * template with the new key first (`vsphere.templateKeys`, checked in components/key/rotation.ts).
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
