/**
 * Vanilla Kubernetes facts for Windows nodes, in one place (like facts/wmco.ts): supported versions, containerd and
 * pause image per version, kubelet flags that no longer exist, flannel's Windows limits, download URLs. Sources are
 * cited per entry (the source file and identifier, or the document).
 */

/** Kubernetes minors supported upstream as of 2026-08 (kubernetes.io releases page; 1.37 released 2026-08-26). */
export const SUPPORTED_MINORS = ["1.35", "1.36", "1.37"] as const;

/**
 * Where a release stands: `supported`; `end-of-life` for the one minor just below the oldest supported (no more
 * upstream patches, but it still runs: a cluster not yet upgraded may go on, with a warning); else `unsupported`.
 */
export function kubernetesSupport(version: string): "supported" | "end-of-life" | "unsupported" {
  const minor = minorOf(version);
  if (SUPPORTED_MINORS.some((m) => m === minor)) return "supported";
  const [major, oldest] = SUPPORTED_MINORS[0].split(".").map(Number);
  return minor === `${major}.${oldest - 1}` ? "end-of-life" : "unsupported";
}

/** The kubelet may be up to 3 minors older than the API server and never newer (version-skew-policy). */
export const KUBELET_MAX_MINORS_BEHIND = 3;

/** Windows Server releases Kubernetes supports on nodes, by build (10.0.<build>): website windows/intro, PR #53724. */
export const WINDOWS_BUILDS = { "2022": "20348", "2025": "26100" } as const;

/**
 * The lowest containerd release per Kubernetes minor, by containerd line (containerd RELEASES.md "Kubernetes
 * support"): a configured containerd below these is refused.
 */
export const CONTAINERD_MINIMUM: Record<string, readonly string[]> = {
  "1.35": ["2.2.0", "2.1.5", "1.7.28"],
  "1.36": ["2.3.0", "2.2.0"],
  "1.37": ["2.3.0"],
};

/** containerd installed when the stack names none: 2.3.x is the LTS line (supported to 2028-04, RELEASES.md). */
export const DEFAULT_CONTAINERD = "2.3.4";

/**
 * The sandbox (pause) image: 3.10.2 is the first with a Windows Server 2025 variant (containerd PR #13156; k/k PRs
 * #136960, #138195); 3.10 and 3.10.1 fail on 2025 under Hyper-V isolation (windows-testing PR #557).
 */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10.2";

/**
 * kubelet flags removed upstream: passing any of them stops the kubelet at start (`unknown flag`). The program never
 * writes them, and refuses them in extra arguments. `--pod-infra-container-image`: CHANGELOG-1.35 "Urgent Upgrade
 * Notes" (PR #133779) says 1.35; sig-windows-tools #397 says 1.34: treated as gone from 1.34 on.
 */
export const REMOVED_KUBELET_FLAGS: readonly { flag: string; removedIn: string }[] = [
  { flag: "--network-plugin", removedIn: "1.24" },
  { flag: "--image-pull-progress-deadline", removedIn: "1.24" },
  { flag: "--log-dir", removedIn: "1.26" },
  { flag: "--logtostderr", removedIn: "1.26" },
  { flag: "--container-runtime", removedIn: "1.27" },
  { flag: "--pod-infra-container-image", removedIn: "1.34" },
];

/**
 * Windows flanneld's limits (flannel pkg/backend/vxlan/vxlan_windows.go): VNI at least 4096, port exactly 4789, no
 * DirectRouting or GBP. Its network is named `flannel.<VNI>`.
 */
export const FLANNEL_WINDOWS = { minVni: 4096, port: 4789 } as const;

/**
 * What Linux flanneld uses when net-conf.json leaves the VXLAN settings out (flannel pkg/backend/vxlan/vxlan.go
 * `defaultVNI` = 1; Port 0 leaves the kernel's default, 8472). It names its device `flannel.<VNI>` there too.
 */
export const FLANNEL_LINUX_DEFAULTS = { vni: 1, port: 8472 } as const;

/**
 * The pod-template annotation that restarts Linux flanneld when this stack changes its VXLAN backend (the value names
 * the backend; a changed template rolls the DaemonSet, as `kubectl rollout restart` does with its own annotation).
 */
export const FLANNEL_BACKEND_ANNOTATION = "windows-estate.io/flannel-backend";

/** Windows flanneld's MAC prefix rule (vxlan_windows.go: five characters with `-` third, as its default `0E-2A`). */
export const FLANNEL_WINDOWS_MAC_PREFIX = /^.{2}-.{2}$/;

/** flannel, its CNI plugin and the CNI reference plugins, as RKE2 pins them (rancher/rke2 Dockerfile.windows). */
export const FLANNEL_VERSION = "v0.28.9";
export const FLANNEL_CNI_PLUGIN_VERSION = "v1.9.1-flannel3";
export const CNI_PLUGINS_VERSION = "v1.9.1";

/**
 * SHA-256 of flannel's Windows binaries. flannel publishes no checksum files beside `flanneld.exe` or
 * `flannel-amd64.exe`; these are the digests RKE2 verifies its builds against (rancher/rke2 Dockerfile.windows at
 * 6ce1a80, the `sha256sum -c` lines after `FLANNEL_VERSION` and `CNI_FLANNEL_VERSION`). Another flanneld version needs
 * `kubernetes.flannel.flanneldSha256`; nothing is installed unverified.
 */
export const FLANNELD_SHA256: Readonly<Record<string, string>> = {
  "v0.28.9": "7d43b3de5635891e68b36458d912a94c2eb94e15d878d486f539309db5845861",
};
export const FLANNEL_CNI_SHA256: Readonly<Record<string, string>> = {
  "v1.9.1-flannel3": "768c4a04e6ee3f7e3f9280488359b7e4bba4220246795261994a77a366860cc6",
};

/**
 * The image the Windows flanneld and kube-proxy DaemonSets run: Microsoft's HostProcess base image, a few KB, usable on
 * every Windows Server version because a HostProcess container shares the host's OS (microsoft/windows-host-process-
 * containers-base-image README). The binaries themselves come from the host, installed with verified checksums.
 */
export const HOST_PROCESS_IMAGE = "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0";

/**
 * The Windows network agents this project owns (flannel's HostProcess manifests were removed from sig-windows-tools in
 * #385 and no Windows kube-proxy image for flannel is published: vanilla-windows-facts §5). Namespaced in kube-system,
 * beside kubeadm's Linux kube-proxy.
 */
export const WINDOWS_NETWORK = {
  namespace: "kube-system",
  flanneld: "windows-estate-flanneld",
  kubeProxy: "windows-estate-kube-proxy",
  configMap: "windows-estate-network",
  /** flannel's ClusterRole in kube-flannel.yml (get pods; get, list, watch nodes; patch nodes/status). */
  flannelClusterRole: "windows-estate-flannel",
  /** kube-proxy's rights: the built-in ClusterRole kubeadm binds its own kube-proxy to (`kubeadm:node-proxier`). */
  nodeProxierClusterRole: "system:node-proxier",
  /** Where the node keeps the source VIP it reserved for kube-proxy (sig-windows-tools' kube-proxy start.ps1). */
  sourceVipCache: "C:\\sourcevip\\sourceVip.json",
} as const;

/** containerd's named pipe on Windows (containerd defaults/defaults_windows.go), as kubeadm's `criSocket`. */
export const CONTAINERD_PIPE = "npipe:////./pipe/containerd-containerd";

/** The taint Kubernetes' Windows guide uses to keep Linux pods off Windows nodes (user-guide.md). */
export const WINDOWS_TAINT = { key: "os", value: "windows", effect: "NoSchedule" } as const;

/** The group every kubeadm bootstrap binding targets (bootstrap-tokens.md; kubeadm implementation-details.md). */
export const BOOTSTRAP_GROUP = "system:bootstrappers:kubeadm:default-node-token";

/** Public download URLs; `artifacts.baseUrl` replaces the scheme and host (same paths below it). */
export const DOWNLOADS = {
  /** dl.k8s.io: each `<name>.exe` has `<name>.exe.sha256` beside it (hex digest only). */
  kubernetes: (v: string, name: string) => `https://dl.k8s.io/release/v${v}/bin/windows/amd64/${name}.exe`,
  /** containerd releases: `.sha256sum` beside the archive (containerd Makefile `release`). */
  containerd: (v: string) =>
    `https://github.com/containerd/containerd/releases/download/v${v}/containerd-${v}-windows-amd64.tar.gz`,
  /** CNI reference plugins for Windows (host-local, win-overlay): `.sha256` beside it. */
  cniPlugins: (v: string) =>
    `https://github.com/containernetworking/plugins/releases/download/${v}/cni-plugins-windows-amd64-${v}.tgz`,
  /** flanneld for Windows. */
  flanneld: (v: string) => `https://github.com/flannel-io/flannel/releases/download/${v}/flanneld.exe`,
  /** flannel's CNI plugin for Windows (the bare executable, as RKE2 downloads it). */
  flannelCni: (v: string) => `https://github.com/flannel-io/cni-plugin/releases/download/${v}/flannel-amd64.exe`,
} as const;

/** A URL moved under a mirror: the same path below `baseUrl`. */
export function mirrored(url: string, baseUrl: string | undefined): string {
  if (!baseUrl) return url;
  const u = new URL(url);
  return `${baseUrl.replace(/\/+$/, "")}/${u.host}${u.pathname}`;
}

/** `1.36.2` → `1.36`. */
export function minorOf(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

/** Compares dotted versions numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The `kubernetes.io` / `k8s.io` label keys the kubelet accepts in `--node-labels` (k8s.io/kubelet pkg/apis
 * well_known_labels.go `kubeletLabels`, `kubeletLabelNamespaces`; cmd/kubelet/app/options/options.go
 * `ValidateKubeletFlags`). Any other key in those namespaces (e.g. `node-role.kubernetes.io/*`) stops the kubelet at
 * start: "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels".
 */
const KUBELET_LABELS = [
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
] as const;
export const KUBELET_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"] as const;

/** Whether the kubelet accepts this key in `--node-labels` (`ValidateKubeletFlags`' rule). */
export function kubeletAcceptsLabel(key: string): boolean {
  const slash = key.indexOf("/");
  if (slash < 0) return true;
  const ns = key.slice(0, slash);
  const within = (domain: string) => ns === domain || ns.endsWith(`.${domain}`);
  if (!within("kubernetes.io") && !within("k8s.io")) return true;
  return KUBELET_LABELS.some((k) => k === key) || KUBELET_LABEL_NAMESPACES.some((d) => within(d));
}

/** flanneld on Windows casts the VNI to uint16 for its lease (flannel pkg/backend/vxlan/vxlan_windows.go). */
export const FLANNEL_WINDOWS_MAX_VNI = 65535;
