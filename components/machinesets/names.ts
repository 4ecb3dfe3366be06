import { Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";

/**
 * Azure, vSphere and Nutanix name the Windows computer after the Machine. Windows caps computer names at 15
 * characters and the Machine API appends `-xxxxx`, which leaves 9 for the MachineSet.
 */
export const SHORT_NAME_PLATFORMS: ReadonlySet<Platform> = new Set(["Azure", "VSphere", "Nutanix"]);
export const SHORT_NAME_LIMIT = 9;
/** MachineSet names are also label values (`cluster-api-machineset`), which are capped at 63 characters. */
export const NAME_LIMIT = 63;

export function nameLimit(platform: Platform): number {
  return SHORT_NAME_PLATFORMS.has(platform) ? SHORT_NAME_LIMIT : NAME_LIMIT;
}

/**
 * The default name, as WMCO's `hack/machineset.sh` makes it: on AWS `<infraId>-winworker-<az>`, on GCP
 * `<infraId>-winworker-<zone suffix>` (the `a` of `us-central1-a`), elsewhere `winworker`; `winbyoh` for BYOH sets.
 * Returns undefined while the zone needed for the name is still unknown (it may be discovered).
 */
export function defaultName(platform: Platform, infraId: string, set: MachineSetConfig): string | undefined {
  const base = set.byoh ? "winbyoh" : "winworker";
  if (platform === "AWS") return set.aws?.availabilityZone ? `${infraId}-${base}-${set.aws.availabilityZone}` : undefined;
  if (platform === "GCP") return set.gcp?.zone ? `${infraId}-${base}-${set.gcp.zone.split("-").pop()}` : undefined;
  return base;
}

export function machineSetName(platform: Platform, infraId: string, set: MachineSetConfig): string | undefined {
  return set.name ?? defaultName(platform, infraId, set);
}
