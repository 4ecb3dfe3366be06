import { Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";

/**
 * The default name, as WMCO's `hack/machineset.sh` makes it: on AWS `<infraId>-winworker-<az>`, on GCP
 * `<infraId>-winworker-<zone suffix>` (the `a` of `us-central1-a`), elsewhere `winworker`; `winbyoh` for BYOH sets.
 * Returns undefined while the zone needed for the name is still unknown (it may be discovered).
 */
function defaultName(platform: Platform, infraId: string, set: MachineSetConfig): string | undefined {
  const base = set.byoh ? "winbyoh" : "winworker";
  if (platform === "AWS")
    return set.aws?.availabilityZone ? `${infraId}-${base}-${set.aws.availabilityZone}` : undefined;
  if (platform === "GCP") return set.gcp?.zone ? `${infraId}-${base}-${set.gcp.zone.split("-").pop()}` : undefined;
  return base;
}

export function machineSetName(platform: Platform, infraId: string, set: MachineSetConfig): string | undefined {
  return set.name ?? defaultName(platform, infraId, set);
}
