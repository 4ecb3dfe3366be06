import { OpenShiftClusterConfig, Platform } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { AWS } from "./aws";
import { AZURE } from "./azure";
import { buildSkeleton, PlatformMachineSets, Resolved } from "./common";
import { GCP } from "./gcp";
import { machineSetName } from "./names";
import { NUTANIX } from "./nutanix";
import { VSPHERE } from "./vsphere";

/** Each platform's Windows MachineSets; `None` has no Machine API. */
export const PLATFORM_MACHINESETS: Readonly<Record<Platform, PlatformMachineSets | undefined>> = {
  AWS,
  Azure: AZURE,
  GCP,
  VSphere: VSPHERE,
  Nutanix: NUTANIX,
  None: undefined,
};

/**
 * The whole MachineSet for one validated (and, when enabled, discovery-completed) config entry. Validation
 * guarantees every required field is present; a missing one here is a bug, reported as such.
 */
export function buildMachineSet(
  cluster: Pick<OpenShiftClusterConfig, "platform" | "infrastructureId" | "region">,
  set: MachineSetConfig,
  resolved: Resolved = {},
) {
  const { platform, infrastructureId: infraId } = cluster;
  const name = machineSetName(platform, infraId, set);
  if (!name) throw new Error(`internal: MachineSet name unresolved for platform ${platform}`);
  const machineSets = PLATFORM_MACHINESETS[platform];
  if (!machineSets) throw new Error("internal: platform None has no MachineSets");
  const built = buildSkeleton(
    infraId,
    name,
    set,
    machineSets.providerSpec(infraId, cluster.region ?? "", set, resolved),
  );
  return resolved.replicas === undefined ? built : { ...built, spec: { ...built.spec, replicas: resolved.replicas } };
}
