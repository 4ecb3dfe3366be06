import type * as pulumi from "@pulumi/pulumi";
/**
 * The objects of the node relay (`nodeAccess.via: cluster`), as plain data: a ConfigMap holding the relay program, a
 * Deployment that runs it (no key, no Secret, no service account token, restricted security context, Linux nodes,
 * two replicas spread over nodes), a PodDisruptionBudget, a NetworkPolicy that lets it reach node SSH and DNS only,
 * a Role granting what a port-forward to it needs, and on a vanilla cluster the namespace it runs in. Pure; validated
 * against the Kubernetes schemas in tests.
 */
import { createHash } from "crypto";
import {
  RELAY_ALLOWED_PORTS,
  RELAY_DNS_PORTS,
  RELAY_DRAIN_SECONDS,
  RELAY_NAME,
  RELAY_PORT,
  RELAY_READINESS,
  RELAY_REPLICAS,
  RELAY_RUN_AS,
  RELAY_TERMINATION_GRACE_SECONDS,
} from "../../facts/day2";

const SELECTOR = { "app.kubernetes.io/name": RELAY_NAME };
const LABELS = { ...SELECTOR, "app.kubernetes.io/managed-by": "windows-estate" };

/**
 * Where the relay runs. `openshift`: WMCO's namespace, whose restricted-v2 SCC assigns the pod's UID from the
 * namespace's range (so none is set here). `kubernetes`: a vanilla cluster, in the relay's own namespace, where nothing
 * assigns a UID (so the pod sets one).
 */
export type RelayPlatform = "openshift" | "kubernetes";

interface RelayDeploymentOptions {
  platform: RelayPlatform;
  /** How many relay pods (`relayReplicas`): 2, or 1 on a cluster with one Linux node the relay can run on. */
  replicas?: number;
  /** How long the relay waits for a node's TCP connection before it answers 504 (`nodeAccess.connectTimeoutSeconds`). */
  connectTimeoutSeconds?: number;
}

/**
 * The relay's own namespace on a vanilla cluster, with Pod Security `restricted` enforced (and warned and audited),
 * so nothing less restricted can ever run beside it (kubernetes.io/docs/concepts/security/pod-security-admission,
 * "Pod Security Admission labels for namespaces").
 */
export function buildRelayNamespace(name: pulumi.Input<string>) {
  return {
    apiVersion: "v1" as const,
    kind: "Namespace" as const,
    metadata: {
      name,
      labels: {
        "app.kubernetes.io/managed-by": "windows-estate",
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/audit": "restricted",
      },
    },
  };
}

export function buildRelayConfigMap(namespace: pulumi.Input<string>, program: string) {
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    data: { "relay-proxy.js": program },
  };
}

export function buildRelayDeployment(
  namespace: pulumi.Input<string>,
  image: string,
  program: string,
  opts: RelayDeploymentOptions,
) {
  const connectMs = (opts.connectTimeoutSeconds ?? 15) * 1000;
  return {
    apiVersion: "apps/v1" as const,
    kind: "Deployment" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    spec: {
      replicas: opts.replicas ?? RELAY_REPLICAS,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: {
          labels: LABELS,
          // A new relay program rolls the pods.
          annotations: {
            "windows-estate.io/relay-program": createHash("sha256").update(program).digest("hex").slice(0, 16),
          },
        },
        spec: {
          // It talks to nothing in the cluster: no API token in the pod.
          automountServiceAccountToken: false,
          nodeSelector: { "kubernetes.io/os": "linux" },
          // One pod per node while there are nodes for both: a drain or a node failure leaves the other serving.
          // DoNotSchedule with maxSkew 1 still puts both on a cluster with a single eligible node (the skew is counted
          // against the eligible domains only, and one domain has none), and Honor leaves out nodes whose taints the
          // pod does not tolerate (cordoned, control plane), which would otherwise count as empty domains and keep
          // the second pod Pending (k8s.io/api core/v1 types.go `TopologySpreadConstraint.MaxSkew`, `NodeTaintsPolicy`).
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: "kubernetes.io/hostname",
              whenUnsatisfiable: "DoNotSchedule",
              nodeTaintsPolicy: "Honor",
              labelSelector: { matchLabels: SELECTOR },
            },
          ],
          // A pod being drained or rolled lets the tunnels in flight finish: the longest remote command plus margin.
          terminationGracePeriodSeconds: RELAY_TERMINATION_GRACE_SECONDS,
          securityContext: {
            runAsNonRoot: true,
            // Pod Security `restricted` wants a non-root user the kubelet can check: numeric, set where the platform
            // assigns none; OpenShift's restricted-v2 assigns one from the namespace's range and refuses others.
            ...(opts.platform === "kubernetes" ? { runAsUser: RELAY_RUN_AS, runAsGroup: RELAY_RUN_AS } : {}),
            seccompProfile: { type: "RuntimeDefault" as const },
          },
          containers: [
            {
              name: "relay",
              image,
              command: ["node", "/relay/relay-proxy.js"],
              env: [
                { name: "RELAY_PORT", value: String(RELAY_PORT) },
                { name: "RELAY_ALLOWED_PORTS", value: RELAY_ALLOWED_PORTS.join(",") },
                { name: "RELAY_CONNECT_TIMEOUT_MS", value: String(connectMs) },
                { name: "RELAY_DRAIN_SECONDS", value: String(RELAY_DRAIN_SECONDS) },
              ],
              // It listens on the pod's loopback only, so the kubelet's probes check it from inside the container
              // (facts/day2.ts RELAY_READINESS: why exec, and why these numbers).
              readinessProbe: {
                exec: {
                  command: [
                    "node",
                    "-e",
                    `require("net").connect(${RELAY_PORT}, "127.0.0.1").on("connect", () => process.exit(0)).on("error", () => process.exit(1))`,
                  ],
                },
                ...RELAY_READINESS,
              },
              resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
              },
              volumeMounts: [{ name: "program", mountPath: "/relay", readOnly: true }],
            },
          ],
          volumes: [{ name: "program", configMap: { name: RELAY_NAME } }],
        },
      },
    },
  };
}

/**
 * At most one relay pod voluntarily down at a time: a drain evicts the second only once the first one's replacement
 * is Ready elsewhere (kubernetes.io/docs/concepts/workloads/pods/disruptions, "Pod disruption budgets"). With one
 * replica (a cluster with one Linux node for it) `maxUnavailable: 1` allows every eviction, so a drain of that node is
 * never blocked; `minAvailable: 1` would block it for good. A relay pod that is not Ready (a bad image, a failing
 * probe) is evicted regardless (`unhealthyPodEvictionPolicy: AlwaysAllow`): a broken relay never holds up a drain.
 */
export function buildRelayPodDisruptionBudget(namespace: pulumi.Input<string>) {
  return {
    apiVersion: "policy/v1" as const,
    kind: "PodDisruptionBudget" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: SELECTOR },
      unhealthyPodEvictionPolicy: "AlwaysAllow" as const,
    },
  };
}

/**
 * What the relay pods may reach: TCP 22 anywhere (the nodes), and DNS (a node given by name is resolved in the pod),
 * nothing else; nothing may connect to them over the pod network. So a namespace with a default-deny egress policy
 * still lets the relay work, and the relay can be used for nothing but SSH.
 *
 * Policies add up: this one selects only the relay pods and changes nothing for the other pods of the namespace. An
 * egress rule with `ports` and no `to` matches every destination (k8s.io/api networking/v1 types.go
 * `NetworkPolicyEgressRule`). DNS is allowed to any address on its port, not only to the cluster DNS pods: a node-local
 * DNS cache listens on a link-local address of the node, which no pod selector matches; the relay itself only ever
 * connects to the allowed SSH port. The port-forward is not subject to the ingress rule: the container runtime dials
 * the relay on the pod's loopback from inside the pod's network namespace (containerd
 * internal/cri/server/sandbox_portforward_linux.go `portForward`/`dialLocalhost`; CRI-O internal/oci
 * `PortForwardContainer`, ns.WithNetNSPath), which never crosses the pod's interface where policies are enforced;
 * neither are the exec probes, which run inside the container.
 */
export function buildRelayNetworkPolicy(namespace: pulumi.Input<string>, platform: RelayPlatform) {
  const dns = RELAY_DNS_PORTS[platform];
  return {
    apiVersion: "networking.k8s.io/v1" as const,
    kind: "NetworkPolicy" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    spec: {
      podSelector: { matchLabels: SELECTOR },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [
        { ports: RELAY_ALLOWED_PORTS.map((port) => ({ protocol: "TCP", port })) },
        {
          ports: dns.flatMap((port) => [
            { protocol: "UDP", port },
            { protocol: "TCP", port },
          ]),
        },
      ],
    },
  };
}

/**
 * What the identity running `pulumi up` needs to use the relay: find the pod, and open a port-forward to it. A
 * port-forward is a WebSocket upgrade of a GET: before Kubernetes 1.35 it is authorized as `get`, from 1.35 as
 * `create` on `pods/portforward` (kubernetes PR #134577, `AuthorizePodWebsocketUpgradeCreatePermission`): both.
 */
export function buildPortForwardRole(namespace: pulumi.Input<string>) {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1" as const,
    kind: "Role" as const,
    metadata: { name: `${RELAY_NAME}-user`, namespace, labels: LABELS },
    rules: [
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
      { apiGroups: [""], resources: ["pods/portforward"], verbs: ["get", "create"] },
    ],
  };
}

export interface RelaySubject {
  kind: "User" | "Group" | "ServiceAccount";
  name: string;
  namespace?: string;
}

export function buildPortForwardRoleBinding(namespace: pulumi.Input<string>, subjects: readonly RelaySubject[]) {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1" as const,
    kind: "RoleBinding" as const,
    metadata: { name: `${RELAY_NAME}-user`, namespace, labels: LABELS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${RELAY_NAME}-user` },
    subjects: subjects.map((s) =>
      s.kind === "ServiceAccount"
        ? { kind: s.kind, name: s.name, namespace: s.namespace ?? namespace }
        : { kind: s.kind, name: s.name, apiGroup: "rbac.authorization.k8s.io" },
    ),
  };
}
