/**
 * What one Windows node of a vanilla cluster gets, as plain data: the files (exact text) and the ordered steps that
 * converge it (vanilla-windows-facts §9). Synth and the stack output show it before anything touches a host; the
 * node-side providers apply it. Pure.
 */
import { HOSTNAME_PLACEHOLDER } from "../../providers/vanilla-node/scripts";
import { isIP } from "net";
import { stringify } from "yaml";
import type { VanillaNodeConfig } from "../../stacks/schema/kubernetes";
import type { JoinedNode } from "./hosts";
import {
  CONTAINERD_PIPE,
  DOWNLOADS,
  mirrored,
  PAUSE_IMAGE,
  WINDOWS_TAINT,
  CNI_PLUGINS_VERSION,
  WINDOWS_NETWORK,
  WINDOWS_BUILDS,
} from "../../facts/kubernetes";
import { REGISTRIES_DIR } from "../mirrors/registry-mirrors";
import { registryDirectory } from "../mirrors/hosts-toml";
import type { Download } from "../../providers/vanilla-node/scripts";

/** The cluster facts a node's files need, after config and discovery. */
export interface ResolvedKubernetes {
  version: string;
  podNetworkCidr: string;
  serviceCidr: string;
  dnsServiceIp: string;
  /** `host:port` of the API server; undefined until discovery (the join file then says so). */
  apiServerEndpoint?: string;
  /** The CA pin joins check (`sha256:<hex>`); undefined in render mode, where nothing joins. */
  caCertHash?: string;
  containerdVersion: string;
  /** flanneld's release and the SHA-256 its `flanneld.exe` is checked against (pinned or configured). */
  flannel: {
    vni: number;
    port: number;
    version: string;
    flanneldSha256: string;
    /** flannel's CNI plugin release and the SHA-256 of its flannel-amd64.exe. */
    cniVersion: string;
    cniSha256: string;
  };
  artifactsBaseUrl?: string;
  /** The image of the Windows flanneld and kube-proxy DaemonSets. */
  hostProcessImage: string;
}

/** Shown where the API server's address or the CA pin goes until discovery has read them (render mode). */
export const API_ENDPOINT_PLACEHOLDER = "<discovered at preview/up from kube-public/cluster-info>";

export const PATHS = {
  containerdDir: "C:\\Program Files\\containerd",
  /** Our containerd config and its registry files live together, owned by one NodeFiles directory. */
  containerdConfigDir: "C:\\k\\containerd",
  containerdConfig: "C:\\k\\containerd\\config.toml",
  cniBin: "C:\\opt\\cni\\bin",
  cniConf: "C:\\etc\\cni\\net.d",
  flannelNetConf: "C:\\etc\\kube-flannel\\net-conf.json",
  kubeDir: "C:\\k",
  /** flanneld lives with the Kubernetes binaries; the DaemonSet runs a copy of it (network-objects.ts). */
  flanneld: "C:\\k\\flanneld.exe",
  joinConfig: "C:\\k\\kubeadm\\join.yaml",
} as const;

/** One converge step: what it does, and what `read` compares to find drift. */
interface NodeStep {
  name: string;
  does: string;
  check: string;
}

export interface NodePlan {
  address: string;
  /** Full Windows path → exact text (the join file's token shown as a placeholder: it is a secret). */
  files: Record<string, string>;
  steps: NodeStep[];
  /** What the node downloads, each with its published checksum, version and target (VanillaNode installs them). */
  downloads: Download[];
}

/**
 * containerd's config (version 3, containerd 2.x; image-builder `runtimes/templates/config.toml`): the pause image
 * that works on Windows Server 2025, the CNI directories flannel's files use (containerd's Windows defaults differ,
 * config_windows.go), and the registry directory the mirrors' hosts.toml files live in (Windows has no default).
 */
export function containerdConfigToml(): string {
  return [
    "version = 3",
    "",
    "[plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `  sandbox = '${PAUSE_IMAGE}'`,
    "",
    "[plugins.'io.containerd.cri.v1.images'.registry]",
    `  config_path = '${REGISTRIES_DIR}'`,
    "",
    "[plugins.'io.containerd.cri.v1.runtime'.cni]",
    `  bin_dirs = ['${PATHS.cniBin}']`,
    `  conf_dir = '${PATHS.cniConf}'`,
    "",
  ].join("\n");
}

/** flannel's net-conf.json as Windows flanneld reads it: VXLAN with the VNI and port it accepts. */
export function flannelNetConf(k: Pick<ResolvedKubernetes, "podNetworkCidr" | "flannel">): string {
  return (
    JSON.stringify(
      { Network: k.podNetworkCidr, Backend: { Type: "vxlan", VNI: k.flannel.vni, Port: k.flannel.port } },
      null,
      2,
    ) + "\n"
  );
}

/**
 * The CNI config for containerd: flannel delegating to `win-overlay` (HNS v2, `apiVersion: 2`), with OutBoundNAT except
 * the pod and service networks, a route for the service network through the overlay, and the node's own address as
 * provider address. `win-overlay.exe` is in the CNI plugins tarball the node installs (containernetworking/plugins
 * v1.9.1 plugins/windows_only.txt: host-local, win-bridge, win-overlay); `sdnoverlay`, which sig-windows-tools' removed
 * flannel setup named, is not, so a conf naming it failed every pod sandbox. The shape follows RKE2's
 * (rancher/rke2 pkg/windows/flannel.go `flannelCniConflistTemplate`) as a single-plugin conf; win-overlay's HCN path
 * attaches to the HNS network flanneld creates, named like the conf (`flannel.<VNI>`).
 */
export function flannelCniConf(
  k: Pick<ResolvedKubernetes, "podNetworkCidr" | "serviceCidr" | "flannel">,
  nodeIp: string,
): string {
  const conf = {
    name: `flannel.${k.flannel.vni}`,
    cniVersion: "1.0.0",
    type: "flannel",
    capabilities: { portMappings: true, dns: true },
    delegate: {
      type: "win-overlay",
      apiVersion: 2,
      Policies: [
        {
          Name: "EndpointPolicy",
          Value: { Type: "OutBoundNAT", Settings: { Exceptions: [k.podNetworkCidr, k.serviceCidr] } },
        },
        {
          Name: "EndpointPolicy",
          Value: { Type: "SDNRoute", Settings: { DestinationPrefix: k.serviceCidr, NeedEncap: true } },
        },
        { Name: "EndpointPolicy", Value: { Type: "ProviderAddress", Settings: { ProviderAddress: nodeIp } } },
      ],
    },
  };
  return JSON.stringify(conf, null, 2) + "\n";
}

/** Filled in on the host: the node's IP (for a node given by DNS name) and its hostname (when `name` is not set). */
export const NODE_IP_PLACEHOLDER = "<node IP, read on the host>";
export { HOSTNAME_PLACEHOLDER };

/** The token placeholder in shown join files: the token itself is a secret and only reaches the host. */
export const TOKEN_PLACEHOLDER = "<bootstrap token: secret, written on the host only>";

/**
 * kubeadm's JoinConfiguration (`kubeadm.k8s.io/v1beta4`): token discovery pinned to the cluster CA's hash, the
 * containerd pipe as CRI socket, the node's name (lower case, as the kubelet registers it), its taints, and labels
 * through `kubeletExtraArgs` (a list of name/value pairs in v1beta4).
 */
export function joinConfiguration(
  n: Pick<VanillaNodeConfig, "labels" | "taints">,
  nodeName: string,
  k: Pick<ResolvedKubernetes, "apiServerEndpoint">,
  discovery: { token: string; caCertHash: string },
): string {
  const labels = Object.entries(n.labels)
    .map(([key, v]) => `${key}=${v}`)
    .join(",");
  const doc = {
    apiVersion: "kubeadm.k8s.io/v1beta4",
    kind: "JoinConfiguration",
    discovery: {
      bootstrapToken: {
        token: discovery.token,
        apiServerEndpoint: k.apiServerEndpoint ?? API_ENDPOINT_PLACEHOLDER,
        caCertHashes: [discovery.caCertHash],
      },
    },
    nodeRegistration: {
      name: nodeName === HOSTNAME_PLACEHOLDER ? nodeName : nodeName.toLowerCase(),
      criSocket: CONTAINERD_PIPE,
      taints: (n.taints ?? [WINDOWS_TAINT]).map((t) => ({ key: t.key, value: t.value ?? "", effect: t.effect })),
      ...(labels ? { kubeletExtraArgs: [{ name: "node-labels", value: labels }] } : {}),
    },
  };
  return stringify(doc);
}

/** The node's plan: files with their exact text, downloads with checksums, and the steps in order. */
export function vanillaNodePlan(n: JoinedNode, k: ResolvedKubernetes, registryFiles: Record<string, string>): NodePlan {
  const files: Record<string, string> = {
    [PATHS.containerdConfig]: containerdConfigToml(),
    [PATHS.flannelNetConf]: flannelNetConf(k),
    // A node given by DNS name gets its IP filled in on the host (the provider address must be an IP).
    [`${PATHS.cniConf}\\10-flannel.conf`]: flannelCniConf(
      k,
      n.nodeIp ?? (isIP(n.address) === 4 ? n.address : NODE_IP_PLACEHOLDER),
    ),
    [PATHS.joinConfig]: joinConfiguration(n, n.name ?? HOSTNAME_PLACEHOLDER, k, {
      token: TOKEN_PLACEHOLDER,
      caCertHash: k.caCertHash ?? API_ENDPOINT_PLACEHOLDER,
    }),
  };
  // This program writes these files itself, so a `host:port` source goes where containerd looks first (host_port_);
  // renderHostsToml names directories as WMCO does, and Windows allows no ':' in a name.
  for (const [source, text] of Object.entries(registryFiles))
    files[`${REGISTRIES_DIR}\\${registryDirectory(source)}\\hosts.toml`] = text;
  const base = k.artifactsBaseUrl;
  const k8sBinary = (name: string): Download => {
    const url = mirrored(DOWNLOADS.kubernetes(k.version, name), base);
    return {
      name,
      url,
      checksumUrl: `${url}.sha256`,
      kind: "file",
      target: `${PATHS.kubeDir}\\${name}.exe`,
      version: k.version,
    };
  };
  const containerdUrl = mirrored(DOWNLOADS.containerd(k.containerdVersion), base);
  const cniUrl = mirrored(DOWNLOADS.cniPlugins(CNI_PLUGINS_VERSION), base);
  const downloads: Download[] = [
    {
      name: "containerd",
      url: containerdUrl,
      checksumUrl: `${containerdUrl}.sha256sum`,
      kind: "tgz",
      target: "C:\\Program Files\\containerd",
      strip: true,
      version: k.containerdVersion,
    },
    k8sBinary("kubelet"),
    k8sBinary("kubeadm"),
    k8sBinary("kube-proxy"),
    k8sBinary("kube-log-runner"),
    {
      name: "cni-plugins",
      url: cniUrl,
      checksumUrl: `${cniUrl}.sha256`,
      kind: "tgz",
      target: PATHS.cniBin,
      version: CNI_PLUGINS_VERSION,
    },
    // flannel publishes no checksum files: these are checked against pinned digests (facts/kubernetes.ts).
    {
      name: "flanneld",
      url: mirrored(DOWNLOADS.flanneld(k.flannel.version), base),
      sha256: k.flannel.flanneldSha256,
      kind: "file",
      target: PATHS.flanneld,
      version: k.flannel.version,
    },
    {
      name: "flannel-cni",
      url: mirrored(DOWNLOADS.flannelCni(k.flannel.cniVersion), base),
      sha256: k.flannel.cniSha256,
      kind: "file",
      // The CNI conf's `type: flannel` is the executable's name in the CNI bin directory.
      target: `${PATHS.cniBin}\\flannel.exe`,
      version: k.flannel.cniVersion,
    },
  ];
  const steps: NodeStep[] = [
    {
      name: "os",
      does: `checked, never changed: the host runs Windows Server ${n.windowsServer} (build ${WINDOWS_BUILDS[n.windowsServer]}); another build stops the converge before anything changes`,
      check: "build (UBR recorded)",
    },
    { name: "features", does: "Containers feature installed (reboot if pending)", check: "feature state" },
    {
      name: "host settings",
      does: `firewall TCP 10250 (kubelet) and UDP ${k.flannel.port} (VXLAN); lower-case hostname`,
      check: "rules, hostname",
    },
    { name: "containerd", does: `containerd ${k.containerdVersion}, checksum verified`, check: "version" },
    { name: "containerd config", does: "config.toml and registry hosts.toml files", check: "file hashes" },
    { name: "containerd service", does: "Automatic and Running, pipe present", check: "service, pipe" },
    {
      name: "kubernetes binaries",
      does: `kubelet, kubeadm, kube-proxy ${k.version}, checksums verified`,
      check: "versions",
    },
    {
      name: "cni and flannel",
      does: `CNI plugins ${CNI_PLUGINS_VERSION}, flannel CNI ${k.flannel.cniVersion}, flanneld ${k.flannel.version}, checksums verified`,
      check: "versions",
    },
    { name: "kubelet service", does: "service `kubelet`, depends on containerd, auto start", check: "service config" },
    {
      name: "join",
      does: "kubeadm join with a bootstrap token and the CA hash",
      check: "kubelet.conf, the Node registered",
    },
    {
      name: "identity",
      does: `labels, taints${n.providerId === "auto" ? ", providerID from the BIOS serial" : ""}`,
      check: "Node fields",
    },
    {
      name: "flanneld",
      does: `DaemonSet ${WINDOWS_NETWORK.flanneld} (HostProcess) runs flanneld on flannel.${k.flannel.vni}; restarted on this node when flanneld is upgraded`,
      check: "pod on the node",
    },
    {
      name: "kube-proxy",
      does: `DaemonSet ${WINDOWS_NETWORK.kubeProxy} (HostProcess) reserves the source VIP and runs kube-proxy (kernelspace); restarted on this node when kube-proxy is upgraded`,
      check: "pod on the node",
    },
  ];
  return { address: n.address, files, steps, downloads };
}

/**
 * NO_PROXY for containerd and the kubelet: what the stack lists, plus the cluster's own networks, its service domains
 * and the API server's host. The kubelet talks to the API server and, through a proxy that cannot reach it (an
 * internal address), it would never register; the pod and service networks are reached over the overlay.
 */
export function nodeNoProxy(
  listed: readonly string[],
  k: Pick<ResolvedKubernetes, "podNetworkCidr" | "serviceCidr" | "apiServerEndpoint">,
): string {
  const apiHost = k.apiServerEndpoint?.replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
  return [
    ...new Set([...listed, k.podNetworkCidr, k.serviceCidr, ".svc", ".cluster.local", ...(apiHost ? [apiHost] : [])]),
  ].join(",");
}
