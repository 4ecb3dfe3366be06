import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { WindowsHost } from "../../providers/windows-host";
import { ByohDeconfigured, ByohHostReleased } from "../../providers/kube-wait/resources";
import { ClusterAccess } from "../cluster-access";
import type { ByohHost } from "./hosts";
import { isOffline } from "../../stacks/offline";
import { buildInstancesConfigMap } from "./instances-configmap";
import { bootstrapCredential } from "../node-access/credentials";
import type { NodePath } from "../node-access/path";

export interface ByohHostsArgs {
  /** The validated `windows-estate:byoh` entries, expanded to hosts (`expandByoh`). */
  hosts: readonly ByohHost[];
  /** Addresses of the hosts this stack creates (their private IPs), by host key; and the VMs they wait for. */
  created?: {
    addresses: Record<string, pulumi.Input<string>>;
    vms: Record<string, pulumi.Resource[]>;
    /** The Node names WMCO gives created hosts where it is not their hostname (AWS: the private DNS name). */
    nodeNames?: Record<string, pulumi.Input<string>>;
  };
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

  /** WMCO's `windows-instances` ConfigMap, listing the prepared hosts (the join wait comes after it). */
  readonly instances: k8s.core.v1.ConfigMap;

  constructor(name: string, args: ByohHostsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:ByohHosts", name, {}, opts);
    // A host given by address, or the private IP of the VM this stack created for it.
    // Offline (synth) a created VM has no IP yet: a placeholder that says so (a valid ConfigMap key).
    const addressOf = (h: ByohHost): pulumi.Output<string> =>
      h.kind === "manual"
        ? pulumi.output(h.address)
        : isOffline()
          ? pulumi.output(`${h.key}.private-ip-known-at-up`)
          : pulumi.output(args.created?.addresses[h.key] ?? "");
    const prepared = args.hosts.map((h) => {
      const e = h.entry;
      const connection = pulumi
        .all([addressOf(h), bootstrapCredential(e.bootstrap, args.wmcoPrivateKey, `byoh[${h.index}]`)])
        .apply(([address, credential]) => ({
          host: address,
          port: e.port,
          user: h.username,
          // A VM this stack created: its key is pinned at first contact (its user data printed it on the console).
          hostKey: h.kind === "manual" ? e.hostKey : undefined,
          trustOnFirstUse: h.kind === "manual" ? e.trustOnFirstUse : true,
          pathStyle: "windows" as const,
          ...(e.sshDeadlineSeconds === undefined ? {} : { deadlineSeconds: e.sshDeadlineSeconds }),
          // A new VM takes minutes to boot, install OpenSSH and restart with its hostname.
          ...(h.kind !== "manual" && e.sshDeadlineSeconds === undefined ? { deadlineSeconds: 1200 } : {}),
          ...credential,
          ...(args.path?.proxy ? { proxy: args.path.proxy } : {}),
          ...(args.path?.cluster ? { cluster: args.path.cluster } : {}),
        }));
      const vms = args.created?.vms[h.key] ?? [];
      // Removing a created host's entry: windows-instances drops it first, this waits for WMCO, then the VM goes.
      if (vms.length > 0 && args.access)
        new ByohHostReleased(
          `${name}-${h.key}-released`,
          {
            address: addressOf(h),
            namespace: args.namespace,
            kubeconfig: args.access.kubeconfig,
            context: args.access.context,
          },
          { parent: this, dependsOn: vms },
        );
      return new WindowsHost(
        `${name}-${h.key}`,
        {
          connection,
          wmcoPublicKey: pulumi.output(args.wmcoPublicKey).apply((k) => k ?? ""),
          wmcoPrivateKey: args.wmcoPrivateKey,
          expectedWindowsServer: e.windowsServer,
          ...(args.created?.nodeNames?.[h.key] ? { nodeName: args.created.nodeNames[h.key] } : {}),
        },
        {
          parent: this,
          dependsOn: pulumi.output(opts?.dependsOn ?? []).apply((d) => [...(Array.isArray(d) ? d : [d]), ...vms]),
        },
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
    this.instances = new k8s.core.v1.ConfigMap(
      `${name}-windows-instances`,
      pulumi.all([pulumi.output(args.namespace), pulumi.all(args.hosts.map(addressOf))]).apply(([ns, addresses]) =>
        buildInstancesConfigMap(
          ns,
          args.hosts.map((h, i) => ({ address: addresses[i], username: h.username })),
        ),
      ),
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
          .all([addressOf(args.hosts[i]), p.hostname, p.windowsServer, p.hostKeyFingerprint, p.unreachable])
          .apply(([address, hostname, windowsServer, fp, unreachable]) => {
            // Set by a refresh that could not reach the host: its state is the last known one.
            if (unreachable)
              pulumi.log.warn(
                `BYOH host ${args.hosts[i].key} was unreachable at the last refresh (${unreachable}); its state is the last known one`,
                this,
              );
            return { address, hostname, windowsServer, hostKeyFingerprint: fp };
          }),
      ),
    );
    this.registerOutputs({ hosts: this.hosts });
  }
}
