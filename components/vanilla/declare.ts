import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { VanillaEstateConfig } from "../../stacks/load";
import { WindowsRuntimeClasses } from "../scheduling/runtime-classes";
import { buildDigestMirrorSets, buildTagMirrorSets } from "../mirrors/mirror-sets";
import { renderHostsToml } from "../mirrors/hosts-toml";
import { VanillaFacts } from "./discover";
import { netConfChangeWarning, planNetConf } from "./flannel-backend";
import { flannelConfigPatch, flannelRestartPatch, LINUX_ONLY_DAEMONSETS, linuxOnlyPatch } from "./objects";
import { networkAgentObjects } from "./network-objects";
import { ClusterAccess } from "../cluster-access";
import { nodePath } from "../node-access/path";
import { nodeConnection } from "./connection";
import {
  API_ENDPOINT_PLACEHOLDER,
  flannelCniConf,
  nodeNoProxy,
  flannelNetConf,
  HOSTNAME_PLACEHOLDER,
  joinConfiguration,
  NODE_IP_PLACEHOLDER,
  NodePlan,
  PATHS,
  ResolvedKubernetes,
  vanillaNodePlan,
} from "./node-plan";
import { NodeRelay } from "../node-access/relay";
import { RELAY_IMAGE, RELAY_VANILLA_NAMESPACE } from "../../facts/day2";
import { relayReplicas } from "../node-access/placement";
import { WINDOWS_BUILDS, WINDOWS_NETWORK, WINDOWS_TAINT } from "../../facts/kubernetes";
import { isOffline } from "../../stacks/offline";
import { isIP } from "net";
import { promises as dns } from "dns";

import { BootstrapToken, VanillaNode } from "../../providers/vanilla-node";
import { LEFT_ON_HOST } from "../../providers/vanilla-node/provider";
import { NodeFiles } from "../../providers/node-files";
import { expandNodes } from "./hosts";
import { cloudHostOf, declareCloudHosts } from "../provisioning/cloud-hosts";
import { InventoryEntry, stackInventory } from "../day2/inventory";
import { PatchRollout, PatchSummary } from "../day2/patch-rollout";

/** The node's IPv4 address: as given, or resolved from where the program runs (offline: a placeholder). */
async function nodeIPv4(address: string): Promise<string> {
  if (isIP(address) === 4) return address;
  if (isOffline()) return NODE_IP_PLACEHOLDER;
  try {
    return (await dns.lookup(address, { family: 4 })).address;
  } catch {
    throw new pulumi.RunError(
      `windows-estate:nodes: ${address} does not resolve to an IPv4 address from here; flannel needs the node's IP (give the address as an IP)`,
    );
  }
}

interface VanillaDeclaration {
  /** How node operations reach the API (drain, Ready, removal, the join token); undefined in render mode. */
  access?: ClusterAccess;
  /** The stack's validated config. */
  config: VanillaEstateConfig;
  /** What node files need, from config and discovery (`completeVanilla`). */
  resolved: ResolvedKubernetes;
  /** What discovery read; undefined offline. */
  facts?: VanillaFacts;
}

/** What the vanilla estate is, once declared: the component's outputs (components/vanilla/estate.ts). */
export interface VanillaParts {
  nodePlans: Record<string, NodePlan>;
  runtimeClasses: pulumi.Output<string[]>;
  inventory: InventoryEntry[];
  patching?: PatchSummary;
  hostStatus?: pulumi.Output<Record<string, unknown>>;
}

/**
 * Declares the Windows side of a vanilla kubeadm cluster with flannel under `parent`: flannel's VXLAN backend as
 * Windows needs it (patched in place, never replaced), the Linux DaemonSets pinned to Linux, RuntimeClasses per Windows
 * build, and each node's plan (files and steps), flanneld and kube-proxy as HostProcess DaemonSets, and each node
 * converged over SSH. `child` is every direct child's options.
 */
export function declareVanilla(
  parent: pulumi.ComponentResource,
  name: string,
  args: VanillaDeclaration,
  child: pulumi.ComponentResourceOptions,
): VanillaParts {
  const { config: cfg, resolved, facts } = args;
  let patchingSummary: PatchSummary | undefined;
  let hostStatus: pulumi.Output<Record<string, unknown>> | undefined;
  const flannel = cfg.kubernetes.flannel;
  const flannelPatch: pulumi.Resource[] = [];
  // With discovery off nothing reads flannel's net-conf.json, and a blind write would drop its other settings
  // (EnableNFTables, IPv6, …): it is left alone, and the preview says what to check.
  const blind = flannel.manage && !facts?.netConf && cfg.cluster.render === undefined && !isOffline();
  if (blind)
    pulumi.log.warn(
      `cluster.discovery is off, so flannel's net-conf.json is neither read nor changed; Windows needs its VXLAN backend at VNI ${flannel.vni}, port ${flannel.port}: check it with kubectl -n kube-flannel get configmap kube-flannel-cfg -o jsonpath='{.data.net-conf\\.json}'`,
      parent,
    );
  if (flannel.manage && !blind) {
    // With the cluster's own net-conf, only the VNI and port change; in render mode (no cluster), the whole file from
    // the config is shown. Always declared once managed: a Patch that leaves the program relinquishes its field, which server-side
    // apply then deletes (pulumi-kubernetes provider/pkg/ssa Relinquish), and flannel would lose its net-conf.json.
    // Retained on delete for the same reason: turning `manage` off must not strip flannel's config.
    const plan = facts?.netConf
      ? planNetConf(facts.netConf, { vni: flannel.vni, port: flannel.port })
      : { text: flannelNetConf(resolved) };
    const netConf = new k8s.core.v1.ConfigMapPatch(`${name}-flannel-net-conf`, flannelConfigPatch(plan.text), {
      ...child,
      retainOnDelete: true,
    });
    flannelPatch.push(netConf);
    if (plan.change) pulumi.log.warn(netConfChangeWarning(plan.change, facts?.linuxNodes), parent);
    if (plan.change || facts?.flannelRestartedFor) {
      // Linux flanneld reads net-conf.json only at start: restart it, after the patch, before any Windows node
      // joins. Declared for a change, and afterwards while its annotation is on the DaemonSet (the same value: no
      // change, no restart); never declared on a cluster whose backend was already right, so adopting one restarts
      // nothing. Retained when it leaves the program.
      const backend = { vni: flannel.vni, port: flannel.port };
      flannelPatch.push(
        new k8s.apps.v1.DaemonSetPatch(`${name}-flannel-restart`, flannelRestartPatch(backend), {
          ...child,
          dependsOn: [netConf],
          retainOnDelete: true,
        }),
      );
    }
  }
  for (const ds of LINUX_ONLY_DAEMONSETS)
    new k8s.apps.v1.DaemonSetPatch(`${name}-linux-only-${ds.name}`, linuxOnlyPatch(ds.namespace, ds.name), {
      ...child,
    });
  // The Windows flanneld and kube-proxy: accounts and RBAC first, then the scripts, then the DaemonSets.
  const agents = networkAgentObjects({
    apiServerEndpoint: resolved.apiServerEndpoint ?? API_ENDPOINT_PLACEHOLDER,
    podNetworkCidr: resolved.podNetworkCidr,
    vni: resolved.flannel.vni,
    image: resolved.hostProcessImage,
  });
  const rbac: pulumi.Resource[] = [
    ...agents.serviceAccounts.map((sa) => new k8s.core.v1.ServiceAccount(`${name}-${sa.metadata.name}`, sa, child)),
    new k8s.rbac.v1.ClusterRole(`${name}-flannel-role`, agents.clusterRole, child),
    ...agents.clusterRoleBindings.map(
      (b) => new k8s.rbac.v1.ClusterRoleBinding(`${name}-${b.metadata.name}`, b, child),
    ),
    new k8s.core.v1.ConfigMap(`${name}-network-scripts`, agents.configMap, child),
  ];
  for (const ds of agents.daemonSets)
    new k8s.apps.v1.DaemonSet(`${name}-${ds.metadata.name}`, ds, { ...child, dependsOn: rbac });
  const runtimeClasses = new WindowsRuntimeClasses(
    `${name}-runtimeclasses`,
    { versions: cfg.nodes.map((n) => n.windowsServer) },
    child,
  );
  const runtimeClassNames = runtimeClasses.names;
  const registryFiles = renderHostsToml({
    imageDigestMirrorSets: buildDigestMirrorSets(cfg.mirrors),
    imageTagMirrorSets: buildTagMirrorSets(cfg.mirrors),
  });
  const nodes = expandNodes(cfg.nodes);
  const nodePlans: Record<string, NodePlan> = Object.fromEntries(
    nodes.map((n) => [n.address, vanillaNodePlan(n, resolved, registryFiles)]),
  );
  const inventory = stackInventory(
    cfg,
    cfg.nodes.map((n) => n.windowsServer),
    nodes.map((n) => ({
      from: `vanilla ${n.address}${n.create ? ` (created on ${n.create.kind === "aws" ? "AWS" : "Azure"})` : ""}`,
      windowsServer: n.windowsServer,
      build: WINDOWS_BUILDS[n.windowsServer],
    })),
  );
  for (const w of inventory.warnings) pulumi.log.warn(w, parent);
  // Converging the nodes needs the API (the join token, drain, Ready); render mode shows the plans only.
  if (args.access) {
    const access = args.access;
    const token = new BootstrapToken(
      `${name}-bootstrap-token`,
      { ttlHours: cfg.kubernetes.tokenTtlHours, kubeconfig: access.kubeconfig, context: access.context },
      child,
    );
    // The proxy for containerd and the kubelet; the cluster's own networks are always reached directly.
    const p = cfg.kubernetes.proxy;
    const proxy = p
      ? {
          HTTP_PROXY: p.httpProxy ?? "",
          HTTPS_PROXY: p.httpsProxy ?? "",
          NO_PROXY: nodeNoProxy(p.noProxy, resolved),
        }
      : undefined;
    // Through the cluster: the relay runs in a namespace of its own (a port-forward grant in kube-system would reach
    // its hostNetwork pods). Everything that opens node sessions depends on all its objects (relay.ready): the files
    // and the node are created after them and deleted before any of them, so a destroy's `kubeadm reset` still gets
    // through.
    const relay =
      cfg.nodeAccess.via === "cluster"
        ? new NodeRelay(
            `${name}-node-relay`,
            {
              namespace: RELAY_VANILLA_NAMESPACE,
              createNamespace: true,
              platform: "kubernetes",
              image: cfg.nodeAccess.bastionImage ?? RELAY_IMAGE,
              replicas: relayReplicas(cfg.nodeAccess.relayReplicas, facts?.relayNodes),
              connectTimeoutSeconds: cfg.nodeAccess.connectTimeoutSeconds,
              subjects: cfg.nodeAccess.portForwardSubjects,
            },
            child,
          )
        : undefined;
    const relayReady = relay?.ready ?? [];
    const converged: pulumi.Resource[] = [];
    const connections: Record<string, ReturnType<typeof nodeConnection>> = {};
    // Nodes this stack creates on AWS or Azure: VMs ready for SSH with the stack's key, VXLAN open.
    const toCreate = nodes.flatMap((n) => (n.create ? cloudHostOf(n.address, n.windowsServer, n) : []));
    const kind = { udpPorts: [resolved.flannel.port], wmco: false };
    const created = declareCloudHosts(`${name}-node-vms`, toCreate, cfg, kind, child);
    nodes.forEach((n) => {
      const plan = nodePlans[n.address];
      const vmAddress = created?.addresses[n.address];
      const given = nodeConnection(n, cfg.privateKey.pem, nodePath(cfg));
      const connection = vmAddress
        ? pulumi.all([given, vmAddress]).apply(([c, ip]) => ({ ...c, host: ip, deadlineSeconds: 1200 }))
        : given;
      const vms = created?.vms[n.address] ?? [];

      // One node IP for the kubelet (--node-ip), the CNI's provider address and flanneld (status.hostIP): declared,
      // a created VM's private IP, or the address (a DNS name resolved from here). Multi-NIC and NAT hosts that
      // let each pick their own would disagree.
      // A host removed with forceRemove is never resolved or reached again; every preview says what stays on it.
      if (n.forceRemove)
        pulumi.log.warn(
          `windows-estate:nodes[${n.index}] (${n.address}): forceRemove: its Node is deleted through the API alone and nothing is done on the host; left there: ${LEFT_ON_HOST}. Delete the entry once this has run`,
          parent,
        );
      const nodeIp =
        n.nodeIp !== undefined || n.forceRemove
          ? pulumi.output(n.nodeIp ?? n.address)
          : (vmAddress ?? pulumi.output(nodeIPv4(n.address)));
      const cniConf = nodeIp.apply((ip) => flannelCniConf(resolved, ip));
      const files = [
        { dir: PATHS.containerdConfigDir, prefix: `${PATHS.containerdConfigDir}\\` },
        { dir: PATHS.cniConf, prefix: `${PATHS.cniConf}\\` },
        { dir: "C:\\etc\\kube-flannel", prefix: "C:\\etc\\kube-flannel\\" },
      ].map(
        ({ dir, prefix }) =>
          new NodeFiles(
            `${name}-node-${n.address}-files-${dir.split("\\").pop()}`,
            {
              connection,
              directory: dir,
              files: Object.fromEntries(
                Object.entries(plan.files)
                  .filter(([p]) => p.startsWith(prefix))
                  .map(([p, text]): [string, pulumi.Input<string>] => [
                    p.slice(prefix.length),
                    p.endsWith("10-flannel.conf") ? cniConf : text,
                  ]),
              ),
              ...(n.forceRemove ? { hostGone: true } : {}),
            },
            { ...child, dependsOn: [...vms, ...relayReady] },
          ),
      );
      const node = new VanillaNode(
        `${name}-node-${n.address}`,
        {
          connection,
          downloads: plan.downloads,
          vxlanPort: resolved.flannel.port,
          containerdConfigPath: PATHS.containerdConfig,
          joinConfigPath: PATHS.joinConfig,
          joinConfig: token.token.apply((t) =>
            joinConfiguration(n, n.name ?? HOSTNAME_PLACEHOLDER, resolved, {
              token: t,
              caCertHash: resolved.caCertHash ?? "",
            }),
          ),
          // "" is the usual loading order (KUBECONFIG, ~/.kube/config, in-cluster), as most pipelines give it:
          // undefined would leave the node without its API side (drain, identity, removal).
          kubeconfig: access.kubeconfig ?? "",
          context: access.context,
          ...(n.name ? { nodeName: n.name } : {}),
          nameKey: `windows-estate:nodes[${n.index}].name`,
          windowsServer: n.windowsServer,
          nodeIp: nodeIp.apply((ip) => (isIP(ip) === 4 ? ip : undefined)),
          ...(n.forceRemove ? { forceRemove: true } : {}),
          upgrade: cfg.kubernetes.upgrade,
          ...(proxy ? { proxy } : {}),
          networkAgents: [
            { namespace: WINDOWS_NETWORK.namespace, app: WINDOWS_NETWORK.flanneld, binary: "flanneld" },
            { namespace: WINDOWS_NETWORK.namespace, app: WINDOWS_NETWORK.kubeProxy, binary: "kube-proxy" },
          ],
          identity: {
            labels: n.labels,
            taints: (n.taints ?? [WINDOWS_TAINT]).map((t) => ({ ...t })),
            providerIdAuto: n.providerId === "auto",
          },
        },
        // The files first (containerd is registered with its config), and flannel's backend fixed.
        { ...child, dependsOn: [...files, ...flannelPatch, ...relayReady] },
      );
      converged.push(node);
      if (n.forceRemove) return; // never patched: its host does not answer
      // Patching finds a node's connection by the Node's address or name: the node's own connection, so a node that
      // pins its key in the stack (nodes[].hostKey) is reached pinned to it, and a trust-on-first-use node the way its
      // files and VanillaNode reach it (the rollout records the key it first sees and pins it on every later run,
      // providers/day2/patching-provider.ts). Not VanillaNode's recorded key: an output that is not an input is
      // unknown at preview whenever the node is created or updated (the engine hands back the new inputs for a
      // dynamic resource's preview, pulumi pkg/resource/plugin/provider_plugin.go `Create`, `Update`), and the rollout's
      // connections with it (reverted 8f2828c).
      connections[n.address] = connection;
      if (n.name) connections[n.name] = connection;
    });
    // Patched after every node is converged (a node joined in this update is patched by the next one, when the
    // cluster reports its revision).
    if (cfg.patching) {
      const patching = new PatchRollout(
        `${name}-patching`,
        {
          patching: cfg.patching,
          nodes: cfg.discovered?.windowsNodes ?? [],
          isManaged: (n) => n.from.startsWith("vanilla "),
          access,
          connections: pulumi.secret(pulumi.all(connections)),
          // Windows Update goes through the nodes' proxy too (IUpdateSession.WebProxy; it ignores env variables).
          ...(cfg.kubernetes.proxy ? { clusterProxy: cfg.kubernetes.proxy } : {}),
        },
        { ...child, dependsOn: converged },
      );
      patchingSummary = patching.summary;
      hostStatus = patching.hostStatus;
    }
  }
  return {
    nodePlans,
    runtimeClasses: runtimeClassNames,
    inventory: inventory.entries,
    ...(patchingSummary ? { patching: patchingSummary } : {}),
    ...(hostStatus ? { hostStatus } : {}),
  };
}
