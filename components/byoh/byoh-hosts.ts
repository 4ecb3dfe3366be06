import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { WindowsHost } from "../../providers/windows-host";
import { ByohDeconfigured } from "../../providers/kube-wait/resources";
import { ClusterAccess } from "../cluster-access";
import { ByohHostConfig } from "../../stacks/schema/byoh";
import { buildInstancesConfigMap } from "./instances-configmap";
import { bootstrapCredential } from "../node-access/credentials";
import type { NodePath } from "../node-access/path";

export interface ByohHostsArgs {
  /** The validated `windows-estate:byoh` entries. */
  hosts: readonly ByohHostConfig[];
  /** The hop to the hosts (`windows-estate:nodeAccess`): a jump host or the cluster relay; none means direct. */
  path?: NodePath;
  /** WMCO's namespace, where `windows-instances` lives. */
  namespace: pulumi.Input<string>;
  /** The WMCO key pair, from the key component. */
  wmcoPublicKey: pulumi.Input<string | undefined>;
  wmcoPrivateKey: pulumi.Input<string>;
  /**
   * How to ask the cluster whether WMCO has deconfigured the hosts (on `pulumi destroy`). Undefined in render mode,
   * where nothing is destroyed in a cluster.
   */
  access?: ClusterAccess;
  /**
   * Resources WMCO needs while it deconfigures nodes (its key Secret, the operator): deleted only after. Also what
   * `windows-instances` waits for besides the prepared hosts: WMCO configures a listed host with its key at once.
   */
  keepUntilDeconfigured?: pulumi.Input<pulumi.Resource[]>;
}

/**
 * Bring-your-own Windows hosts: each prepared over SSH (`WindowsHost`), then listed in WMCO's `windows-instances`
 * ConfigMap, which waits for every host to be prepared. Removing an entry removes its key from the ConfigMap,
 * and WMCO then deconfigures that node.
 */
export class ByohHosts extends pulumi.ComponentResource {
  /** Per host: address, hostname, Windows Server version, host key fingerprint. */
  readonly hosts: pulumi.Output<
    { address: string; hostname: string; windowsServer: string; hostKeyFingerprint: string }[]
  >;

  /** The hosts as prepared, in config order (key rotation's later steps depend on them). */
  readonly prepared: WindowsHost[];

  constructor(name: string, args: ByohHostsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:ByohHosts", name, {}, opts);
    const prepared = args.hosts.map((h, i) => {
      const connection = bootstrapCredential(h.bootstrap, args.wmcoPrivateKey, `byoh[${i}]`).apply((credential) => ({
        host: h.address,
        port: h.port,
        user: h.username,
        hostKey: h.hostKey,
        trustOnFirstUse: h.trustOnFirstUse,
        pathStyle: "windows" as const,
        ...(h.sshDeadlineSeconds === undefined ? {} : { deadlineSeconds: h.sshDeadlineSeconds }),
        ...credential,
        ...(args.path?.proxy ? { proxy: args.path.proxy } : {}),
        ...(args.path?.cluster ? { cluster: args.path.cluster } : {}),
      }));
      return new WindowsHost(
        `${name}-${h.address}`,
        {
          connection,
          wmcoPublicKey: pulumi.output(args.wmcoPublicKey).apply((k) => k ?? ""),
          wmcoPrivateKey: args.wmcoPrivateKey,
          expectedWindowsServer: h.windowsServer,
        },
        { parent: this, dependsOn: opts?.dependsOn },
      );
    });
    // Destroy order: the ConfigMap goes first (WMCO then deconfigures every node), this gate waits until the nodes
    // are gone, and only then may the key Secret and the operator it depends on be deleted.
    const gate = args.access
      ? [
          new ByohDeconfigured(
            `${name}-deconfigured`,
            { namespace: args.namespace, kubeconfig: args.access.kubeconfig, context: args.access.context },
            { parent: this, dependsOn: args.keepUntilDeconfigured ?? [] },
          ),
        ]
      : [];
    this.prepared = prepared;
    new k8s.core.v1.ConfigMap(
      `${name}-windows-instances`,
      pulumi.output(args.namespace).apply((ns) => buildInstancesConfigMap(ns, args.hosts)),
      // WMCO starts configuring a host the moment it appears here: only once the host is prepared.
      {
        parent: this,
        dependsOn: pulumi
          .all([pulumi.output(opts?.dependsOn ?? []), pulumi.output(args.keepUntilDeconfigured ?? [])])
          .apply(([d, keep]) => [...prepared, ...gate, ...keep, ...(Array.isArray(d) ? d : [d])]),
      },
    );
    this.hosts = pulumi.all(
      prepared.map((p, i) =>
        pulumi
          .all([p.hostname, p.windowsServer, p.hostKeyFingerprint, p.unreachable])
          .apply(([hostname, windowsServer, fp, unreachable]) => {
            // Set by a refresh that could not reach the host: its state is the last known one.
            if (unreachable)
              pulumi.log.warn(
                `BYOH host ${args.hosts[i].address} was unreachable at the last refresh (${unreachable}); its state is the last known one`,
                this,
              );
            return { address: args.hosts[i].address, hostname, windowsServer, hostKeyFingerprint: fp };
          }),
      ),
    );
    this.registerOutputs({ hosts: this.hosts });
  }
}
