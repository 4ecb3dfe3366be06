import { Platform } from "../../stacks/schema/cluster";
import { WindowsServer } from "../../stacks/schema/machinesets";

/**
 * Windows Server versions WMCO supports per platform (OpenShift 4.22 / WMCO 10.22 docs, wmco-prerequisites.md):
 * 2019 only on AWS and Azure; vSphere cannot run 2019 at all because it lacks KB4565351, needed for the custom
 * VXLAN port vSphere clusters use.
 */
export const SUPPORTED_VERSIONS: Record<Exclude<Platform, "None">, readonly WindowsServer[]> = {
  AWS: ["2019", "2022", "2025"],
  Azure: ["2019", "2022", "2025"],
  GCP: ["2022", "2025"],
  VSphere: ["2022", "2025"],
  Nutanix: ["2022", "2025"],
};

export function isSupported(platform: Exclude<Platform, "None">, version: WindowsServer): boolean {
  return SUPPORTED_VERSIONS[platform].includes(version);
}

/** The `node.kubernetes.io/windows-build` label value of each version. */
export const WINDOWS_BUILD: Record<WindowsServer, string> = {
  "2019": "10.0.17763",
  "2022": "10.0.20348",
  "2025": "10.0.26100",
};
