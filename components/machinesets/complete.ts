import { ConfigIssue } from "../../stacks/config-issue";
import { EstateConfig } from "../../stacks/load";
import { discoverCluster } from "./discover";
import { identityIssues, mergeDiscovered } from "./discovery";
import { requiredFieldIssues } from "./validate";

/**
 * With discovery on, asks the cluster for what the MachineSet config left out, checks the kubeconfig reaches the
 * cluster the stack describes, and reports anything still missing, naming the key. Config always wins.
 */
export async function completeWithCluster(cfg: EstateConfig): Promise<{ config: EstateConfig; issues: ConfigIssue[] }> {
  if (!cfg.cluster.discovery) return { config: cfg, issues: [] };
  let facts;
  try {
    facts = await discoverCluster({ kubeconfig: cfg.cluster.kubeconfig, context: cfg.cluster.context });
  } catch (e) {
    return {
      config: cfg,
      issues: [{ path: "cluster.discovery", message: `could not read the cluster (${(e as Error).message}); fix access, or set discovery: false and give every value in the config` }],
    };
  }
  const identity = identityIssues(cfg.cluster, facts);
  const merged = mergeDiscovered(cfg.cluster, cfg.machineSets, facts);
  const missing = merged.machineSets.flatMap((s, i) =>
    requiredFieldIssues(merged.cluster, s, i).map((m) => ({ ...m, message: m.message.replace(/^is required: set it, or run against the cluster with discovery on to copy it from a Linux worker/, "is not set and no Linux worker MachineSet provides it; set it") })),
  );
  const unique = [...new Map([...identity, ...missing].map((i) => [`${i.path}:${i.message}`, i])).values()];
  return {
    config: { ...cfg, cluster: { ...cfg.cluster, region: merged.cluster.region }, machineSets: merged.machineSets, registriesWithCredentials: facts.registriesWithCredentials },
    issues: unique,
  };
}
