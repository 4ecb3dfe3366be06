import { stringify } from "yaml";
import { Download } from "../../providers/vanilla-node/scripts";

/**
 * Objects and inputs several vanilla-Kubernetes suites share, hand-built in the shapes kubeadm, kube-flannel.yml and
 * the release sites use (each suite validates what it serves against the schemas).
 */

/** `kube-system/kubeadm-config` as `kubeadm init` writes it (ClusterConfiguration as YAML text). */
export function kubeadmConfigMap(cluster: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kubeadm-config", namespace: "kube-system" },
    data: {
      ClusterConfiguration: stringify({
        apiVersion: "kubeadm.k8s.io/v1beta4",
        kind: "ClusterConfiguration",
        networking: { podSubnet: "10.244.0.0/16", serviceSubnet: "10.96.0.0/12" },
        ...cluster,
      }),
    },
  };
}

/** `kube-flannel/kube-flannel-cfg` as kube-flannel.yml ships it, with the given VXLAN backend. */
export function flannelConfigMap(backend: Record<string, unknown>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kube-flannel-cfg", namespace: "kube-flannel" },
    data: { "net-conf.json": JSON.stringify({ Network: "10.244.0.0/16", EnableNFTables: false, Backend: backend }) },
  };
}

/** containerd and the Kubernetes binaries at the given versions, with the release sites' checksum files. */
export function releaseDownloads(kubernetes = "1.36.2", names = ["kubelet", "kubeadm", "kube-proxy"]): Download[] {
  const binary = (name: string): Download => ({
    name,
    url: `https://dl.k8s.io/release/v${kubernetes}/bin/windows/amd64/${name}.exe`,
    checksumUrl: `https://dl.k8s.io/release/v${kubernetes}/bin/windows/amd64/${name}.exe.sha256`,
    kind: "file",
    target: `C:\\k\\${name}.exe`,
    version: kubernetes,
  });
  return [
    {
      name: "containerd",
      url: "https://github.com/containerd/containerd/releases/download/v2.3.4/containerd-2.3.4-windows-amd64.tar.gz",
      checksumUrl:
        "https://github.com/containerd/containerd/releases/download/v2.3.4/containerd-2.3.4-windows-amd64.tar.gz.sha256sum",
      kind: "tgz",
      target: "C:\\Program Files\\containerd",
      strip: true,
      version: "2.3.4",
    },
    ...names.map(binary),
  ];
}

/**
 * A JoinConfiguration shaped as the program writes it (components/vanilla/node-plan.ts joinConfiguration) for an API
 * server the PowerShell stand-in does not dial (not a loopback address), so it joins offline after kubeadm's own
 * validation and pin check. The endpoint is the example's documentation address; nothing connects to it.
 */
export function offlineJoinConfig(token = "abcdef.0123456789abcdef", nodeName?: string): string {
  return [
    "apiVersion: kubeadm.k8s.io/v1beta4",
    "kind: JoinConfiguration",
    "discovery:",
    "  bootstrapToken:",
    '    apiServerEndpoint: "10.0.0.10:6443"',
    `    token: "${token}"`,
    "    caCertHashes:",
    '      - "sha256:abababababababababababababababababababababababababababababababab"',
    ...(nodeName !== undefined ? ["nodeRegistration:", `  name: "${nodeName}"`] : []),
    "",
  ].join("\n");
}
