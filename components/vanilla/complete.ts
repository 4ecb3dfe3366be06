import { ConfigIssue } from "../../stacks/config-issue";
import { DiscoveredNode, VanillaEstateConfig } from "../../stacks/load";
import { nodeInfoOf, WindowsNode } from "../../providers/day2/inventory";
import { messageOf } from "../../lib/errors";
import { discoverVanilla, netConfFix, resolveKubernetes, VanillaFacts } from "./discover";
import { flannelFixCommand } from "./objects";
import { ResolvedKubernetes } from "./node-plan";

export interface CompletedVanilla {
  config: VanillaEstateConfig;
  facts?: VanillaFacts;
  resolved?: ResolvedKubernetes;
  issues: ConfigIssue[];
}

/**
 * Completes a vanilla stack with what the cluster says (at preview/up with discovery on) and resolves what node files
 * need. Problems are returned, each naming its key, before anything is declared.
 */
export async function completeVanilla(cfg: VanillaEstateConfig): Promise<CompletedVanilla> {
  let facts: VanillaFacts | undefined;
  if (cfg.cluster.discovery) {
    try {
      facts = await discoverVanilla({ kubeconfig: cfg.cluster.kubeconfig, context: cfg.cluster.context });
    } catch (e) {
      return {
        config: cfg,
        issues: [
          {
            path: "cluster.discovery",
            message: `could not read the cluster (${messageOf(e)}); fix access, or set discovery: false and give kubernetes.version, podNetworkCidr, serviceCidr, dnsServiceIp, apiServerEndpoint and caCertHash`,
          },
        ],
      };
    }
  }
  const { resolved, issues, warnings } = resolveKubernetes(cfg.kubernetes, facts, {
    render: cfg.cluster.render !== undefined,
  });
  if (facts && !cfg.kubernetes.flannel.manage) {
    const fix = facts.netConf
      ? netConfFix(facts.netConf, cfg.kubernetes.flannel.vni, cfg.kubernetes.flannel.port)
      : undefined;
    if (!facts.netConf)
      issues.push({
        path: "kubernetes.flannel",
        message: "the cluster has no kube-flannel/kube-flannel-cfg ConfigMap; install flannel (kube-flannel.yml) first",
      });
    else if (fix)
      issues.push({
        path: "kubernetes.flannel.manage",
        message: `flannel's VXLAN backend is not what Windows needs (VNI ${cfg.kubernetes.flannel.vni}, port ${cfg.kubernetes.flannel.port}), and manage is false; apply: ${flannelFixCommand(fix)}`,
      });
  }
  const discovered = facts?.windowsNodes
    ? { windowsNodes: vanillaInventory(facts.windowsNodes, cfg.nodes) }
    : undefined;
  return {
    config: { ...cfg, warnings: [...cfg.warnings, ...warnings], ...(discovered ? { discovered } : {}) },
    ...(facts ? { facts } : {}),
    ...(resolved ? { resolved } : {}),
    issues,
  };
}

/** The Windows Nodes as the inventory lists them: a node this stack joined is `vanilla <address>`. */
export function vanillaInventory(nodes: WindowsNode[], declared: VanillaEstateConfig["nodes"]): DiscoveredNode[] {
  return nodes.map((n) => {
    const entry = declared.find(
      (d) => d.name === n.name || d.address?.toLowerCase() === n.address?.toLowerCase() || d.address === n.name,
    );
    return {
      name: n.name,
      ...(n.address ? { address: n.address } : {}),
      ...(n.build ? { build: n.build } : {}),
      from: entry ? `vanilla ${entry.address ?? entry.name}` : "other",
      ...(n.rebootedFor ? { rebootedFor: n.rebootedFor } : {}),
      labels: n.labels,
      ...nodeInfoOf(n),
    };
  });
}
