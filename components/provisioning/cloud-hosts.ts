import * as pulumi from "@pulumi/pulumi";
import { CloudHost, CloudHostsContext } from "./host-context";
import { awsUserData, firstBootScript, FirstBoot } from "./user-data";
import { cloudSdk } from "./cloud-sdk";

export { cloudHostOf } from "./host-context";

export interface CloudHostsArgs {
  /** The hosts to create (`byoh[]` or `nodes[]` entries with an aws or azure block, expanded by `count`). */
  hosts: readonly CloudHost[];
  /** The cluster's infrastructure ID (tags, default Azure names) and region. */
  cluster: { infrastructureId: string; region?: string };
  /** The public key the hosts authorize (the WMCO key). */
  publicKey: pulumi.Input<string | undefined>;
  /** Extra inbound ports (UDP 4789 for vanilla nodes); WMCO's 22, 10250 and 9182 are always opened. */
  udpPorts?: readonly number[];
  /**
   * Whether WMCO configures the hosts (OpenShift BYOH). Then IMDSv1 stays allowed, the workers' instance profile is
   * the AWS default and AWS hosts report their Node name; otherwise (kubeadm nodes) IMDSv2 is required.
   */
  wmco: boolean;
}

/**
 * The VMs a stack creates for its entries with an aws or azure block (`byoh[]` on OpenShift, `nodes[]` on kubeadm), or
 * none when no entry has one: both estates give them the cluster's infrastructure ID and region and the stack's key.
 */
export function declareCloudHosts(
  name: string,
  hosts: readonly CloudHost[],
  cfg: { cluster: CloudHostsArgs["cluster"]; privateKey: { parsed?: { publicKey: string } } },
  kind: Pick<CloudHostsArgs, "udpPorts" | "wmco">,
  opts: pulumi.ComponentResourceOptions,
): CloudHosts | undefined {
  if (hosts.length === 0) return undefined;
  const { infrastructureId, region } = cfg.cluster;
  const publicKey = pulumi.output(cfg.privateKey.parsed?.publicKey);
  return new CloudHosts(name, { hosts, cluster: { infrastructureId, region }, publicKey, ...kind }, opts);
}

/** Inbound TCP ports WMCO's prerequisites name for a Windows node besides SSH: the kubelet, windows_exporter. */
const TCP_PORTS = [10250, 9182];

/**
 * Windows VMs on AWS and Azure, ready for SSH with the WMCO key (user-data.ts: the final lower-case hostname first,
 * then OpenSSH, key-only sshd, the key, the firewall; on Azure a password that does not expire). One explicit
 * provider per region or subscription; nothing uses a default provider. Each host's private IP is its address.
 * The cloud SDKs are loaded only when a host of theirs is declared (cloud-sdk.ts).
 */
export class CloudHosts extends pulumi.ComponentResource {
  /** Host key → private IPv4 address. */
  readonly addresses: Record<string, pulumi.Output<string>>;
  /** Host key → the VM (and on Azure its extension): a prepared host depends on them. */
  readonly vms: Record<string, pulumi.Resource[]>;
  /** Host key → its first-boot script (no secret in it), as the stack output shows it. */
  readonly firstBoot: Record<string, pulumi.Output<string>>;
  /** Host key → the Node name WMCO gives it, where that is not its hostname (AWS). */
  readonly nodeNames: Record<string, pulumi.Output<string>>;

  constructor(name: string, args: CloudHostsArgs, opts?: pulumi.ComponentResourceOptions) {
    super("windows-estate:index:CloudHosts", name, {}, opts);
    this.addresses = {};
    this.vms = {};
    this.firstBoot = {};
    this.nodeNames = {};
    const ctx: CloudHostsContext = {
      parent: this,
      name,
      cluster: args.cluster,
      wmco: args.wmco,
      providers: new Map(),
    };
    const boot = (h: CloudHost): pulumi.Output<FirstBoot> =>
      pulumi.output(args.publicKey).apply((publicKey) => ({
        cloud: h.kind,
        publicKey: publicKey ?? "",
        hostname: h.hostname,
        tcpPorts: TCP_PORTS,
        udpPorts: args.udpPorts ?? [],
        ...(h.kind === "azure" ? { neverExpiringAdmin: h.azure.adminUsername } : {}),
      }));
    for (const h of args.hosts) {
      const parts =
        h.kind === "aws"
          ? cloudSdk("aws").awsHost(h, ctx, boot(h).apply(awsUserData))
          : cloudSdk("azure").azureHost(
              h,
              ctx,
              boot(h).apply((o) => Buffer.from(firstBootScript(o), "utf8").toString("base64")),
            );
      this.addresses[h.key] = parts.address;
      this.vms[h.key] = parts.resources;
      this.firstBoot[h.key] = h.kind === "aws" ? boot(h).apply(awsUserData) : boot(h).apply(firstBootScript);
      if (parts.nodeName) this.nodeNames[h.key] = parts.nodeName;
    }
    this.registerOutputs({ addresses: this.addresses });
  }
}
