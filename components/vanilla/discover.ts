/**
 * What a vanilla cluster says about itself, read at `pulumi preview/up` (never in synth): the API server's version,
 * kubeadm's networks (`kube-system/kubeadm-config`), the DNS Service IP (`kube-system/kube-dns`), the API endpoint and
 * CA (`kube-public/cluster-info`, what `kubeadm join` discovers), and flannel's `net-conf.json`. Parsing is pure.
 */
import { X509Certificate, createHash } from "crypto";
import { parse } from "yaml";
import { ConfigIssue } from "../../stacks/config-issue";
import { containerdSupportIssue, versionSupportIssue } from "./validate";
import type { KubernetesConfig } from "../../stacks/schema/kubernetes";
import { KubeAccess } from "../../providers/kube-wait/api";
import { isObject } from "../../lib/json";
import { z } from "zod";
import { connectForDiscovery, decodeNodeTaints, decodeRuntimeClasses, gitVersion } from "../cluster-objects";
import type { RuntimeClassView } from "../cluster-objects";
import { fields, listOf, loose, text } from "../../lib/decode";
import {
  DEFAULT_CONTAINERD,
  FLANNEL_BACKEND_ANNOTATION,
  FLANNEL_CNI_PLUGIN_VERSION,
  FLANNEL_CNI_SHA256,
  FLANNEL_VERSION,
  FLANNELD_SHA256,
  HOST_PROCESS_IMAGE,
  KUBELET_MAX_MINORS_BEHIND,
} from "../../facts/kubernetes";
import { ResolvedKubernetes } from "./node-plan";
import { decodeNodes, WindowsNode, windowsNodes } from "../../providers/day2/inventory";
import { LINUX_NODES_PAGE_PATH, WINDOWS_NODES_PATH } from "../../facts/day2";
import { relayNodeCount } from "../node-access/placement";

export interface VanillaFacts {
  serverVersion?: string;
  podNetworkCidr?: string;
  serviceCidr?: string;
  dnsServiceIp?: string;
  apiServerEndpoint?: string;
  /** `sha256:<hex>` of the CA's SubjectPublicKeyInfo (kubeadm `--discovery-token-ca-cert-hash`). */
  caCertHash?: string;
  /** flannel's current `net-conf.json`, parsed; undefined when flannel's ConfigMap is missing. */
  netConf?: Record<string, unknown>;
  /** Set when flannel's ConfigMap holds a `net-conf.json` that is not a JSON object (flanneld would not start). */
  netConfUnreadable?: true;
  /**
   * The restart annotation this stack left on kube-flannel-ds' pod template (facts FLANNEL_BACKEND_ANNOTATION), if
   * any: while it is there, the patch that set it stays declared, so a later run plans no change.
   */
  flannelRestartedFor?: string;
  /** How many Linux Nodes the cluster has (those whose flanneld a backend change restarts), when the API said. */
  linuxNodes?: number;
  /** How many of them the node relay can be scheduled on (components/node-access/placement.ts), when known. */
  relayNodes?: number;
  /** The cluster's Windows Nodes (`kubernetes.io/os=windows`), for the inventory and patching. */
  windowsNodes?: WindowsNode[];
  /** The cluster's RuntimeClasses (name, node selector), for the inventory's RuntimeClass check. */
  runtimeClasses?: RuntimeClassView[];
}

/** kubeadm's CA pin: SHA-256 of the DER SubjectPublicKeyInfo (RFC 7469; kubeadm implementation-details.md). */
export function caCertHash(pem: string): string {
  const der = new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" });
  return `sha256:${createHash("sha256").update(der).digest("hex")}`;
}

function yamlOf(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

/** A ConfigMap's or Secret's `data` key. */
const dataKey = (o: unknown, key: string) => fields({ data: fields({ [key]: text }) }).parse(o).data[key];
/** kubeadm's `ClusterConfiguration` (kubeadm.k8s.io types: `networking.podSubnet`, `networking.serviceSubnet`). */
const clusterConfiguration = fields({ networking: loose({ podSubnet: text, serviceSubnet: text }) });
/** The kubeconfig `kube-public/cluster-info` publishes: its first cluster's server and CA. */
const clusterInfoKubeconfig = fields({
  clusters: listOf(z.object({ cluster: loose({ server: text, "certificate-authority-data": text }) })),
});

/** What discovery reads, under the name parseVanillaFacts takes each by; any may be missing (404). */
const READS = {
  version: "/version",
  kubeadmConfig: "/api/v1/namespaces/kube-system/configmaps/kubeadm-config",
  kubeDns: "/api/v1/namespaces/kube-system/services/kube-dns",
  clusterInfo: "/api/v1/namespaces/kube-public/configmaps/cluster-info",
  flannelConfig: "/api/v1/namespaces/kube-flannel/configmaps/kube-flannel-cfg",
  windowsNodes: WINDOWS_NODES_PATH,
  runtimeClasses: "/apis/node.k8s.io/v1/runtimeclasses",
  linuxNodes: LINUX_NODES_PAGE_PATH,
  /** flannel's Linux DaemonSet (kube-flannel/kube-flannel-ds). */
  flannelDaemonSet: "/apis/apps/v1/namespaces/kube-flannel/daemonsets/kube-flannel-ds",
};

/** Parses the objects discovery read (READS); each may be undefined (404). */
export function parseVanillaFacts(o: { [K in keyof typeof READS]?: unknown }): VanillaFacts {
  const facts: VanillaFacts = {
    windowsNodes: windowsNodes(decodeNodes(o.windowsNodes), undefined, []),
    runtimeClasses: decodeRuntimeClasses(o.runtimeClasses),
  };
  const git = gitVersion(o.version);
  const m = git && /^v?(\d+\.\d+\.\d+)/.exec(git);
  if (m) facts.serverVersion = m[1];
  const networking = clusterConfiguration.parse(yamlOf(dataKey(o.kubeadmConfig, "ClusterConfiguration"))).networking;
  facts.podNetworkCidr = networking?.podSubnet;
  facts.serviceCidr = networking?.serviceSubnet;
  facts.dnsServiceIp = fields({ spec: loose({ clusterIP: text }) }).parse(o.kubeDns).spec?.clusterIP;
  const cluster = clusterInfoKubeconfig.parse(yamlOf(dataKey(o.clusterInfo, "kubeconfig"))).clusters[0]?.cluster;
  const server = cluster?.server;
  if (server) facts.apiServerEndpoint = new URL(server).host;
  const ca = cluster?.["certificate-authority-data"];
  if (ca) {
    try {
      facts.caCertHash = caCertHash(Buffer.from(ca, "base64").toString("utf8"));
    } catch {
      // An unreadable CA leaves the hash undiscovered; resolve says what is missing.
    }
  }
  const netConfText = dataKey(o.flannelConfig, "net-conf.json");
  if (netConfText) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(netConfText);
    } catch {
      parsed = undefined;
    }
    if (isObject(parsed)) facts.netConf = parsed;
    else facts.netConfUnreadable = true;
  }
  const restarted = fields({
    spec: loose({
      template: loose({ metadata: loose({ annotations: loose({ [FLANNEL_BACKEND_ANNOTATION]: text }) }) }),
    }),
  }).parse(o.flannelDaemonSet).spec?.template?.metadata?.annotations?.[FLANNEL_BACKEND_ANNOTATION];
  if (restarted) facts.flannelRestartedFor = restarted;
  const linux = decodeNodeTaints(o.linuxNodes);
  if (linux && (linux.remaining !== undefined || !linux.continued))
    facts.linuxNodes = linux.taints.length + (linux.remaining ?? 0);
  const relayNodes = relayNodeCount(linux);
  if (relayNodes !== undefined) facts.relayNodes = relayNodes;
  return facts;
}

export async function discoverVanilla(access: KubeAccess): Promise<VanillaFacts> {
  const api = await connectForDiscovery(access);
  const read = await Promise.all(Object.entries(READS).map(async ([name, path]) => [name, await api.get(path)]));
  return parseVanillaFacts(Object.fromEntries(read));
}

/**
 * Config and discovered facts into what node files need; config wins, and what is still missing is named with its
 * key. The node version must lie within the skew the control plane allows (not newer, at most 3 minors older).
 */
export function resolveKubernetes(
  k: KubernetesConfig,
  facts: VanillaFacts | undefined,
  opts: { render: boolean } = { render: false },
): { resolved?: ResolvedKubernetes; issues: ConfigIssue[]; warnings: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const version = k.version ?? facts?.serverVersion;
  const need = (key: string, value: string | undefined, where: string): string => {
    if (value === undefined)
      issues.push({
        path: `kubernetes.${key}`,
        message: `is needed and ${facts ? `the cluster does not say it (${where})` : "discovery is off (synth, or cluster.discovery: false)"}; set it`,
      });
    return value ?? "";
  };
  need("version", version, "GET /version");
  // The config's own version was checked by the loader (components/vanilla/validate.ts); the API server's is new here.
  const support = version && !k.version ? versionSupportIssue(version, " (the API server's)") : undefined;
  if (support) (support.fatal ? issues : warnings).push(support.issue);
  // The configured containerd against the API server's release (the loader checked it against a configured one).
  const cdIssue =
    version && !k.version && k.containerd.version ? containerdSupportIssue(version, k.containerd.version) : undefined;
  if (cdIssue) issues.push({ ...cdIssue, message: `${cdIssue.message}, the API server's release` });
  if (version && facts?.serverVersion) {
    const [sMaj, sMin] = facts.serverVersion.split(".").map(Number);
    const [nMaj, nMin] = version.split(".").map(Number);
    if (nMaj !== sMaj || nMin > sMin || sMin - nMin > KUBELET_MAX_MINORS_BEHIND)
      issues.push({
        path: "kubernetes.version",
        message: `${version} is outside the skew the API server (${facts.serverVersion}) allows: kubelets may be at most ${KUBELET_MAX_MINORS_BEHIND} minors older and never newer (version-skew-policy)`,
      });
  }
  const podNetworkCidr = need(
    "podNetworkCidr",
    k.podNetworkCidr ?? facts?.podNetworkCidr,
    "kubeadm-config networking.podSubnet",
  );
  const serviceCidr = need(
    "serviceCidr",
    k.serviceCidr ?? facts?.serviceCidr,
    "kubeadm-config networking.serviceSubnet",
  );
  const dnsServiceIp = need("dnsServiceIp", k.dnsServiceIp ?? facts?.dnsServiceIp, "kube-system/kube-dns clusterIP");
  // Windows flanneld and kube-proxy reach the API server at this endpoint; rendered YAML carries a placeholder
  // instead (render mode has no cluster to ask), anything applied to a cluster needs the real one.
  const apiServerEndpoint = opts.render
    ? (k.apiServerEndpoint ?? facts?.apiServerEndpoint)
    : need("apiServerEndpoint", k.apiServerEndpoint ?? facts?.apiServerEndpoint, "kube-public/cluster-info");
  // kubeadm refuses a join without a pin (cmd/kubeadm/app/util/pubkeypin: `sha256:<hex>`; "" fails discovery).
  const caCertHash = opts.render
    ? (k.caCertHash ?? facts?.caCertHash)
    : need("caCertHash", k.caCertHash ?? facts?.caCertHash, "kube-public/cluster-info's CA");
  // A configured pin that is not the cluster's CA would fail every join at discovery ("none of the public keys are
  // pinned", kubeadm discovery/token): refused here, naming both, before any host is touched.
  if (k.caCertHash && facts?.caCertHash && k.caCertHash !== facts.caCertHash)
    issues.push({
      path: "kubernetes.caCertHash",
      message: `${k.caCertHash} is not the pin of the CA the cluster publishes in kube-public/cluster-info (${facts.caCertHash}); every join would refuse the API server. Remove caCertHash (discovery fills it in) or correct it`,
    });
  if (issues.length > 0 || !version) return { issues, warnings };
  return {
    issues,
    warnings,
    resolved: {
      version,
      podNetworkCidr,
      serviceCidr,
      dnsServiceIp,
      ...(apiServerEndpoint ? { apiServerEndpoint } : {}),
      ...(caCertHash ? { caCertHash } : {}),
      containerdVersion: k.containerd.version ?? DEFAULT_CONTAINERD,
      flannel: {
        vni: k.flannel.vni,
        port: k.flannel.port,
        version: k.flannel.version ?? FLANNEL_VERSION,
        // validate.ts refused a version with neither a pin nor a configured checksum.
        flanneldSha256: k.flannel.flanneldSha256 ?? FLANNELD_SHA256[k.flannel.version ?? FLANNEL_VERSION] ?? "",
        cniVersion: k.flannel.cniVersion ?? FLANNEL_CNI_PLUGIN_VERSION,
        cniSha256: k.flannel.cniSha256 ?? FLANNEL_CNI_SHA256[k.flannel.cniVersion ?? FLANNEL_CNI_PLUGIN_VERSION] ?? "",
      },
      hostProcessImage: k.hostProcessImage ?? HOST_PROCESS_IMAGE,
      ...(k.artifacts.baseUrl ? { artifactsBaseUrl: k.artifacts.baseUrl } : {}),
    },
  };
}
