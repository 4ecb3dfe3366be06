/** A Nutanix Windows MachineSet: what the Linux workers give it, its checks, and its providerSpec. */
import { z } from "zod";
import { joinPath } from "../../stacks/config-issue";
import { NutanixBlock } from "../../stacks/schema/machinesets";
import { USER_DATA_SECRET } from "../../facts/wmco";
import { canonicalQuantity } from "../../lib/quantity";
import { fields, listOf, loose, text } from "../../lib/decode";
import { filled, Filled, firstWorkerFills, PlatformMachineSets } from "./common";

/** What a Linux worker's NutanixMachineProviderConfig gives (machine/v1 types_nutanixprovider.go). */
const worker = fields({
  cluster: loose({ uuid: text }),
  subnets: listOf(z.object({ uuid: text })),
  credentialsSecret: loose({ name: text }),
  project: loose({ type: z.unknown().optional(), uuid: text, name: text }),
});
type NutanixWorker = z.output<typeof worker>;

/**
 * Cluster, subnet, credentials Secret and project copied from the first worker; hack/machineset.sh copies the
 * worker's `project` whatever its type, by name or by UUID. Config always wins, a project configured either way too.
 */
function complete(block: NutanixBlock, w: NutanixWorker | undefined): NutanixBlock {
  const byName = w?.project?.type === "name";
  const configured = block.projectUuid !== undefined || block.projectName !== undefined;
  return {
    ...block,
    clusterUuid: block.clusterUuid ?? w?.cluster?.uuid,
    subnetUuid: block.subnetUuid ?? w?.subnets[0]?.uuid,
    credentialsSecret: block.credentialsSecret ?? w?.credentialsSecret?.name,
    projectUuid: configured ? block.projectUuid : byName ? undefined : w?.project?.uuid,
    projectName: configured ? block.projectName : byName ? w?.project?.name : undefined,
  };
}

const DISCOVERABLE = ["clusterUuid", "subnetUuid"] as const;

/**
 * NutanixMachineProviderConfig (machine.openshift.io/v1) for a Windows VM from an image uploaded to Prism Central.
 * Quantities are written as machine-api's defaulting webhook writes them back (lib/quantity.ts): `16384Mi` would be
 * stored as `16Gi`, and every preview after a create would show the difference.
 */
function nutanixProviderSpec(block: Filled<NutanixBlock, (typeof DISCOVERABLE)[number]>): Record<string, unknown> {
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

export const NUTANIX: PlatformMachineSets = {
  block: "nutanix",
  discoverable: DISCOVERABLE,
  zone: () => undefined,
  workers: (specs) => firstWorkerFills("nutanix", specs, (s) => worker.parse(s), complete),
  providerSpec: (_infraId, _region, set) => nutanixProviderSpec(filled(set.nutanix, DISCOVERABLE, "nutanix")),
  issues: (set, i) =>
    set.nutanix?.projectUuid !== undefined && set.nutanix.projectName !== undefined
      ? [
          {
            path: joinPath(["machineSets", i, "nutanix", "projectName"]),
            message: "set either projectUuid or projectName, not both",
          },
        ]
      : [],
};
