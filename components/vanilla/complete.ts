import { ConfigIssue } from "../../stacks/config-issue";
import { VanillaEstateConfig } from "../../stacks/load";
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
            message: `could not read the cluster (${messageOf(e)}); fix access, or set discovery: false and give kubernetes.version, podNetworkCidr, serviceCidr and dnsServiceIp`,
          },
        ],
      };
    }
  }
  const { resolved, issues } = resolveKubernetes(cfg.kubernetes, facts);
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
  return { config: cfg, ...(facts ? { facts } : {}), ...(resolved ? { resolved } : {}), issues };
}
