/** A vSphere Windows MachineSet: what the Linux workers give it, and its providerSpec. */
import { z } from "zod";
import { VsphereBlock } from "../../stacks/schema/machinesets";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { fields, listOf, loose, text } from "../../lib/decode";
import { fillFrom, filled, Filled, firstWorkerFills, PlatformMachineSets } from "./common";

/** What a Linux worker's VSphereMachineProviderSpec gives (types_vsphereprovider.go). */
const worker = fields({
  workspace: loose({ server: text, datacenter: text, datastore: text, folder: text, resourcePool: text }),
  network: loose({ devices: listOf(z.object({ networkName: text })) }),
  credentialsSecret: loose({ name: text }),
}).transform((w) => ({
  ...w.workspace,
  networkName: w.network?.devices[0]?.networkName,
  credentialsSecret: w.credentialsSecret?.name,
}));
type VsphereWorker = z.output<typeof worker>;

/** Workspace, network and credentials Secret copied from the first worker; config always wins. */
function complete(block: VsphereBlock, w: VsphereWorker | undefined): VsphereBlock {
  const keys = [
    "server",
    "datacenter",
    "datastore",
    "folder",
    "resourcePool",
    "networkName",
    "credentialsSecret",
  ] as const;
  return fillFrom(block, w, keys);
}

const DISCOVERABLE = ["server", "datacenter", "datastore", "folder", "networkName"] as const;

/**
 * VSphereMachineProviderSpec cloned from your golden-image template. `userDataSecret` is set as in WMCO's README
 * example (its hack/machineset.sh leaves it out), but a Windows VM never reads vSphere user data: WMCO renames the host
 * itself for want of "an equivalent of ignition in Windows" (controllers/windowsmachine_controller.go). The WMCO public
 * key reaches a vSphere Machine only through the template (docs/vsphere-golden-image.md), so a key rotation needs a
 * template with the new key first (`vsphere.templateKeys`, checked in components/key/rotation.ts).
 */
function vsphereProviderSpec(block: Filled<VsphereBlock, (typeof DISCOVERABLE)[number]>): Record<string, unknown> {
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

export const VSPHERE: PlatformMachineSets = {
  block: "vsphere",
  discoverable: DISCOVERABLE,
  zone: () => undefined,
  workers: (specs) => firstWorkerFills("vsphere", specs, (s) => worker.parse(s), complete),
  providerSpec: (_infraId, _region, set) => vsphereProviderSpec(filled(set.vsphere, DISCOVERABLE, "vsphere")),
  issues: () => [],
};
