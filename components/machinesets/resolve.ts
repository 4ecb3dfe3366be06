import { AwsBlock, GcpBlock, NutanixBlock, VsphereBlock } from "../../stacks/schema/machinesets";

/**
 * Platform blocks once validation and discovery have filled every value the Machine API needs: the types the
 * builders accept, so a missing zone or datacenter cannot reach a MachineSet. Each `resolve*` returns undefined
 * when something is still missing (validation reports it by key first; see validate.ts `requiredFieldIssues`).
 */
export type ResolvedAws = AwsBlock & { availabilityZone: string };
export type ResolvedGcp = GcpBlock & { projectID: string; zone: string };
export type ResolvedVsphere = VsphereBlock & {
  server: string;
  datacenter: string;
  datastore: string;
  folder: string;
  networkName: string;
};
export type ResolvedNutanix = NutanixBlock & { clusterUuid: string; subnetUuid: string };

export function resolveAws(b: AwsBlock | undefined): ResolvedAws | undefined {
  const az = b?.availabilityZone;
  return b && az !== undefined ? { ...b, availabilityZone: az } : undefined;
}

export function resolveGcp(b: GcpBlock | undefined): ResolvedGcp | undefined {
  const [projectID, zone] = [b?.projectID, b?.zone];
  return b && projectID !== undefined && zone !== undefined ? { ...b, projectID, zone } : undefined;
}

export function resolveVsphere(b: VsphereBlock | undefined): ResolvedVsphere | undefined {
  if (!b) return undefined;
  const { server, datacenter, datastore, folder, networkName } = b;
  if (
    server === undefined ||
    datacenter === undefined ||
    datastore === undefined ||
    folder === undefined ||
    networkName === undefined
  )
    return undefined;
  return { ...b, server, datacenter, datastore, folder, networkName };
}

export function resolveNutanix(b: NutanixBlock | undefined): ResolvedNutanix | undefined {
  const [clusterUuid, subnetUuid] = [b?.clusterUuid, b?.subnetUuid];
  return b && clusterUuid !== undefined && subnetUuid !== undefined ? { ...b, clusterUuid, subnetUuid } : undefined;
}
