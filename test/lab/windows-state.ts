/**
 * The state file the lab's PowerShell stand-in (fake-powershell.js) answers from: a freshly installed Windows Server
 * 2022 host with a current cumulative update, before any preparation. Hand-built; what only Windows proves is said
 * in docs/testing.md.
 */
export function freshWindowsState(hostname = "win-byoh-1") {
  return {
    hostname,
    osBuild: "20348",
    updateRevision: 2700,
    productName: "Windows Server 2022 Datacenter",
    keyFileAclOk: false,
    pubkeyAuthentication: "",
    passwordAuthentication: "",
    firewallPorts: [] as number[],
    containerdInstalled: false,
    wmcoServices: [] as string[],
    sshdStartType: "Manual",
    authorizedKeys: [] as string[],
  };
}
