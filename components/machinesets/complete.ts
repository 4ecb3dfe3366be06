import { ConfigIssue, uniqueIssues } from "../../stacks/config-issue";
import { EstateConfig } from "../../stacks/load";
import { ClusterReader, readCluster } from "./discover";
import { credentialsSecretOf, missingCredentialsWarnings } from "./credentials";
import { MACHINE_API_NAMESPACE } from "../../facts/wmco";
import { identityIssues, mergeDiscovered, mergeDiscoveredHosts } from "./discovery";
import { type MachineSetFacts, unreadableCluster } from "../cluster-objects";
import { nodeInfoOf, windowsNodes } from "../../providers/day2/inventory";
import { requiredFieldIssues, versionIssues } from "./validate";
import { PLATFORM_MACHINESETS } from "./build";
import { networkIssues, proxySummary } from "../wmco/prerequisites";
import { kubernetesSkewIssues, wmcoInEffect } from "../wmco/release";
import { format, NEWEST_WMCO } from "../../facts/wmco";
import { rotationIssues } from "../key/rotation";
import { clusterMirrorIssues } from "../mirrors/registry-mirrors";
import { noRelayNodeWarning, relayNodeCount } from "../node-access/placement";

/**
 * With discovery on, asks the cluster for what the MachineSet config left out, checks the kubeconfig reaches the
 * cluster the stack describes, and reports anything still missing, naming the key. Config always wins.
 */
export async function completeWithCluster(cfg: EstateConfig): Promise<{ config: EstateConfig; issues: ConfigIssue[] }> {
  if (!cfg.cluster.discovery) return { config: cfg, issues: [] };
  let cluster: ClusterReader;
  let facts;
  try {
    cluster = await readCluster({ kubeconfig: cfg.cluster.kubeconfig, context: cfg.cluster.context });
    facts = await cluster.facts({
      platform: cfg.cluster.platform,
      operator: { namespace: cfg.operator.namespace, subscription: cfg.operator.package },
    });
  } catch (e) {
    return { config: cfg, issues: unreadableCluster(e, "every value in the config") };
  }
  const platform = cfg.cluster.platform;
  const identity = identityIssues(cfg.cluster, facts);
  const merged = mergeDiscovered(cfg.cluster, cfg.machineSets, facts);
  const missing = merged.machineSets.flatMap((s, i) => requiredFieldIssues(merged.cluster, s, i, true));
  // The installed CSV, else a Manual startingCSV pin, else the channel head (components/wmco/release.ts).
  const effective = wmcoInEffect(cfg.operator, {
    installedCSV: facts.installedCSV,
    openShiftVersion: facts.openShiftVersion,
  });
  const wmco = effective.from === "newest" ? undefined : effective;
  // A Manual pin was checked at load; otherwise the cluster's WMCO, or the newest rules when the cluster does not say.
  const versions =
    effective.from === "pinned"
      ? []
      : [
          ...merged.machineSets.flatMap((s, i) =>
            versionIssues(platform, `machineSets[${i}].windowsServer`, s.windowsServer, wmco),
          ),
          ...cfg.byoh.flatMap((h, i) => versionIssues(platform, `byoh[${i}].windowsServer`, h.windowsServer, wmco)),
        ];
  // WMCO refuses to run on a cluster without hybrid networking, and on a Kubernetes minor its release does not
  // accept: stop before any MachineSet or host is touched.
  const prerequisites = [
    ...networkIssues(platform, facts.network ?? {}),
    ...kubernetesSkewIssues(effective, cfg.operator, facts.kubernetesVersion),
  ];
  // A change of the WMCO key that WMCO could not complete (vSphere templates, BYOH addresses): refused before it starts.
  const rotation = await rotationIssues(cfg, facts.windowsNodes, () => cluster.wmcoPublicKey());
  const unique = uniqueIssues([...identity, ...prerequisites, ...missing, ...versions, ...rotation.errors]);
  const platformSets = PLATFORM_MACHINESETS[platform];
  const warnings = merged.machineSets.flatMap((s, i) => platformSets?.warnings?.(s, i) ?? []);
  // A credentials Secret that does not exist: machine-api only warns when it admits the set (credentials.ts). Not
  // readable (RBAC): nothing is said, as the webhook would say it at up.
  const secrets = [...new Set(merged.machineSets.flatMap((s) => credentialsSecretOf(platform, s) ?? []))];
  const present = await cluster.existingSecrets(MACHINE_API_NAMESPACE, secrets).catch(() => undefined);
  if (present) warnings.push(...missingCredentialsWarnings(platform, merged.machineSets, (n) => present.has(n)));
  // WMCO merges every mirror set in the cluster into each Windows node's files: one it cannot write stops them all.
  const mirrorSets = clusterMirrorIssues(cfg, facts.mirrorSets);
  warnings.push(...mirrorSets.warnings);
  const proxy = proxySummary(facts.proxy);
  const relayNodes = relayNodeCount(facts.linuxNodes);
  const noRelayNode = cfg.nodeAccess.via === "cluster" ? noRelayNodeWarning(relayNodes) : undefined;
  if (noRelayNode) warnings.push({ path: "nodeAccess.via", message: noRelayNode });
  return {
    config: {
      ...cfg,
      cluster: { ...cfg.cluster, region: merged.cluster.region },
      machineSets: merged.machineSets,
      byoh: mergeDiscoveredHosts(cfg.byoh, facts),
      registriesWithCredentials: facts.registriesWithCredentials,
      warnings: [...cfg.warnings, ...warnings, ...rotation.warnings],
      discovered: {
        proxy,
        windowsNodes: windowsNodes(
          facts.windowsNodes,
          facts.machines,
          cfg.byoh.flatMap((h) => (h.address ? [h.address] : [])),
        ).map((n) => ({
          name: n.name,
          ...(n.address ? { address: n.address } : {}),
          ...(n.build ? { build: n.build } : {}),
          from:
            n.source.kind === "MachineSet"
              ? `MachineSet ${n.source.name}`
              : n.source.kind === "BYOH"
                ? `BYOH ${n.source.address}`
                : "other",
          ...(n.rebootedFor ? { rebootedFor: n.rebootedFor } : {}),
          labels: n.labels,
          ...(n.machine ? { machine: n.machine } : {}),
          ...nodeInfoOf(n),
        })),
        machines: facts.machines,
        machineSetReplicas: replicasOf(facts.machineSets),
        ...(relayNodes !== undefined ? { relayNodes } : {}),
        runtimeClasses: facts.runtimeClasses,
        mirrorSets: facts.mirrorSets,
        wmco: wmco
          ? `WMCO ${format(wmco.version)} (${wmco.source})`
          : `the newest WMCO rules (${format(NEWEST_WMCO)}: the cluster names no WMCO or OpenShift version)`,
      },
    },
    issues: [...unique, ...mirrorSets.errors],
  };
}

/** `spec.replicas` of every MachineSet, by name. */
function replicasOf(sets: readonly MachineSetFacts[]): Record<string, number> {
  return Object.fromEntries(
    sets.flatMap((ms) => (ms.name && ms.replicas !== undefined ? [[ms.name, ms.replicas]] : [])),
  );
}
