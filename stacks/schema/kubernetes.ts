import { z } from "zod";
import { awsProvisioning, azureProvisioning } from "./provisioning";

/** `X.Y.Z` (a `v` prefix is accepted and dropped). */
const version = z
  .string()
  .regex(/^v?\d+\.\d+\.\d+$/, "must be a release version like 1.36.2")
  .transform((v) => v.replace(/^v/, ""));

/**
 * `windows-estate:kubernetes` (with `cluster.platform: Kubernetes`): the vanilla cluster the Windows nodes join. What
 * the cluster says itself (version, CIDRs, DNS service IP) is discovered at preview/up when left out.
 */
export const kubernetesSchema = z
  .strictObject({
    /** The Kubernetes version of the Windows nodes' kubelet, kubeadm and kube-proxy. Default: the API server's. */
    version: version.optional(),
    /** The pod network (kubeadm `podSubnet`, flannel's `Network`). Default: discovered from `kubeadm-config`. */
    podNetworkCidr: z.string().min(1).optional(),
    /** The service network (kubeadm `serviceSubnet`). Default: discovered from `kubeadm-config`. */
    serviceCidr: z.string().min(1).optional(),
    /** The cluster DNS Service IP (the kubelet's `clusterDNS`). Default: discovered from `kube-system/kube-dns`. */
    dnsServiceIp: z.string().min(1).optional(),
    /** The API server the nodes join (`host:port`). Default: discovered from `kube-public/cluster-info`. */
    apiServerEndpoint: z.string().min(1).optional(),
    /**
     * The pin of the cluster CA's public key the joins check (kubeadm `caCertHashes`, `sha256:<hex>`; printed by
     * `kubeadm token create --print-join-command`). Default: computed from the CA in `kube-public/cluster-info`;
     * required when discovery is off.
     */
    caCertHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: and 64 lower-case hex digits, as kubeadm prints it")
      .optional(),
    /** flannel's VXLAN backend as Windows requires it. */
    flannel: z
      .strictObject({
        /** VXLAN network identifier. Windows flanneld refuses anything below 4096. Default 4096. */
        vni: z.number().int().min(1).max(16777215).default(4096),
        /** VXLAN UDP port. Windows flanneld accepts 4789 only. Default 4789. */
        port: z.number().int().min(1).max(65535).default(4789),
        /**
         * Patch the cluster's flannel ConfigMap (`kube-flannel/kube-flannel-cfg` `net-conf.json`) to this VNI and
         * port. Default true; false only checks it and refuses with the exact fix.
         */
        manage: z.boolean().default(true),
        /** flanneld's release for the Windows nodes (`v0.28.9`). Default: the pinned one (facts/kubernetes.ts). */
        version: z.string().min(1).optional(),
        /**
         * SHA-256 of that release's `flanneld.exe` (flannel publishes none). Required for a version without a pin in
         * facts/kubernetes.ts; the node refuses a download that does not match.
         */
        flanneldSha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits (sha256sum of flanneld.exe)")
          .optional(),
        /**
         * flannel's CNI plugin release for the Windows nodes (`v1.9.1-flannel3`, installed as `flannel.exe`). Default:
         * the pinned one (facts/kubernetes.ts).
         */
        cniVersion: z.string().min(1).optional(),
        /**
         * SHA-256 of that release's `flannel-amd64.exe` (flannel publishes none). Required for a CNI version without a
         * pin in facts/kubernetes.ts, or for a mirror that serves another build.
         */
        cniSha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits (sha256sum of flannel-amd64.exe)")
          .optional(),
      })
      .default({ vni: 4096, port: 4789, manage: true }),
    /** containerd on the Windows nodes. */
    containerd: z
      .strictObject({
        /** containerd release. Default: the one pinned for the Kubernetes version (facts/kubernetes.ts). */
        version: version.optional(),
      })
      .default({}),
    /** Where binaries come from. */
    artifacts: z
      .strictObject({
        /**
         * A mirror of the public release URLs for disconnected sites: `https://dl.k8s.io/release/…` becomes
         * `<baseUrl>/dl.k8s.io/release/…` (host and path kept below it). Default: the public URLs.
         */
        baseUrl: z.string().url("must be a URL like https://mirror.example.com/k8s").optional(),
      })
      .default({}),
    /**
     * The image of the Windows flanneld and kube-proxy HostProcess DaemonSets. They run the host's own checksum-verified
     * binaries, so any HostProcess-capable image works; a mirror of the default for disconnected sites. Default:
     * Microsoft's HostProcess base image (facts/kubernetes.ts `HOST_PROCESS_IMAGE`).
     */
    hostProcessImage: z.string().min(1).optional(),
    /** How upgrades of the joined nodes roll. */
    upgrade: z
      .strictObject({
        /**
         * How many nodes an upgrade may disrupt at once (cordon, drain, restart the kubelet or containerd), across every
         * `up` that runs against the cluster: each holds one of this many Leases in kube-system while it is out, and a
         * node a failed upgrade left out of service counts until an `up` finishes it. A flanneld, kube-proxy or
         * CNI-only change disrupts no node. Default 1.
         */
        maxUnavailable: z.number().int().min(1).max(50).default(1),
        /**
         * How long a node may wait for a free slot, in minutes; it stops waiting at once when every slot is taken by
         * nodes that failed in the same `up`. Default 60.
         */
        waitMinutes: z.number().int().min(1).max(1440).default(60),
      })
      .default({ maxUnavailable: 1, waitMinutes: 60 }),
    /** Bootstrap token lifetime for joins, in hours (kubeadm's default is 24). Default 2. */
    tokenTtlHours: z.number().int().min(1).max(168).default(2),
    /**
     * An HTTP(S) proxy the nodes' containerd and kubelet use (machine environment variables, as WMCO sets them for
     * OpenShift nodes), and the downloads go through. Default: none. Values travel as secrets (a URL may hold
     * credentials).
     */
    proxy: z
      .strictObject({
        /** Proxy for HTTP, e.g. `http://proxy.example.com:3128`. */
        httpProxy: z
          .string()
          .regex(/^https?:\/\/[^\s/?#]+/, "must be an http:// or https:// proxy URL")
          .optional(),
        /** Proxy for HTTPS. */
        httpsProxy: z
          .string()
          .regex(/^https?:\/\/[^\s/?#]+/, "must be an http:// or https:// proxy URL")
          .optional(),
        /** Hosts, domains and CIDRs reached directly; the cluster's networks belong here. */
        noProxy: z.array(z.string().min(1)).default([]),
      })
      .optional(),
  })
  .optional();

export type KubernetesConfig = NonNullable<z.output<typeof kubernetesSchema>>;

const taint = z.strictObject({
  /** Taint key, e.g. `os`. */
  key: z.string().min(1),
  /** Taint value. Default: none. */
  value: z.string().optional(),
  /** What the taint does to pods that do not tolerate it. */
  effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
});

/** One Windows host joined to the vanilla cluster. */
const node = z.strictObject({
  /**
   * IPv4 address or DNS name the program reaches over SSH; also the node IP flannel uses. Required unless the entry
   * creates its VM (`aws` or `azure`), whose private IP is used.
   */
  address: z.string().min(1).optional(),
  /** An administrator account on the host. Required with `address`; a created VM uses its cloud's administrator. */
  username: z.string().min(1).optional(),
  /** With `aws`/`azure`: how many identical nodes (named `<name>-<n>`). Default 1. */
  count: z.number().int().min(1).max(50).default(1),
  /** Create the node as an EC2 instance (instead of giving `address`); `name` is then required. */
  aws: awsProvisioning.optional(),
  /** Create the node as an Azure VM (instead of giving `address`); `name` is then required. */
  azure: azureProvisioning.optional(),
  /**
   * The Node's name. Default: the host's DNS host name in lower case, as the kubelet registers it (Go's os.Hostname,
   * component-helpers `GetHostname`), read from the host; never the NetBIOS `COMPUTERNAME`, which is cut to 15
   * characters. A host whose DNS host name kubeadm would refuse (e.g. with `_`) stops before any change, naming this key.
   */
  name: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a lower-case DNS label (the kubelet registers lower case)")
    .max(63)
    .optional(),
  /** SSH port. Default 22. */
  port: z.number().int().min(1).max(65535).default(22),
  /** The host's SSH key: an OpenSSH public-key line or a `SHA256:` fingerprint. Required unless `trustOnFirstUse`. */
  hostKey: z.string().min(1).optional(),
  /** Record the host key at first contact and enforce it afterwards. Default false. */
  trustOnFirstUse: z.boolean().default(false),
  /** Credential for the first connection; afterwards the stack's node key. Default: the stack's key itself. */
  bootstrap: z
    .strictObject({
      /** Path to a private key that the host already accepts (`~` expanded). */
      privateKeyPath: z.string().min(1).optional(),
      /** Name of a secret stack config key (in this namespace) holding the password, e.g. `nodePassword`. */
      passwordSecret: z.string().min(1).optional(),
    })
    .optional(),
  /**
   * The host's IPv4 address on the cluster network: the kubelet's `--node-ip` (the Node's InternalIP, which flanneld
   * binds VXLAN to through `status.hostIP`) and the CNI's provider address, so all three agree. Default: `address`
   * (resolved from here when it is a DNS name), or a created VM's private IP. Set it when SSH reaches the host at
   * another address (NAT, a second NIC). Changing it re-joins the node (drain, reset, join).
   */
  nodeIp: z.ipv4().optional(),
  /**
   * The host will never answer again: `up` deletes its Node through the API (its pods are already lost; the pod
   * garbage collector removes them) without trying SSH, and says what stays on the host. Delete the entry afterwards;
   * that touches nothing. Not for nodes this stack creates (delete their entry: the VM goes with it). Default false.
   */
  forceRemove: z.boolean().default(false),
  /** Windows Server version the host runs (`2022` or `2025`, as Kubernetes supports them). Default 2022. */
  windowsServer: z.enum(["2022", "2025"]).default("2022"),
  /** Labels for the Node (besides what the kubelet sets). */
  labels: z.record(z.string(), z.string()).default({}),
  /** Taints for the Node. Default: `os=windows:NoSchedule` (Kubernetes' Windows convention). */
  taints: z.array(taint).optional(),
  /** `auto`: on vSphere, set `spec.providerID` from the BIOS serial (`vsphere://<uuid>`); `none` (default): leave it. */
  providerId: z.enum(["auto", "none"]).default("none"),
});

/** `windows-estate:nodes`: Windows hosts joined to a vanilla Kubernetes cluster (`cluster.platform: Kubernetes`). */
export const nodesSchema = z.array(node).default([]);

export type VanillaNodeConfig = z.output<typeof node>;
