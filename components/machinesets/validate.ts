import { ConfigIssue, joinPath, worded } from "../../stacks/config-issue";
import { OpenShiftClusterConfig, Platform, PLATFORM_BLOCK, PLATFORMS } from "../../stacks/schema/cluster";
import { MachineSetConfig } from "../../stacks/schema/machinesets";
import { machineSetName } from "./names";
import { PLATFORM_MACHINESETS } from "./build";
import { OperatorChoice, PIN_HINT, wmcoInEffect } from "../wmco/release";
import {
  format,
  machineSetNameLimit,
  NEWEST_WMCO,
  SHORT_NAME_PLATFORMS,
  supportedBy,
  supportedVersions,
  WindowsServer,
  WmcoVersion,
} from "../../facts/wmco";

const BLOCKS = ["aws", "azure", "gcp", "vsphere", "nutanix"] as const;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Checks `windows-estate:machineSets` against the cluster: the right platform block, supported Windows versions,
 * name rules, duplicates, and (when nothing can be discovered) every value the MachineSet needs.
 */
export function validateMachineSets(
  cluster: OpenShiftClusterConfig,
  sets: readonly MachineSetConfig[],
  /** `wmco`: the pinned release, undefined for the newest rules, or "cluster" when discovery will say at preview/up. */
  opts: { discovery: boolean; offline: boolean; wmco?: KnownWmco | "cluster" },
): { errors: ConfigIssue[]; warnings: ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const platform = cluster.platform;
  if (sets.length === 0) return { errors, warnings };
  if (platform === "None") {
    errors.push({
      path: "machineSets",
      ...worded((a) => `platform None has no Machine API; list your Windows hosts under ${a.key("byoh")} instead`),
    });
    return { errors, warnings };
  }
  const machineSets = PLATFORM_MACHINESETS[platform];
  if (!machineSets) return { errors, warnings };
  const expected = machineSets.block;
  const names = new Map<string, number>();
  sets.forEach((set, i) => {
    const at = (...p: (string | number)[]) => joinPath(["machineSets", i, ...p]);
    // Surge brings the new Machine up before the old one goes: one replica is enough there.
    if (set.rollout && set.rollout.strategy === "replace" && set.replicas < 2)
      errors.push({
        path: at("rollout"),
        message: `needs replicas of at least 2 (this set has ${set.replicas}): replacing the only Machine would leave the set with no Windows node; raise replicas for the rollout, use rollout.strategy: surge, or remove rollout and replace the Machine by hand`,
      });
    if (set.rollout && cluster.render !== undefined)
      errors.push({
        path: at("rollout"),
        message:
          "replaces Machines through the cluster's API; a render-only stack (cluster.render) cannot: remove rollout",
      });
    for (const b of BLOCKS) {
      if (b !== expected && set[b] !== undefined) {
        const owner = PLATFORMS.find((p) => PLATFORM_BLOCK[p] === b);
        errors.push({
          path: at(b),
          message: `is for ${owner} clusters, but cluster.platform is ${platform}; use the '${expected}' block`,
        });
      }
    }
    if (set[expected] === undefined) {
      errors.push({
        path: at(expected),
        message: `is required: cluster.platform is ${platform}, so each MachineSet needs its '${expected}' block`,
      });
      return;
    }
    if (opts.wmco !== "cluster")
      errors.push(...versionIssues(platform, at("windowsServer"), set.windowsServer, opts.wmco));
    errors.push(...machineSets.issues(set, i));
    if (!opts.discovery) errors.push(...requiredFieldIssues(cluster, set, i));
    if (!opts.discovery) warnings.push(...(machineSets.warnings?.(set, i) ?? []));
    errors.push(...zoneIssues(cluster, set, i));

    const name = machineSetName(platform, cluster.infrastructureId, set);
    if (name !== undefined) {
      const limit = machineSetNameLimit(platform);
      const where = set.name !== undefined ? at("name") : at(expected);
      if (!DNS_LABEL.test(name)) {
        errors.push({
          path: where,
          message: `name "${name}" must be lowercase letters, digits and '-' (it names Machines and nodes)`,
        });
      } else if (name.length > limit) {
        errors.push({
          path: where,
          message: SHORT_NAME_PLATFORMS.has(platform)
            ? `name "${name}" has ${name.length} characters; on ${platform} at most ${limit}: the Windows computer name is the Machine name (15 characters) and the Machine API appends '-xxxxx'`
            : `name "${name}" has ${name.length} characters; at most ${limit} (it is a label value); set a shorter machineSets[${i}].name`,
        });
      }
      const first = names.get(name);
      if (first !== undefined)
        errors.push({
          path: where,
          message: `MachineSet name "${name}" is used twice (also machineSets[${first}]); set distinct names`,
        });
      else names.set(name, i);
    }
    if (platform === "AWS" && !set.aws?.ami && opts.offline) {
      warnings.push({
        path: at("aws", "ami"),
        message: `not set: the newest Amazon Windows_Server-${set.windowsServer}-English-Core-Base AMI is looked up at pulumi up; synth shows a placeholder`,
      });
    }
  });
  return { errors, warnings };
}

/**
 * The WMCO release `operator.startingCSV` pins: only with `installPlanApproval: Manual`, since with Automatic OLM
 * moves on to the channel head at once (components/wmco/release.ts `wmcoInEffect`).
 */
export function pinnedWmco(
  operator: Pick<OperatorChoice, "installPlanApproval" | "startingCSV" | "channel"> | undefined,
): KnownWmco | undefined {
  if (!operator) return undefined;
  const w = wmcoInEffect(operator);
  return w.from === "pinned" ? w : undefined;
}

/** Which WMCO the rules are for, and where that came from (for messages). */
export interface KnownWmco {
  version: WmcoVersion;
  /** e.g. "operator.startingCSV", "the installed CSV", "the cluster version 4.22.3". */
  source: string;
}

/**
 * A Windows Server version (of `machineSets[i]` or `byoh[i]`, at `path`) the WMCO in use does not support on this
 * platform (e.g. 2019 on vSphere); used again after discovery learns the version.
 */
export function versionIssues(platform: Platform, path: string, windowsServer: WindowsServer, wmco?: KnownWmco) {
  const version = wmco?.version ?? NEWEST_WMCO;
  const supported = supportedVersions(platform, version);
  if (supported.includes(windowsServer)) return [];
  const which = wmco
    ? `WMCO ${format(version)} (from ${wmco.source})`
    : `the newest WMCO (${format(version)}; ${PIN_HINT})`;
  const message = `Windows Server ${windowsServer} is not supported on ${platform} by ${which}; supported: ${supported.join(", ")}. ${windowsServer} on ${platform} is supported by ${supportedBy(platform, windowsServer)}`;
  return [{ path, message }];
}

/**
 * Missing values that neither the config nor (now) discovery provide. `afterDiscovery`: the cluster was asked and had
 * no Linux worker to copy from, so the message says that instead of suggesting discovery.
 */
export function requiredFieldIssues(
  cluster: OpenShiftClusterConfig,
  set: MachineSetConfig,
  i: number,
  afterDiscovery = false,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const machineSets = PLATFORM_MACHINESETS[cluster.platform];
  if (!machineSets) return out;
  if (["AWS", "Azure", "GCP"].includes(cluster.platform) && !cluster.region) {
    out.push({
      path: "cluster.region",
      message: `is required for ${cluster.platform} MachineSets (or enable discovery with a cluster to read it from)`,
    });
  }
  const values: Readonly<Record<string, unknown>> = set[machineSets.block] ?? {};
  for (const field of machineSets.discoverable) {
    if (values[field] === undefined) {
      out.push({
        path: joinPath(["machineSets", i, machineSets.block, field]),
        message: afterDiscovery
          ? "is not set and no Linux worker MachineSet provides it; set it"
          : "is required: set it, or run against the cluster with discovery on to copy it from a Linux worker",
      });
    }
  }
  return out;
}

function zoneIssues(cluster: OpenShiftClusterConfig, set: MachineSetConfig, i: number): ConfigIssue[] {
  const region = cluster.region;
  const machineSets = PLATFORM_MACHINESETS[cluster.platform];
  if (!region || !machineSets) return [];
  const zone = machineSets.zone(set);
  if (zone && !zone.startsWith(region)) {
    const key = cluster.platform === "AWS" ? "availabilityZone" : "zone";
    return [
      {
        path: joinPath(["machineSets", i, machineSets.block, key]),
        message: `${zone} is not in region ${region} (cluster.region)`,
      },
    ];
  }
  return [];
}
