import { WindowsServer } from "../../stacks/schema/machinesets";

/** AWS: the AMI name filter of WMCO's script, owned by Amazon; the newest match is used. */
export function awsAmiFilter(version: WindowsServer): { owners: string[]; nameFilter: string } {
  return { owners: ["amazon"], nameFilter: `Windows_Server-${version}-English-Core-Base-????.??.??` };
}

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

/** GCP public image family of Windows Server Core. */
export function gcpImageFamily(version: WindowsServer): string {
  return `projects/windows-cloud/global/images/family/windows-${version}-core`;
}
