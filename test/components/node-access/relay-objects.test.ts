import { decodeNodeTaints } from "../../../components/cluster-objects";
import * as fs from "fs";
import * as path from "path";
import * as relay from "../../../components/node-access/relay-objects";
import { noRelayNodeWarning, relayNodeCount, relayReplicas } from "../../../components/node-access/placement";
import { nodePath } from "../../../components/node-access/path";
import { DEFAULTS } from "../../../providers/ssh/types";
import {
  RELAY_DRAIN_SECONDS,
  RELAY_RUN_AS,
  RELAY_TERMINATION_GRACE_SECONDS,
  RELAY_VANILLA_NAMESPACE,
} from "../../../facts/day2";
import { validateObject } from "../../helpers/schemas";

const NS = "openshift-windows-machine-config-operator";
const PROGRAM = fs.readFileSync(
  path.join(__dirname, "..", "..", "..", "components", "node-access", "relay-proxy.js"),
  "utf8",
);
const openshift = () => relay.buildRelayDeployment(NS, "img", PROGRAM, { platform: "openshift" });
const vanilla = () => relay.buildRelayDeployment(RELAY_VANILLA_NAMESPACE, "img", PROGRAM, { platform: "kubernetes" });

test.each([
  ["ConfigMap", relay.buildRelayConfigMap(NS, PROGRAM)],
  [
    "Deployment (OpenShift)",
    relay.buildRelayDeployment(NS, "registry.example.com/ubi9/nodejs-22-minimal:1", PROGRAM, { platform: "openshift" }),
  ],
  [
    "Deployment (vanilla)",
    relay.buildRelayDeployment(RELAY_VANILLA_NAMESPACE, "img", PROGRAM, {
      platform: "kubernetes",
      replicas: 1,
      connectTimeoutSeconds: 40,
    }),
  ],
  ["PodDisruptionBudget", relay.buildRelayPodDisruptionBudget(NS)],
  ["NetworkPolicy (OpenShift)", relay.buildRelayNetworkPolicy(NS, "openshift")],
  ["NetworkPolicy (vanilla)", relay.buildRelayNetworkPolicy(RELAY_VANILLA_NAMESPACE, "kubernetes")],
  ["Namespace", relay.buildRelayNamespace(RELAY_VANILLA_NAMESPACE)],
  ["Role", relay.buildPortForwardRole(NS)],
  [
    "RoleBinding",
    relay.buildPortForwardRoleBinding(NS, [
      { kind: "Group", name: "platform-ci" },
      { kind: "ServiceAccount", name: "pulumi", namespace: "pulumi-operator" },
    ]),
  ],
])("the relay's %s is valid against its Kubernetes schema", (_k, o) => {
  expect(validateObject(o, { closed: true })).toBe("");
});

test("the relay holds no key: no Secret volume, no service account token, no privileges", () => {
  const pod = openshift().spec.template.spec;
  expect(pod.volumes).toEqual([{ name: "program", configMap: { name: "windows-estate-node-relay" } }]);
  expect(pod.automountServiceAccountToken).toBe(false);
  expect(pod.containers[0].securityContext).toEqual({
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
  });
  expect(pod.containers[0].env).toContainEqual({ name: "RELAY_ALLOWED_PORTS", value: "22" });
});

test("a new relay program rolls the pod; the same program does not", () => {
  const a = openshift().spec.template.metadata.annotations;
  expect(openshift().spec.template.metadata.annotations).toEqual(a);
  expect(
    relay.buildRelayDeployment(NS, "img", PROGRAM + "\n// changed", { platform: "openshift" }).spec.template.metadata
      .annotations,
  ).not.toEqual(a);
});

test("port-forward RBAC: get and create on pods/portforward (WebSocket upgrades are authorized as create from Kubernetes 1.35, kubernetes PR #134577)", () => {
  expect(relay.buildPortForwardRole(NS).rules).toEqual([
    { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
    { apiGroups: [""], resources: ["pods/portforward"], verbs: ["get", "create"] },
  ]);
});

// Audit row 5: `runAsNonRoot` alone is refused by the kubelet for an image whose USER is root or a name
// (CreateContainerConfigError); OpenShift's restricted-v2 assigns a UID from the namespace range and refuses others.
test("the pod runs as a numeric non-root user where nothing assigns one (vanilla: 1001, the UBI image's user) and leaves it to OpenShift's SCC there", () => {
  expect(RELAY_RUN_AS).toBeGreaterThan(0);
  expect(vanilla().spec.template.spec.securityContext).toEqual({
    runAsNonRoot: true,
    runAsUser: 1001,
    runAsGroup: 1001,
    seccompProfile: { type: "RuntimeDefault" },
  });
  expect(openshift().spec.template.spec.securityContext).toEqual({
    runAsNonRoot: true,
    seccompProfile: { type: "RuntimeDefault" },
  });
});

// Audit row 4: on a vanilla cluster the relay had kube-system, where a port-forward grant reaches hostNetwork pods.
test("on a vanilla cluster the relay has a namespace of its own, Pod Security restricted enforced, and the SSH tunnel goes there", () => {
  expect(relay.buildRelayNamespace(RELAY_VANILLA_NAMESPACE).metadata).toEqual({
    name: "windows-estate-node-relay",
    labels: {
      "app.kubernetes.io/managed-by": "windows-estate",
      "pod-security.kubernetes.io/enforce": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
      "pod-security.kubernetes.io/audit": "restricted",
    },
  });
  const access = {
    via: "cluster" as const,
    portForwardSubjects: [],
    hostKeys: {},
    trustOnFirstUse: false,
    connectTimeoutSeconds: 15,
  };
  const key = { pem: "k" } as Parameters<typeof nodePath>[0]["privateKey"];
  expect(nodePath({ nodeAccess: access, privateKey: key, cluster: {} }).cluster?.namespace).toBe(
    "windows-estate-node-relay",
  );
  expect(
    nodePath({ nodeAccess: access, privateKey: key, cluster: {}, operator: { namespace: NS } }).cluster?.namespace,
  ).toBe(NS);
});

// Audit row 9 (this side of it): the configured timeout reaches the tunnel and the relay alike.
test("nodeAccess.connectTimeoutSeconds reaches the cluster tunnel and the relay's own wait for the node", () => {
  const access = {
    via: "cluster" as const,
    portForwardSubjects: [],
    hostKeys: {},
    trustOnFirstUse: false,
    connectTimeoutSeconds: 40,
  };
  const key = { pem: "k" } as Parameters<typeof nodePath>[0]["privateKey"];
  expect(nodePath({ nodeAccess: access, privateKey: key, cluster: {} }).cluster?.timeoutSeconds).toBe(40);
  const env = relay.buildRelayDeployment(NS, "img", PROGRAM, { platform: "openshift", connectTimeoutSeconds: 40 }).spec
    .template.spec.containers[0].env;
  expect(env).toContainEqual({ name: "RELAY_CONNECT_TIMEOUT_MS", value: "40000" });
});

// Audit row 7: one replica, no budget, the default 30 s grace period.
test("two relay pods, one per node while there are nodes for both, a budget keeping one up, and a grace period longer than the longest remote command", () => {
  const d = vanilla();
  const pod = d.spec.template.spec;
  expect(d.spec.replicas).toBe(2);
  expect(pod.topologySpreadConstraints).toEqual([
    {
      maxSkew: 1,
      topologyKey: "kubernetes.io/hostname",
      whenUnsatisfiable: "DoNotSchedule",
      nodeTaintsPolicy: "Honor",
      labelSelector: { matchLabels: d.spec.selector.matchLabels },
    },
  ]);
  // The longest remote command (the SSH layer's per-command timeout) finishes in a pod being stopped, and the relay
  // closes what is left (naming it) before the kubelet's SIGKILL.
  expect(pod.terminationGracePeriodSeconds).toBe(RELAY_TERMINATION_GRACE_SECONDS);
  expect(RELAY_TERMINATION_GRACE_SECONDS).toBeGreaterThanOrEqual(DEFAULTS.commandTimeoutSeconds + 30);
  expect(RELAY_DRAIN_SECONDS).toBeGreaterThan(DEFAULTS.commandTimeoutSeconds);
  expect(RELAY_DRAIN_SECONDS).toBeLessThan(RELAY_TERMINATION_GRACE_SECONDS);
  expect(pod.containers[0].env).toContainEqual({ name: "RELAY_DRAIN_SECONDS", value: String(RELAY_DRAIN_SECONDS) });
  const pdb = relay.buildRelayPodDisruptionBudget(RELAY_VANILLA_NAMESPACE);
  expect(pdb.spec).toEqual({
    maxUnavailable: 1,
    selector: { matchLabels: d.spec.selector.matchLabels },
    unhealthyPodEvictionPolicy: "AlwaysAllow",
  });
  // The budget selects exactly the relay pods.
  expect(d.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
});

test("one relay pod on a cluster with a single Linux node it can run on (two would make that node's drain wait on the budget for good); a configured count wins", () => {
  const node = (taints: { key: string; effect: string }[] = []) => ({ spec: { taints } });
  // Read through discovery's decoder (components/cluster-objects.ts), as discovery reads the NodeList.
  const list = (...items: unknown[]) => decodeNodeTaints({ metadata: {}, items });
  const controlPlane = node([{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]);
  // kubeadm: a tainted control plane and one worker (cordoned for maintenance: still counted).
  expect(
    relayNodeCount(list(controlPlane, node([{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }]))),
  ).toBe(1);
  expect(relayNodeCount(list(controlPlane, node(), node([{ key: "dedicated", effect: "PreferNoSchedule" }])))).toBe(2);
  expect(relayNodeCount(list(controlPlane))).toBe(0);
  expect(relayNodeCount(decodeNodeTaints({ metadata: { continue: "x" }, items: [node()] }))).toBeUndefined();
  expect(relayNodeCount(undefined)).toBeUndefined();
  expect(relayReplicas(undefined, 1)).toBe(1);
  expect(relayReplicas(undefined, 3)).toBe(2);
  expect(relayReplicas(undefined, undefined)).toBe(2);
  expect(relayReplicas(2, 1)).toBe(2);
  expect(noRelayNodeWarning(0)).toContain("no Linux node the relay pod can be scheduled on");
  expect(noRelayNodeWarning(1)).toBeUndefined();
});

// Audit row 10: an exec probe that starts node with the kubelet's default 1 s timeout flaps on a busy node.
test("the readiness probe gives a cold node process 5 s and three tries before the pod counts as not ready", () => {
  const probe = openshift().spec.template.spec.containers[0].readinessProbe;
  expect(probe.exec.command[0]).toBe("node");
  expect(probe.timeoutSeconds).toBeGreaterThanOrEqual(5);
  expect(probe.failureThreshold).toBeGreaterThanOrEqual(3);
});

// Audit row 11: a default-deny egress namespace turned every session into a 504 without a hint.
test("the relay pods may reach TCP 22 and DNS and nothing else, and nothing may connect to them over the pod network", () => {
  const vanillaPolicy = relay.buildRelayNetworkPolicy(RELAY_VANILLA_NAMESPACE, "kubernetes");
  expect(vanillaPolicy.spec).toEqual({
    podSelector: { matchLabels: { "app.kubernetes.io/name": "windows-estate-node-relay" } },
    policyTypes: ["Ingress", "Egress"],
    ingress: [],
    egress: [
      { ports: [{ protocol: "TCP", port: 22 }] },
      {
        ports: [
          { protocol: "UDP", port: 53 },
          { protocol: "TCP", port: 53 },
        ],
      },
    ],
  });
  // OpenShift's DNS pods listen on 5353 behind the dns-default Service's port 53.
  expect(relay.buildRelayNetworkPolicy(NS, "openshift").spec.egress[1].ports).toEqual([
    { protocol: "UDP", port: 53 },
    { protocol: "TCP", port: 53 },
    { protocol: "UDP", port: 5353 },
    { protocol: "TCP", port: 5353 },
  ]);
});
