import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { VanillaEstateConfig } from "../../stacks/load";
import { WindowsRuntimeClasses } from "../scheduling/runtime-classes";
import { buildDigestMirrorSets, buildTagMirrorSets } from "../mirrors/mirror-sets";
import { renderHostsToml } from "../mirrors/hosts-toml";
import { netConfFix, VanillaFacts } from "./discover";
import { flannelNetConf, NodePlan, ResolvedKubernetes, vanillaNodePlan } from "./node-plan";
import { flannelConfigPatch, LINUX_ONLY_DAEMONSETS, linuxOnlyPatch } from "./objects";

export interface VanillaEstateArgs {
  /** The stack's validated config. */
  config: VanillaEstateConfig;
  /** What node files need, from config and discovery (`completeVanilla`). */
  resolved: ResolvedKubernetes;
  /** What discovery read; undefined offline. */
  facts?: VanillaFacts;
}

/**
 * The Windows side of a vanilla kubeadm cluster with flannel: flannel's VXLAN backend as Windows needs it (patched in
 * place, never replaced), the Linux DaemonSets pinned to Linux, RuntimeClasses per Windows build, and each node's plan
 * (files and steps). The node-side providers that apply the plans come next (README, Vanilla Kubernetes).
 */
export class VanillaEstate extends pulumi.ComponentResource {
  /** Per node address: its files (exact text; the join token as a placeholder), downloads and steps. */
  readonly nodePlans: Record<string, NodePlan>;
  readonly runtimeClasses: pulumi.Output<string[]>;

  constructor(name: string, args: VanillaEstateArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:VanillaEstate", name, {}, opts);
    const { config: cfg, resolved, facts } = args;
    const flannel = cfg.kubernetes.flannel;
    if (flannel.manage) {
      // With the cluster's own net-conf, only the backend changes; offline, the whole file from the config is shown.
      const text = facts?.netConf ? netConfFix(facts.netConf, flannel.vni, flannel.port) : flannelNetConf(resolved);
      if (text !== undefined)
        new k8s.core.v1.ConfigMapPatch(`${name}-flannel-net-conf`, flannelConfigPatch(text), { parent: this });
    }
    for (const ds of LINUX_ONLY_DAEMONSETS)
      new k8s.apps.v1.DaemonSetPatch(`${name}-linux-only-${ds.name}`, linuxOnlyPatch(ds.namespace, ds.name), {
        parent: this,
      });
    const runtimeClasses = new WindowsRuntimeClasses(
      `${name}-runtimeclasses`,
      { versions: cfg.nodes.map((n) => n.windowsServer) },
      { parent: this },
    );
    this.runtimeClasses = runtimeClasses.names;
    const registryFiles = renderHostsToml({
      imageDigestMirrorSets: buildDigestMirrorSets(cfg.mirrors),
      imageTagMirrorSets: buildTagMirrorSets(cfg.mirrors),
    });
    this.nodePlans = Object.fromEntries(
      cfg.nodes.map((n) => [
        n.address,
        vanillaNodePlan(n, resolved, registryFiles, facts?.caCertHash ? { caCertHash: facts.caCertHash } : undefined),
      ]),
    );
    this.registerOutputs({ runtimeClasses: this.runtimeClasses, nodePlans: this.nodePlans });
  }
}
