/** An Azure Windows MachineSet: what the Linux workers give it, its checks, and its providerSpec. */
import { z } from "zod";
import { ConfigIssue, joinPath } from "../../stacks/config-issue";
import { AzureBlock, MachineSetConfig, WindowsServer } from "../../stacks/schema/machinesets";
import { MACHINE_API_NAMESPACE, USER_DATA_SECRET } from "../../facts/wmco";
import { anyText, fields, text } from "../../lib/decode";
import { fillFrom, PlatformMachineSets, required, Workers } from "./common";

/**
 * Azure Marketplace image (hack/machineset.sh `get_azure_ms`: sku `<version>-datacenter-smalldisk`, version
 * `latest`). 2019 has no default: the version WMCO's release branches pinned (17763.6293.240905, commit 0f408d302)
 * has been removed by Microsoft, and validation requires `azure.imageVersion` for it.
 */
export function azureImage(version: WindowsServer, override?: string) {
  if (version === "2019" && override === undefined)
    throw new Error("Azure Windows Server 2019 needs azure.imageVersion (validation should have said so)");
  return {
    publisher: "MicrosoftWindowsServer",
    offer: "WindowsServer",
    sku: `${version}-datacenter-smalldisk`,
    version: override ?? "latest",
    resourceID: "",
  };
}

/** What a Linux worker's AzureMachineProviderSpec gives (types_azureprovider.go); its zone "" (no zone) counts. */
const worker = fields({
  location: text,
  zone: anyText,
  resourceGroup: text,
  networkResourceGroup: text,
  vnet: text,
  subnet: text,
  publicLoadBalancer: text,
});
type AzureWorker = z.output<typeof worker>;

/** Zone and network names copied from the first worker; config always wins, `zone: ""` included. */
function complete(block: AzureBlock, w: AzureWorker | undefined): AzureBlock {
  return fillFrom(block, w, ["zone", "resourceGroup", "networkResourceGroup", "vnet", "subnet", "publicLoadBalancer"]);
}

/**
 * WMCO's machineset.sh copies `publicLoadBalancer` from the Linux worker (and its e2e tests from the cluster);
 * without it a Windows node may have no outbound path for what its user data downloads.
 */
function publicLoadBalancerWarnings(set: MachineSetConfig, i: number): ConfigIssue[] {
  if (!set.azure || set.azure.publicLoadBalancer !== undefined) return [];
  return [
    {
      path: joinPath(["machineSets", i, "azure", "publicLoadBalancer"]),
      message:
        "not set: copy it from a Linux worker (oc get machinesets -n openshift-machine-api -o jsonpath='{.items[0].spec.template.spec.providerSpec.value.publicLoadBalancer}'), " +
        "or turn discovery on; without it the node may lack the outbound path its user data needs (leave it out only with user-defined routing)",
    },
  ];
}

/** AzureMachineProviderSpec for a Windows machine, with the network names WMCO's script derives from the infrastructure ID. */
function azureProviderSpec(
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

export const AZURE: PlatformMachineSets = {
  block: "azure",
  discoverable: [],
  zone: () => undefined,
  workers(specs): Workers {
    const first = specs.length > 0 ? worker.parse(specs[0]) : undefined;
    return {
      region: () => first?.location,
      complete: (set) => (set.azure ? { ...set, azure: complete(set.azure, first) } : set),
      hosts: { publicLoadBalancer: first?.publicLoadBalancer },
    };
  },
  providerSpec: (infraId, region, set) => azureProviderSpec(infraId, region, set, required(set.azure, "azure")),
  issues: (set, i) =>
    set.windowsServer === "2019" && set.azure?.imageVersion === undefined
      ? [
          {
            path: joinPath(["machineSets", i, "azure", "imageVersion"]),
            message:
              "is required for Windows Server 2019 on Azure: the image WMCO pinned (17763.6293.240905) has been removed by Microsoft and newer " +
              "2019 images carry an OpenSSH regression (KB5044277) that breaks WMCO's SSH; set a 2019 image version you have verified, or use 2022 or 2025",
          },
        ]
      : [],
  warnings: publicLoadBalancerWarnings,
};
