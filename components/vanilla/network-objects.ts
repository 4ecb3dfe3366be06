/**
 * The Windows network agents of a vanilla cluster as plain objects: flanneld and kube-proxy as HostProcess DaemonSets
 * this project owns, their service accounts and RBAC, and the ConfigMap with their start scripts. The DaemonSets run
 * the host's checksum-verified binaries (VanillaNode installs them) from a tiny HostProcess image, so no community image
 * is trusted (sig-windows-tools removed its flannel images in #385: vanilla-windows-facts §5).
 */
import { createHash } from "crypto";
import { WINDOWS_NETWORK } from "../../facts/kubernetes";
import { flanneldScript, kubeProxyScript } from "./network-scripts";

/** What the agents need from the resolved cluster facts. */
interface NetworkAgentsInput {
  /** `host:port` of the real API server: a host process cannot reach the `kubernetes` Service IP (sig-windows-tools#277). */
  apiServerEndpoint: string;
  podNetworkCidr: string;
  vni: number;
  image: string;
}

const { namespace } = WINDOWS_NETWORK;
const MOUNT = "C:\\etc\\windows-estate";
/** A container variable: a value, or a field of the pod (downward API). */
type EnvVar = { name: string; value: string } | { name: string; valueFrom: { fieldRef: { fieldPath: string } } };

/** The pod-template annotation carrying the start script's hash. */
export const SCRIPT_HASH_ANNOTATION = "windows-estate.io/script-sha256";

function networkServiceAccounts() {
  return [WINDOWS_NETWORK.flanneld, WINDOWS_NETWORK.kubeProxy].map((name) => ({
    apiVersion: "v1" as const,
    kind: "ServiceAccount" as const,
    metadata: { name, namespace },
  }));
}

/** flannel's rights, as its own manifest grants them (flannel Documentation/kube-flannel.yml, ClusterRole `flannel`). */
function flannelClusterRole() {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1" as const,
    kind: "ClusterRole" as const,
    metadata: { name: WINDOWS_NETWORK.flannelClusterRole },
    rules: [
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
      { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
    ],
  };
}

/** Binds flanneld to flannel's role and kube-proxy to `system:node-proxier` (as kubeadm's proxy addon does). */
function networkClusterRoleBindings() {
  const binding = (name: string, role: string, serviceAccount: string) => ({
    apiVersion: "rbac.authorization.k8s.io/v1" as const,
    kind: "ClusterRoleBinding" as const,
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace }],
  });
  return [
    binding(WINDOWS_NETWORK.flannelClusterRole, WINDOWS_NETWORK.flannelClusterRole, WINDOWS_NETWORK.flanneld),
    binding(
      `${WINDOWS_NETWORK.kubeProxy}-node-proxier`,
      WINDOWS_NETWORK.nodeProxierClusterRole,
      WINDOWS_NETWORK.kubeProxy,
    ),
  ];
}

function networkConfigMap(input: NetworkAgentsInput) {
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: { name: WINDOWS_NETWORK.configMap, namespace },
    data: { "flanneld.ps1": flanneldScript(), "kube-proxy.ps1": kubeProxyScript(input.podNetworkCidr) },
  };
}

/** `host:port` (or `[v6]:port`) split for the in-cluster config variables client-go reads. */
function hostAndPort(endpoint: string): { host: string; port: string } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(endpoint);
  return m ? { host: m[1], port: m[2] } : { host: endpoint, port: "443" };
}

/**
 * One HostProcess DaemonSet on every Windows node: system-node-critical, tolerating every taint (like kubeadm's
 * kube-proxy), host network, run as SYSTEM (website tasks/configure-pod-container/create-hostprocess-pod). The script
 * is mounted at its mountPath (containerd 1.7+ bind-mounts volumes for HostProcess containers; the supported
 * containerd lines are all newer: facts/kubernetes.ts CONTAINERD_MINIMUM).
 */
function agentDaemonSet(
  name: string,
  script: { file: string; text: string },
  input: NetworkAgentsInput,
  env: EnvVar[],
) {
  const api = hostAndPort(input.apiServerEndpoint);
  // A changed script changes the pod template, so the DaemonSet rolls its pods (a ConfigMap edit alone would not).
  const scriptHash = createHash("sha256").update(script.text).digest("hex").slice(0, 16);
  return {
    apiVersion: "apps/v1" as const,
    kind: "DaemonSet" as const,
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      selector: { matchLabels: { app: name } },
      // One node at a time: the pod is the node's network.
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: name }, annotations: { [SCRIPT_HASH_ANNOTATION]: scriptHash } },
        spec: {
          serviceAccountName: name,
          priorityClassName: "system-node-critical",
          hostNetwork: true,
          nodeSelector: { "kubernetes.io/os": "windows" },
          tolerations: [{ operator: "Exists" }],
          securityContext: { windowsOptions: { hostProcess: true, runAsUserName: "NT AUTHORITY\\SYSTEM" } },
          containers: [
            {
              name,
              image: input.image,
              command: [
                "powershell.exe",
                "-NoLogo",
                "-NoProfile",
                "-ExecutionPolicy",
                "Bypass",
                "-File",
                `${MOUNT}\\${script.file}`,
              ],
              env: [
                { name: "KUBERNETES_SERVICE_HOST", value: api.host },
                { name: "KUBERNETES_SERVICE_PORT", value: api.port },
                { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                ...env,
              ],
              volumeMounts: [{ name: "scripts", mountPath: MOUNT, readOnly: true }],
            },
          ],
          volumes: [{ name: "scripts", configMap: { name: WINDOWS_NETWORK.configMap } }],
        },
      },
    },
  };
}

export function flanneldDaemonSet(input: NetworkAgentsInput) {
  return agentDaemonSet(WINDOWS_NETWORK.flanneld, { file: "flanneld.ps1", text: flanneldScript() }, input, [
    { name: "NODE_IP", valueFrom: { fieldRef: { fieldPath: "status.hostIP" } } },
  ]);
}

export function kubeProxyDaemonSet(input: NetworkAgentsInput) {
  const text = kubeProxyScript(input.podNetworkCidr);
  return agentDaemonSet(WINDOWS_NETWORK.kubeProxy, { file: "kube-proxy.ps1", text }, input, [
    { name: "KUBE_NETWORK", value: `flannel.${input.vni}` },
  ]);
}

/** Every object, in apply order (accounts and RBAC before the pods that use them). */
export function networkAgentObjects(input: NetworkAgentsInput) {
  return {
    serviceAccounts: networkServiceAccounts(),
    clusterRole: flannelClusterRole(),
    clusterRoleBindings: networkClusterRoleBindings(),
    configMap: networkConfigMap(input),
    daemonSets: [flanneldDaemonSet(input), kubeProxyDaemonSet(input)],
  };
}
