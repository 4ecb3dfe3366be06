import type * as pulumi from "@pulumi/pulumi";
/**
 * The objects of the node relay (`nodeAccess.via: cluster`), as plain data: a ConfigMap holding the relay program, a
 * Deployment that runs it (no key, no Secret, no service account token, restricted security context, Linux nodes),
 * and a Role granting what a port-forward to it needs. Pure; validated against the Kubernetes schemas in tests.
 */
import { createHash } from "crypto";
import { RELAY_ALLOWED_PORTS, RELAY_NAME, RELAY_PORT } from "../../facts/day2";

const LABELS = { "app.kubernetes.io/name": RELAY_NAME, "app.kubernetes.io/managed-by": "windows-estate" };

export function buildRelayConfigMap(namespace: pulumi.Input<string>, program: string) {
  return {
    apiVersion: "v1" as const,
    kind: "ConfigMap" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    data: { "relay-proxy.js": program },
  };
}

export function buildRelayDeployment(namespace: pulumi.Input<string>, image: string, program: string) {
  return {
    apiVersion: "apps/v1" as const,
    kind: "Deployment" as const,
    metadata: { name: RELAY_NAME, namespace, labels: LABELS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { "app.kubernetes.io/name": RELAY_NAME } },
      template: {
        metadata: {
          labels: LABELS,
          // A new relay program rolls the pod.
          annotations: {
            "windows-estate.io/relay-program": createHash("sha256").update(program).digest("hex").slice(0, 16),
          },
        },
        spec: {
          // It talks to nothing in the cluster: no API token in the pod.
          automountServiceAccountToken: false,
          nodeSelector: { "kubernetes.io/os": "linux" },
          securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "relay",
              image,
              command: ["node", "/relay/relay-proxy.js"],
              env: [
                { name: "RELAY_PORT", value: String(RELAY_PORT) },
                { name: "RELAY_ALLOWED_PORTS", value: RELAY_ALLOWED_PORTS.join(",") },
              ],
              // It listens on the pod's loopback only, so the kubelet's probes check it from inside the container.
              readinessProbe: {
                exec: {
                  command: [
                    "node",
                    "-e",
                    `require("net").connect(${RELAY_PORT}, "127.0.0.1").on("connect", () => process.exit(0)).on("error", () => process.exit(1))`,
                  ],
                },
                periodSeconds: 10,
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
