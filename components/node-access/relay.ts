import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import {
  buildPortForwardRole,
  buildPortForwardRoleBinding,
  buildRelayConfigMap,
  buildRelayDeployment,
  buildRelayNamespace,
  buildRelayNetworkPolicy,
  buildRelayPodDisruptionBudget,
  RelayPlatform,
  RelaySubject,
} from "./relay-objects";

export interface NodeRelayArgs {
  /** The namespace the relay runs in: WMCO's on OpenShift, its own on a vanilla cluster. */
  namespace: pulumi.Input<string>;
  /** Declare that namespace too (a vanilla cluster: `RELAY_VANILLA_NAMESPACE`). */
  createNamespace?: boolean;
  /** OpenShift assigns the pods' UID and serves DNS on 5353; a vanilla cluster does neither. */
  platform: RelayPlatform;
  /** The relay image (a Node.js runtime). */
  image: string;
  /** How many relay pods (components/node-access/placement.ts `relayReplicas`). */
  replicas: number;
  /** The relay's wait for a node's TCP connection, seconds (`nodeAccess.connectTimeoutSeconds`). */
  connectTimeoutSeconds: number;
  /** Who may use it: a RoleBinding to the port-forward Role. Default none (bind the Role yourself). */
  subjects: readonly RelaySubject[];
}

/**
 * The node relay for `nodeAccess.via: cluster`: the program (a ConfigMap), the Deployment that runs it, its
 * disruption budget and NetworkPolicy, the Role (plus an optional RoleBinding) for the port-forward, and on a vanilla
 * cluster its namespace.
 *
 * `ready` is every one of them, and every resource that opens SSH sessions through the relay depends on all of
 * `ready`: created after them (pulumi-kubernetes waits for the Deployment's rollout, so a Ready pod is there), and
 * deleted before any of them, so the last session of a destroy (a vanilla node's `kubeadm reset`) still finds the
 * pod, its grant to port-forward and its egress rule. An edit that replaces them (a new namespace) creates the new
 * ones first, updates the sessions' resources onto them, and deletes the old ones last.
 */
export class NodeRelay extends pulumi.ComponentResource {
  readonly ready: pulumi.Resource[];

  constructor(name: string, args: NodeRelayArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:NodeRelay", name, {}, opts);
    const program = fs.readFileSync(path.join(__dirname, "relay-proxy.js"), "utf8");
    // Plain arguments with the namespace as an Input inside, never one Output of the whole object: the SDK lifts
    // properties off such an Output (see components/key/secret.ts for what that did to a Secret).
    const namespaced: pulumi.Resource[] = [];
    let ns = args.namespace;
    if (args.createNamespace) {
      const namespace = new k8s.core.v1.Namespace(`${name}-namespace`, buildRelayNamespace(args.namespace), {
        parent: this,
      });
      ns = namespace.metadata.name;
      namespaced.push(namespace);
    }
    const inNs = { parent: this, dependsOn: namespaced };
    const cm = new k8s.core.v1.ConfigMap(`${name}-program`, buildRelayConfigMap(ns, program), inNs);
    const deployment = new k8s.apps.v1.Deployment(
      `${name}-deployment`,
      buildRelayDeployment(ns, args.image, program, {
        platform: args.platform,
        replicas: args.replicas,
        connectTimeoutSeconds: args.connectTimeoutSeconds,
      }),
      { parent: this, dependsOn: [...namespaced, cm] },
    );
    const budget = new k8s.policy.v1.PodDisruptionBudget(`${name}-budget`, buildRelayPodDisruptionBudget(ns), inNs);
    const egress = new k8s.networking.v1.NetworkPolicy(
      `${name}-network-policy`,
      buildRelayNetworkPolicy(ns, args.platform),
      inNs,
    );
    const role = new k8s.rbac.v1.Role(`${name}-role`, buildPortForwardRole(ns), inNs);
    const binding =
      args.subjects.length > 0
        ? [
            new k8s.rbac.v1.RoleBinding(`${name}-rolebinding`, buildPortForwardRoleBinding(ns, args.subjects), {
              parent: this,
              dependsOn: [...namespaced, role],
            }),
          ]
        : [];
    this.ready = [...namespaced, cm, deployment, budget, egress, role, ...binding];
    this.registerOutputs({});
  }
}
