/**
 * The config check for what AWS and Azure would refuse (cloud-rules.ts), over every place a stack names a cloud:
 * `cluster.region` on AWS and Azure, MachineSet zones, and the `byoh[]`/`nodes[]` entries that create VMs (regions,
 * Azure's admin account, the cloud SDK the stack then needs).
 */
import type { ConfigIssue } from "../../stacks/config-issue";
import { joinPath, uniqueIssues } from "../../stacks/config-issue";
import type { Validator } from "../../stacks/load";
import type { AwsProvisioning, AzureProvisioning } from "../../stacks/schema/provisioning";
import {
  awsZoneIssues,
  azureAdminUsernameIssues,
  azurePasswordIssues,
  azureZoneIssues,
  regionIssues,
} from "./cloud-rules";
import { Cloud, CLOUD_SDK, installCommand, sdkInstalled, sdkVersion } from "./cloud-sdk";

interface Entry {
  aws?: AwsProvisioning;
  azure?: AzureProvisioning;
}

/** A created host's cloud SDK must be installed (cloud-sdk.ts): said once per cloud, at the first entry using it. */
export function cloudSdkIssues(
  entries: readonly { entry: Entry; at: (...p: string[]) => string }[],
  installed: (cloud: Cloud) => boolean,
  version: (cloud: Cloud) => string,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const cloud of ["aws", "azure"] as const) {
    const first = entries.find((e) => e.entry[cloud] !== undefined);
    if (first && !installed(cloud))
      out.push({
        path: first.at(cloud),
        message: `creates a VM on ${cloud === "aws" ? "AWS" : "Azure"}, which needs the npm package ${CLOUD_SDK[cloud]} (an optional peer dependency, not installed): run \`${installCommand(cloud, version(cloud))}\``,
      });
  }
  return out;
}

export const clouds: Validator = (cfg, ctx) => {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const region = (cloud: "aws" | "azure", value: string, path: string) => {
    const r = regionIssues(cloud, value, path);
    errors.push(...r.errors);
    warnings.push(...r.warnings);
  };
  const platform = cfg.cluster?.platform;
  const clusterRegion = cfg.cluster?.region;
  if (clusterRegion && platform === "AWS") region("aws", clusterRegion, "cluster.region");
  if (clusterRegion && platform === "Azure") region("azure", clusterRegion, "cluster.region");
  (cfg.machineSets ?? []).forEach((s, i) => {
    if (s.aws?.availabilityZone)
      errors.push(
        ...awsZoneIssues(
          s.aws.availabilityZone,
          clusterRegion,
          joinPath(["machineSets", i, "aws", "availabilityZone"]),
        ),
      );
    if (s.azure?.zone !== undefined)
      errors.push(...azureZoneIssues(s.azure.zone, joinPath(["machineSets", i, "azure", "zone"])));
  });
  const entries = [
    ...(cfg.byoh ?? []).map((entry, i) => ({ entry, at: (...p: string[]) => joinPath(["byoh", i, ...p]) })),
    ...(cfg.nodes ?? []).map((entry, i) => ({ entry, at: (...p: string[]) => joinPath(["nodes", i, ...p]) })),
  ];
  for (const { entry, at } of entries) {
    // cluster.region was checked above on AWS and Azure clusters; a Kubernetes cluster's is the entries' to check.
    const fromCluster = platform !== "AWS" && platform !== "Azure" ? clusterRegion : undefined;
    if (entry.aws) {
      const r = entry.aws.region ?? fromCluster;
      if (r) region("aws", r, entry.aws.region ? at("aws", "region") : "cluster.region");
    }
    const a = entry.azure;
    if (a) {
      const r = a.location ?? fromCluster;
      if (r) region("azure", r, a.location ? at("azure", "location") : "cluster.region");
      errors.push(...azureAdminUsernameIssues(a.adminUsername, at("azure", "adminUsername")));
      const password = ctx.secretText(a.adminPasswordSecret);
      if (password !== undefined)
        errors.push(...azurePasswordIssues(password, at("azure", "adminPasswordSecret"), a.adminPasswordSecret));
    }
  }
  errors.push(...cloudSdkIssues(entries, sdkInstalled, sdkVersion));
  return { errors: uniqueIssues(errors), warnings: uniqueIssues(warnings) };
};
