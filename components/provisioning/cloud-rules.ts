/**
 * What AWS and Azure would refuse of a stack's VMs, said before anything is sent (their rules in facts/clouds.ts):
 * Azure's admin account rules, regions and zones against each cloud's table, and the cloud SDK a stack needs. Pure.
 */
import type { ConfigIssue } from "../../stacks/config-issue";
import {
  AWS_REGION_SHAPE,
  AWS_REGIONS,
  awsZoneOf,
  AZURE_ADMIN,
  AZURE_LOCATIONS,
  AZURE_ZONES,
} from "../../facts/clouds";
import { suggest } from "../../stacks/did-you-mean";

/** Azure's adminUsername rules for Windows (facts/clouds.ts AZURE_ADMIN). */
export function azureAdminUsernameIssues(name: string, path: string): ConfigIssue[] {
  const out: string[] = [];
  if (AZURE_ADMIN.disallowedUsernames.some((d) => d === name.toLowerCase()))
    out.push(`${JSON.stringify(name)} is a name Azure reserves for Windows VMs`);
  if (name.length > AZURE_ADMIN.usernameMaxLength)
    out.push(
      `${JSON.stringify(name)} is ${name.length} characters, Azure takes at most ${AZURE_ADMIN.usernameMaxLength}`,
    );
  if (name.endsWith(".")) out.push(`${JSON.stringify(name)} ends in ".", which Azure refuses on Windows`);
  return out.length === 0
    ? []
    : [
        {
          path,
          message: `${out.join("; ")}: choose another admin name (the default is capi, as WMCO's Azure hosts use)`,
        },
      ];
}

/**
 * Azure's adminPassword rules for Windows. The message never holds the password, only what it lacks; `key` is the
 * secret config key that holds it.
 */
export function azurePasswordIssues(password: string, path: string, key: string): ConfigIssue[] {
  const out: string[] = [];
  const { min, max } = AZURE_ADMIN.passwordLength;
  if (password.length < min || password.length > max)
    out.push(`has ${password.length} characters, Azure wants ${min} to ${max}`);
  const missing = AZURE_ADMIN.passwordClasses.filter((c) => !c.test.test(password));
  if (missing.length > 1)
    out.push(
      `needs three of lower case, upper case, digit and special character; it lacks ${missing.map((c) => c.name).join(" and ")}`,
    );
  if (AZURE_ADMIN.disallowedPasswords.some((d) => d === password))
    out.push("is one of the passwords Azure refuses as known");
  return out.length === 0
    ? []
    : [
        {
          path,
          message: `the password in windows-estate:${key} ${out.join("; ")}: set a stronger one with \`pulumi config set --secret windows-estate:${key} <password>\``,
        },
      ];
}

/**
 * A region (AWS) or location (Azure) against the cloud's table. Not in the table is a warning, never an error: a cloud
 * opens regions after the table was written. An AWS region of the wrong shape is an error (no region has it).
 */
export function regionIssues(
  cloud: "aws" | "azure",
  region: string,
  path: string,
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const table: readonly string[] = cloud === "aws" ? AWS_REGIONS : AZURE_LOCATIONS;
  // Azure also takes display names ("West Europe"): compared without case and spaces.
  const name = cloud === "azure" ? region.toLowerCase().replace(/\s+/g, "") : region;
  if (table.includes(name)) return { errors: [], warnings: [] };
  const hint = suggest(name, table);
  const mean = hint ? `did you mean ${hint}? ` : "";
  if (cloud === "aws" && !AWS_REGION_SHAPE.test(region))
    return {
      errors: [
        { path, message: `${JSON.stringify(region)} is not an AWS region code (like us-east-2); ${mean}`.trim() },
      ],
      warnings: [],
    };
  return {
    errors: [],
    warnings: [
      {
        path,
        message: `${JSON.stringify(region)} is not ${cloud === "aws" ? "an AWS region" : "an Azure location"} this program knows; ${mean}if it is one ${cloud === "aws" ? "AWS" : "Azure"} opened since (facts/clouds.ts lists those it knows), go ahead: the cloud itself decides at up`,
      },
    ],
  };
}

/** An AWS Availability Zone must lie in its region (`us-east-2a` in `us-east-2`). */
export function awsZoneIssues(zone: string, region: string | undefined, path: string): ConfigIssue[] {
  if (!region || awsZoneOf(region).test(zone)) return [];
  return [
    {
      path,
      message: `${JSON.stringify(zone)} is not an Availability Zone of ${region} (its zones are ${region}a, ${region}b, …): fix the zone or the region`,
    },
  ];
}

/** An Azure availability zone is "1", "2", "3", or "" for none. */
export function azureZoneIssues(zone: string, path: string): ConfigIssue[] {
  return AZURE_ZONES.some((z) => z === zone)
    ? []
    : [
        {
          path,
          message: `${JSON.stringify(zone)} is not an Azure availability zone: use "1", "2", "3", or "" for none`,
        },
      ];
}

/**
 * An Azure VM whose way out nobody stated (no `publicLoadBalancer` in the config, none discovered): first boot needs
 * one, and Azure's default outbound access is not given to every subnet (WMCO's MachineSets join the cluster's public
 * load balancer, hack/machineset.sh). A warning at preview, naming the key both ways.
 */
export function azureOutboundWarning(host: string): string {
  return `Azure VM ${host} has no stated way out: its first boot installs OpenSSH from Windows Update and its node then pulls images from the registries. Set azure.publicLoadBalancer to the cluster's public load balancer (what the Linux workers' MachineSets have; discovery fills it at preview and up), or to "" when the subnet has its own (a NAT gateway, a firewall route)`;
}
