import { stringify } from "yaml";

/**
 * How a cluster made by `kubeadm init` with flannel presents itself to the program (components/vanilla/discover.ts):
 * the objects kubeadm's init phases upload (cmd/kubeadm/app/phases/uploadconfig: `kube-system/kubeadm-config`;
 * phases/bootstraptoken/clusterinfo: `kube-public/cluster-info` with the CA, readable anonymously; phases/addons:
 * the kube-dns Service and the kube-proxy DaemonSet) and what flannel's Documentation/kube-flannel.yml creates
 * (namespace kube-flannel, ConfigMap kube-flannel-cfg, DaemonSet kube-flannel-ds). The CA is the lab's real one,
 * so a join that pins it is checked against the API server's own certificate.
 */
export const KUBEADM_NETWORKS = { podSubnet: "10.244.0.0/16", serviceSubnet: "10.96.0.0/12", dns: "10.96.0.10" };

type Obj = Record<string, unknown>;

function linuxDaemonSet(namespace: string, name: string, image: string): Obj {
  const labels = { "k8s-app": name };
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { "kubernetes.io/os": "linux" },
          hostNetwork: true,
          priorityClassName: "system-node-critical",
          containers: [{ name, image, securityContext: { privileged: true } }],
        },
      },
    },
  };
}

export function kubeadmSeed(opts: { kubernetesVersion: string; server: string; caPem: string }): Obj[] {
  const clusterInfo = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "",
        cluster: { server: opts.server, "certificate-authority-data": Buffer.from(opts.caPem).toString("base64") },
      },
    ],
    contexts: [],
    users: [],
    preferences: {},
  };
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-flannel" } },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kubeadm-config", namespace: "kube-system" },
      data: {
        ClusterConfiguration: stringify({
          apiVersion: "kubeadm.k8s.io/v1beta4",
          kind: "ClusterConfiguration",
          kubernetesVersion: opts.kubernetesVersion,
          controlPlaneEndpoint: opts.server.replace(/^https:\/\//, ""),
          clusterName: "kubernetes",
          networking: {
            dnsDomain: "cluster.local",
            podSubnet: KUBEADM_NETWORKS.podSubnet,
            serviceSubnet: KUBEADM_NETWORKS.serviceSubnet,
          },
        }),
      },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cluster-info", namespace: "kube-public" },
      data: { kubeconfig: stringify(clusterInfo) },
    },
    {
      // phases/bootstraptoken/clusterinfo CreateClusterInfoRBACRules: anonymous may read cluster-info.
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "kubeadm:bootstrap-signer-clusterinfo", namespace: "kube-public" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["cluster-info"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "kubeadm:bootstrap-signer-clusterinfo", namespace: "kube-public" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "kubeadm:bootstrap-signer-clusterinfo" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:anonymous" }],
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "kube-dns", namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
      spec: {
        clusterIP: KUBEADM_NETWORKS.dns,
        selector: { "k8s-app": "kube-dns" },
        ports: [
          { name: "dns", port: 53, protocol: "UDP", targetPort: 53 },
          { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
        ],
      },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kube-flannel-cfg", namespace: "kube-flannel", labels: { app: "flannel" } },
      data: {
        "net-conf.json": JSON.stringify({
          Network: KUBEADM_NETWORKS.podSubnet,
          EnableNFTables: false,
          Backend: { Type: "vxlan" },
        }),
      },
    },
    linuxDaemonSet("kube-flannel", "kube-flannel-ds", "ghcr.io/flannel-io/flannel:v0.27.4"),
    linuxDaemonSet("kube-system", "kube-proxy", `registry.k8s.io/kube-proxy:${opts.kubernetesVersion}`),
  ];
}
