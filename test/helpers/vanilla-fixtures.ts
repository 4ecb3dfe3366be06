import { Download } from "../../providers/vanilla-node/scripts";

/**
 * Inputs several vanilla-Kubernetes suites share, hand-built in the shapes the release sites and kubeadm use. The
 * cluster's own objects are the lab's seed (lab/seed/kubeadm.ts `kubeadmSeed`).
 */

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
