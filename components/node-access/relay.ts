import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as path from "path";
import {
  buildPortForwardRole,
  buildPortForwardRoleBinding,
  buildRelayConfigMap,
  buildRelayDeployment,
  RelaySubject,
} from "./relay-objects";

export interface NodeRelayArgs {
  /** WMCO's namespace: the relay runs beside the operator. */
  namespace: pulumi.Input<string>;
  /** The relay image (a Node.js runtime). */
  image: string;
  /** Who may use it: a RoleBinding to the port-forward Role. Default none (bind the Role yourself). */
  subjects: readonly RelaySubject[];
}

/**
 * The node relay for `nodeAccess.via: cluster`: the program (a ConfigMap), the Deployment that runs it, and the Role
 * (plus an optional RoleBinding) for the port-forward. `ready` is the Deployment: pulumi-kubernetes waits for its
 * rollout, so node operations that depend on it find a Ready pod.
 */
export class NodeRelay extends pulumi.ComponentResource {
  readonly ready: pulumi.Resource;

  constructor(name: string, args: NodeRelayArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:NodeRelay", name, {}, opts);
    const program = fs.readFileSync(path.join(__dirname, "relay-proxy.js"), "utf8");
    // Plain arguments with the namespace as an Input inside, never one Output of the whole object: the SDK lifts
    // properties off such an Output (see components/key/secret.ts for what that did to a Secret).
    const ns = args.namespace;
    const cm = new k8s.core.v1.ConfigMap(`${name}-program`, buildRelayConfigMap(ns, program), { parent: this });
    this.ready = new k8s.apps.v1.Deployment(`${name}-deployment`, buildRelayDeployment(ns, args.image, program), {
      parent: this,
      dependsOn: [cm],
    });
    const role = new k8s.rbac.v1.Role(`${name}-role`, buildPortForwardRole(ns), { parent: this });
    if (args.subjects.length > 0)
      new k8s.rbac.v1.RoleBinding(`${name}-rolebinding`, buildPortForwardRoleBinding(ns, args.subjects), {
        parent: this,
        dependsOn: [role],
      });
    this.registerOutputs({});
  }
}
