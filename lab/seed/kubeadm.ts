import { stringify } from "yaml";

/**
 * How a cluster made by `kubeadm init` with flannel presents itself to the program (components/vanilla/discover.ts)
 * and to a joining node: the objects kubeadm's init phases upload (cmd/kubeadm/app/phases/uploadconfig:
 * `kube-system/kubeadm-config`; phases/kubelet/config.go: `kube-system/kubelet-config`; phases/bootstraptoken/
 * clusterinfo: `kube-public/cluster-info` with the CA, readable anonymously; phases/addons: the kube-dns Service and
 * the kube-proxy DaemonSet), the RBAC `kubeadm init` creates for joins (phases/bootstraptoken/node), and what
 * flannel's Documentation/kube-flannel.yml creates (namespace kube-flannel, ConfigMap kube-flannel-cfg, DaemonSet
 * kube-flannel-ds). The CA is the lab's real one, so a join that pins it is checked against the API server's own
 * certificate, and the controller manager signs kubelet client certificates with it (lab/start.ts).
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

/** The group every kubeadm bootstrap token authenticates in (cmd/kubeadm/app/constants `NodeBootstrapTokenAuthGroup`). */
const BOOTSTRAPPERS = "system:bootstrappers:kubeadm:default-node-token";
/** The group of every node identity (constants `NodesGroup`). */
const NODES = "system:nodes";
const RBAC = "rbac.authorization.k8s.io";

const group = (name: string) => ({ apiGroup: RBAC, kind: "Group", name });
function clusterRoleBinding(name: string, role: string, subject: string): Obj {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
    subjects: [group(subject)],
  };
}
/** A Role in kube-system that may get one ConfigMap, bound to the bootstrap tokens and the nodes. */
function configMapReader(name: string, configMap: string): Obj[] {
  return [
    {
      apiVersion: `${RBAC}/v1`,
      kind: "Role",
      metadata: { name, namespace: "kube-system" },
      rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: [configMap], verbs: ["get"] }],
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: "RoleBinding",
      metadata: { name, namespace: "kube-system" },
      roleRef: { apiGroup: RBAC, kind: "Role", name },
      subjects: [group(BOOTSTRAPPERS), group(NODES)],
    },
  ];
}

/**
 * What `kubeadm init` sets up so that `kubeadm join` and the kubelet's TLS bootstrap work with a bootstrap token
 * (cmd/kubeadm/app/phases/bootstraptoken/node/tlsbootstrap.go; the names are cmd/kubeadm/app/constants'): the token
 * may post CSRs (`AllowBootstrapTokensToPostCSRs`), its node-client CSRs are approved by the csrapproving controller
 * (`AutoApproveNodeBootstrapTokens`), nodes' own renewals too (`AutoApproveNodeCertificateRotation`), it may get Nodes
 * (`AllowBootstrapTokensToGetNodes`), and read the two ConfigMaps the join reads (phases/uploadconfig/uploadconfig.go
 * `NodesKubeadmConfigClusterRoleName`; phases/kubelet/config.go `createConfigMapRBACRules`). The ClusterRoles
 * `system:node-bootstrapper` and the two `certificatesigningrequests` ones are the API server's own bootstrap policy.
 */
function joinRbac(): Obj[] {
  return [
    // constants NodeKubeletBootstrap → NodeBootstrapperClusterRoleName
    clusterRoleBinding("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", BOOTSTRAPPERS),
    // constants NodeAutoApproveBootstrapClusterRoleBinding → CSRAutoApprovalClusterRoleName
    clusterRoleBinding(
      "kubeadm:node-autoapprove-bootstrap",
      "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
      BOOTSTRAPPERS,
    ),
    // constants NodeAutoApproveCertificateRotationClusterRoleBinding → NodeSelfCSRAutoApprovalClusterRoleName
    clusterRoleBinding(
      "kubeadm:node-autoapprove-certificate-rotation",
      "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
      NODES,
    ),
    // constants GetNodesClusterRoleName: kubeadm join checks that no Ready Node has the joining name
    {
      apiVersion: `${RBAC}/v1`,
      kind: "ClusterRole",
      metadata: { name: "kubeadm:get-nodes" },
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }],
    },
    clusterRoleBinding("kubeadm:get-nodes", "kubeadm:get-nodes", BOOTSTRAPPERS),
    // uploadconfig.go NodesKubeadmConfigClusterRoleName; constants KubeletBaseConfigMapRole
    ...configMapReader("kubeadm:nodes-kubeadm-config", "kubeadm-config"),
    ...configMapReader("kubeadm:kubelet-config", "kubelet-config"),
  ];
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
      // phases/kubelet/config.go CreateConfigMap: the kubelet's base configuration, which `kubeadm join` must read
      // (componentconfigs/kubelet.go kubeletConfigFromCluster: mustExist) before it writes the node's config.yaml.
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kubelet-config", namespace: "kube-system" },
      data: {
        kubelet: stringify({
          apiVersion: "kubelet.config.k8s.io/v1beta1",
          kind: "KubeletConfiguration",
          cgroupDriver: "systemd",
          clusterDNS: [KUBEADM_NETWORKS.dns],
          clusterDomain: "cluster.local",
          rotateCertificates: true,
          authentication: { anonymous: { enabled: false }, webhook: { enabled: true } },
          authorization: { mode: "Webhook" },
        }),
      },
    },
    ...joinRbac(),
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
