import { WindowsServer } from "../../stacks/schema/machinesets";

/** AWS: the AMI name filter of WMCO's script, owned by Amazon; the newest match is used. */
export function awsAmiFilter(version: WindowsServer): { owners: string[]; nameFilter: string } {
  return { owners: ["amazon"], nameFilter: `Windows_Server-${version}-English-Core-Base-????.??.??` };
}

/**
 * Azure Marketplace image. 2019 is pinned to 17763.6293.240905: later 2019 builds broke sshd, so WMCO's own
 * script pins the same version (commit 0f408d302).
 */
export function azureImage(version: WindowsServer, override?: string) {
  return {
    publisher: "MicrosoftWindowsServer",
    offer: "WindowsServer",
    sku: `${version}-datacenter-smalldisk`,
    version: override ?? (version === "2019" ? "17763.6293.240905" : "latest"),
    resourceID: "",
  };
}

/** GCP public image family of Windows Server Core. */
export function gcpImageFamily(version: WindowsServer): string {
  return `projects/windows-cloud/global/images/family/windows-${version}-core`;
}
