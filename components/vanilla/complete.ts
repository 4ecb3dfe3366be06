import { ConfigIssue } from "../../stacks/config-issue";
import { DiscoveredNode, VanillaEstateConfig } from "../../stacks/load";
import { nodeInfoOf, WindowsNode } from "../../providers/day2/inventory";
import { discoverVanilla, resolveKubernetes, VanillaFacts } from "./discover";
import { flannelBackendIssues, planNetConf } from "./flannel-backend";
import { flannelFixCommand } from "./objects";
import { ResolvedKubernetes } from "./node-plan";
import { noRelayNodeWarning } from "../node-access/placement";
import { unreadableCluster } from "../cluster-objects";

interface CompletedVanilla {
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
      const give = "kubernetes.version, podNetworkCidr, serviceCidr, dnsServiceIp, apiServerEndpoint and caCertHash";
      return { config: cfg, issues: unreadableCluster(e, give) };
    }
  }
  const { resolved, issues, warnings } = resolveKubernetes(cfg.kubernetes, facts, {
    render: cfg.cluster.render !== undefined,
  });
  if (facts) issues.push(...flannelIssues(facts, cfg.kubernetes.flannel));
  const noRelayNode = cfg.nodeAccess.via === "cluster" ? noRelayNodeWarning(facts?.relayNodes) : undefined;
  if (noRelayNode) warnings.push({ path: "nodeAccess.via", message: noRelayNode });
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

/**
 * What the cluster's flannel makes impossible, before anything is declared: no flannel, a net-conf.json flanneld
 * cannot read, a backend Windows cannot join, or (with `manage: false`) a backend this stack may not fix itself.
 */
export function flannelIssues(
  facts: VanillaFacts,
  flannel: Pick<VanillaEstateConfig["kubernetes"]["flannel"], "manage" | "vni" | "port">,
): ConfigIssue[] {
  if (facts.netConfUnreadable)
    return [
      {
        path: "kubernetes.flannel",
        message:
          "kube-flannel/kube-flannel-cfg's net-conf.json is not a JSON object, so flanneld cannot read it either; fix the ConfigMap first",
      },
    ];
  if (!facts.netConf)
    return [
      {
        path: "kubernetes.flannel",
        message: "the cluster has no kube-flannel/kube-flannel-cfg ConfigMap; install flannel (kube-flannel.yml) first",
      },
    ];
  const backend = flannelBackendIssues(facts.netConf);
  if (backend.length > 0 || flannel.manage) return backend;
  const plan = planNetConf(facts.netConf, { vni: flannel.vni, port: flannel.port });
  return plan.change
    ? [
        {
          path: "kubernetes.flannel.manage",
          message: `flannel's VXLAN backend is not what Windows needs (VNI ${flannel.vni}, port ${flannel.port}), and manage is false; apply: ${flannelFixCommand(plan.text)}, then restart it: kubectl -n kube-flannel rollout restart daemonset kube-flannel-ds`,
        },
      ]
    : [];
}

/** The Windows Nodes as the inventory lists them: a node this stack joined is `vanilla <address>`. */
function vanillaInventory(nodes: WindowsNode[], declared: VanillaEstateConfig["nodes"]): DiscoveredNode[] {
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
